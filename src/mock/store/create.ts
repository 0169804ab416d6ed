// A new record from a create request, with the fields a few resources derive from what was sent. Below ops.ts
// (the generic create) and handlers.ts (the exceptions that create too) (decision LY2).
import type { Json } from "../contract.js";
import type { StoreRequest } from "./answer.js";
import { buildRecord, sentFields } from "./build.js";
import type { CollectionModel } from "./model.js";
import type { Rec, WorkspaceData } from "./records.js";
import { checkReferences } from "./references.js";
import { impliedScenario } from "./scenarios.js";
import type { Store } from "./store.js";

/**
 * Fields of a new record that come from request fields the resource does not have.
 * - Analysis: the media is sent as `media_url`, `text`, an uploaded `file` or a raw body; the analysis shows
 *   where it came from as `source` (the contract says so in prose only).
 * - Speaker: `sample_count` counts the `sample_analysis_ids` sent.
 */
const CREATE_ADAPTERS: Record<string, (sent: Record<string, unknown>, body: unknown) => void> = {
  Analysis(sent, body) {
    const b = (body ?? {}) as Json;
    const none = { url: null, filename: null, content_type: null, size_bytes: null };
    if (Buffer.isBuffer(body)) sent.source = { type: "stream", ...none, size_bytes: body.length };
    else if (typeof b.media_url === "string") sent.source = { type: "url", ...none, url: b.media_url };
    else if (typeof b.text === "string") sent.source = { type: "text", ...none };
    else if (typeof b.file === "string") sent.source = { type: "upload", ...none, filename: b.file };
  },
  Speaker(sent, body) {
    const samples = (body as Json)?.sample_analysis_ids;
    sent.sample_count = Array.isArray(samples) ? samples.length : 0;
  },
};

export function adaptCreate(coll: CollectionModel, sent: Record<string, unknown>, body: unknown): Record<string, unknown> {
  CREATE_ADAPTERS[coll.schema]?.(sent, body);
  return sent;
}

/** The key of the parent a sub-collection's path names (404 when it is not in the workspace); null for a top-level one. */
export function parentKey(store: Store, ws: WorkspaceData, coll: CollectionModel, params: Record<string, string>): string | null {
  return coll.parent ? store.find(ws, store.model.collections.get(coll.parent.schema)!, params).key : null;
}

/** A new record from a create request: what the client sent, the server's fields, its lifecycle's start. */
export function create(store: Store, ws: WorkspaceData, coll: CollectionModel, req: StoreRequest): Rec {
  const { contract } = store.model;
  const parent = parentKey(store, ws, coll, req.params);
  store.checkRoom(ws, coll);
  checkReferences(contract, store.model, ws, req.route, req.body);
  const sent = adaptCreate(coll, sentFields(contract, req.route, coll, req.body, req.query), req.body);
  const value = buildRecord(contract, req.route, coll, sent, { workspaceId: ws.id, parent, now: store.now(), template: store.template(req.route, coll) });
  const m = coll.machine;
  const requested = m && typeof sent[m.property] === "string" ? (sent[m.property] as string) : undefined;
  const scenario = m ? (req.scenario ?? impliedScenario(store.model, ws, m, value)) : undefined;
  return store.insert(ws, coll, parent, value, { scenario, requested });
}
