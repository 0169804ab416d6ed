// A live `/v1/stream` session in the store: the session creates an analysis (its options from the query, its
// `source` a stream) and drives it itself, instead of the service's processing: it enters processing at once,
// each result it sends is stored and logged (the analysis's SSE stream and WebSocket show the same events), `stop`
// completes it, `cancel` takes the edge of the analysis's DELETE (decision LC9), and a session that ends otherwise
// (idle, an unreadable frame, the client leaving) takes the processing's error outcome, the reason as its message.
import { nextAsync, type Step } from "../../../contract/lifecycle.js";
import type { Json, Route } from "../contract/contract-build.js";
import { partialOf, type Item, type LiveOptions, type LiveScript, type StreamEvent } from "../events/events.js";
import { buildRecord, sentFields } from "./build.js";
import type { Store } from "./store.js";

export function liveSession(store: Store, workspaceId: string, route: Route, query: URLSearchParams, opts: LiveOptions): LiveScript {
  const { coll, hooks } = store.streamed!;
  const m = coll.machine!;
  const { contract } = store.model;
  const ws = store.workspace(workspaceId);
  store.checkRoom(ws, coll);
  const sent = sentFields(contract, route, coll, undefined, query);
  sent.source = { type: "stream", url: null, filename: null, content_type: opts.contentType, size_bytes: null };
  if (opts.mediaType) sent.media_type = opts.mediaType;
  const value = buildRecord(contract, route, coll, sent, { workspaceId, parent: null, now: store.now(), template: store.template(null, coll), random: store.random?.of(workspaceId) });
  const log = store.newLog(ws, value[coll.key]);
  const started: StreamEvent = { event: "session.started", id: log.allocate(), data: { analysis_id: value[coll.key] } };
  const rec = store.insert(ws, coll, null, value, { held: true, log });
  store.driver.advance(ws, rec);

  /** The events a step (or several) appends to the log. */
  const appended = (act: () => void): StreamEvent[] => {
    const from = log.events.length;
    if (!log.finished) act();
    return log.events.slice(from);
  };
  const results: Item[] = [];
  for (const item of hooks.freshContent(rec)) {
    if (item.event === "status") continue;
    if (item.event === "transcript.segment") results.push({ event: "transcript.partial", data: partialOf(item.data) });
    results.push(item);
  }
  const deleteOp = contract.router.routes.find((r) => r.method === "delete" && r.template === coll.itemPath)?.operationId;
  return {
    analysisId: rec.key,
    started: () => started,
    opening: () => [...log.events],
    results,
    send(item) {
      if (item.event === "transcript.partial") return { ...item, id: log.allocate() };
      const [e] = appended(() => hooks.release(ws, rec, item));
      return e ?? { ...item, id: log.allocate() };
    },
    finish: () => appended(() => store.driver.advance(ws, rec, undefined)),
    cancel: () => appended(() => deleteOp && store.driver.operation(ws, rec, deleteOp)),
    error: (detail) =>
      appended(() => {
        const failing = m.transitions.find((t) => t.trigger === "async" && t.scenario !== undefined && t.from.includes(rec.value[m.property]) && m.set[t.to]?.error !== undefined);
        const step: Step | undefined = failing && nextAsync(m, rec.value[m.property], store.driver.now(), failing.scenario);
        if (!step) return;
        const error: Json = step.fields.error;
        store.driver.apply(ws, rec, { ...step, fields: { ...step.fields, ...(error && typeof error === "object" ? { error: { ...error, message: detail } } : {}) } });
      }),
  };
}
