// The exceptions: what no path template, verb or schema says, written per resource. Each says why.
import type { Contract, Json } from "../contract/contract-build.js";
import { derivedFields, type DeriveInput } from "./derive.js";
import { newId } from "../events/events.js";
import { getAgentHealth, listAgentHealth } from "./derived.js";
import type { CollectionModel } from "./model.js";
import { json, type StoreAnswer, type StoreRequest } from "./answer.js";
import type { Rec, WorkspaceData } from "./records.js";
import { StoreError, type Store } from "./store.js";

type Handler = (store: Store, ws: WorkspaceData, req: StoreRequest) => StoreAnswer;

/** The generic create of ops.ts, which sits above this file and hands it in (handlers). */
type Create = (store: Store, ws: WorkspaceData, coll: CollectionModel, req: StoreRequest) => Rec;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Fields of a new record that come from request fields the resource does not have.
 * - Analysis: the media is sent as `media_url`, `text`, an uploaded `file` or a raw body; `source.type` says which
 *   (the enum's descriptions say so in prose), `source.url` is the URL without its query, and the other fields
 *   of `source` are the `x-derived` values of its schema (file name, content type, size).
 * - Speaker: `sample_count` counts the `sample_analysis_ids` sent.
 */
const CREATE_ADAPTERS: Record<string, (sent: Record<string, unknown>, body: unknown, derived: (schema: Json) => Record<string, unknown>, coll: CollectionModel) => void> = {
  Analysis(sent, body, derived, coll) {
    const b = (body ?? {}) as Json;
    const type = Buffer.isBuffer(body) ? "upload" : typeof b.media_url === "string" ? "url" : typeof b.text === "string" ? "text" : "upload";
    const url = type === "url" ? b.media_url.replace(/[?#].*$/, "") : null;
    sent.source = { type, url, ...derived(coll.properties.source) };
  },
  Speaker(sent, body) {
    const samples = (body as Json)?.sample_analysis_ids;
    sent.sample_count = Array.isArray(samples) ? samples.length : 0;
  },
};

export function adaptCreate(contract: Contract, coll: CollectionModel, sent: Record<string, unknown>, body: unknown, input: DeriveInput): Record<string, unknown> {
  CREATE_ADAPTERS[coll.schema]?.(sent, body, (schema) => derivedFields(contract, schema, input), coll);
  return sent;
}

/** The conversation's messages: a question and the assistant's reply (the example's, as the mock has no assistant). */
function converse(store: Store, ws: WorkspaceData, conversation: Json, question: string): Json {
  const coll = store.model.collections.get("Message")!;
  const now = store.now();
  const create = [...store.model.plans].find(([, p]) => p.kind === "create" && p.coll === coll)?.[0];
  const template = (create && store.routeExample(create)) ?? store.template(null, coll);
  const random = store.random?.of(ws.id);
  const user = { ...structuredClone(template), id: newId("msg", now, random), conversation_id: conversation.id, role: "user", content: question, citations: [], created_at: iso(now) };
  const reply = { ...structuredClone(template), id: newId("msg", now + 1, random), conversation_id: conversation.id, role: "assistant", created_at: iso(now + 1) };
  store.insert(ws, coll, conversation.id, user);
  store.insert(ws, coll, conversation.id, reply);
  conversation.message_count = (conversation.message_count ?? 0) + 2;
  conversation.last_message_at = reply.created_at;
  conversation.updated_at = reply.created_at;
  conversation.title ??= question.length > 80 ? question.slice(0, 79) + "…" : question;
  return reply;
}

/** The exceptions, by operation id; `create` is the generic one (ops.ts). */
export function handlers(create: Create): Record<string, Handler> {
  return {
    /** Agent health is derived from the agents, their runs and approvals (derived.ts). */
    listAgentHealth,
    getAgentHealth,

    /**
     * `POST /aria/conversations/{id}/messages` answers the assistant's reply, not the message sent: both are
     * stored, and the conversation counts them.
     */
    createConversationMessage(store, ws, req) {
      const conv = store.find(ws, store.model.collections.get("Conversation")!, req.params);
      const reply = converse(store, ws, conv.value, String((req.body as Json).content));
      conv.changed();
      return json(req.route.successCode, reply);
    },

    /** `initial_message` of a new conversation is its first question (and reply). */
    createConversation(store, ws, req) {
      const rec = create(store, ws, store.model.collections.get("Conversation")!, req);
      const first = (req.body as Json)?.initial_message;
      if (typeof first === "string") converse(store, ws, rec.value, first);
      rec.changed();
      return { status: req.route.successCode, body: rec.json() };
    },

    /** `PUT /v1/consent` sends the purposes that change; the record keeps one entry per purpose (decisions). */
    updateConsent(store, ws, req) {
      const path = req.route.template;
      const record = structuredClone(ws.singletons.get(path) ?? { consents: [] });
      const now = iso(store.now());
      for (const change of (req.body as Json).consents ?? []) {
        const i = record.consents.findIndex((c: Json) => c.purpose === change.purpose);
        const entry = { purpose: change.purpose, granted: change.granted, updated_at: now, source: "api" };
        if (i >= 0) record.consents[i] = entry;
        else record.consents.push(entry);
      }
      const order: string[] = store.model.contract.deref(store.model.contract.doc.components.schemas.ConsentPurpose)?.enum ?? [];
      record.consents.sort((a: Json, b: Json) => order.indexOf(a.purpose) - order.indexOf(b.purpose));
      record.updated_at = now;
      ws.singletons.set(path, record);
      return json(req.route.successCode, record);
    },

    /**
     * `POST /v1/tos/accept` accepts the current terms (409 for another version; again is idempotent) and shows in
     * `GET /v1/tos`: the two resources are one fact the schemas cannot link.
     */
    acceptTermsOfService(store, ws, req) {
      const path = req.route.template.slice(0, req.route.template.lastIndexOf("/"));
      const tos = ws.singletons.get(path);
      const version = String((req.body as Json).version);
      if (!tos) throw new StoreError(409, "There are no terms of service to accept.");
      if (version !== tos.version) throw new StoreError(409, `Version ${version} is not the current terms of service; the current version is ${tos.version}.`);
      if (!(tos.accepted && tos.accepted_version === version)) Object.assign(tos, { accepted: true, accepted_version: version, accepted_at: iso(store.now()) });
      const consent = [...ws.singletons.values()].find((v) => typeof v?.user_id === "string");
      return json(req.route.successCode, { version, accepted_at: tos.accepted_at, user_id: consent?.user_id ?? store.routeExample(req.route)?.user_id });
    },
  };
}
