// Agent monitoring (`/v1/agent-monitoring/agents`) is not stored: it is derived, as the contract's AgentHealth
// describes field by field, from the workspace's agents, their runs and the runs' approvals, so it always agrees
// with them. A hand-written exception: the rules are prose in the schema's descriptions.
import type { Json, Route } from "../contract/contract-build.js";
import type { CollectionModel } from "./model.js";
import { listAnswer, type StoreAnswer, type StoreRequest } from "./answer.js";
import { Rec, type WorkspaceData } from "./records.js";
import type { Store } from "./store.js";

const HOUR = 3600_000;

/** `last_24h` → 24 hours, `last_7d` → 7 days (the window enum's own names). */
function windowMs(window: string): number {
  const m = /^last_(\d+)([hd])$/.exec(window);
  return m ? Number(m[1]) * (m[2] === "d" ? 24 : 1) * HOUR : 24 * HOUR;
}

function percentile(sorted: number[], p: number): number | null {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const collection = (store: Store, schema: string): CollectionModel => store.model.collections.get(schema)!;

/** The health of one agent over `window`, ending now. */
function healthOf(store: Store, ws: WorkspaceData, agent: Json, window: string): Json {
  const now = store.now();
  const since = now - windowMs(window);
  const runs = [...ws.table(collection(store, "Run")).all()].map((r) => r.value).filter((r) => r.agent_id === agent.id);
  const inWindow = runs.filter((r) => Date.parse(r.created_at) >= since);
  const succeeded = inWindow.filter((r) => r.status === "succeeded");
  const failed = inWindow.filter((r) => r.status === "failed");
  const finished = [...succeeded, ...failed];
  const durations = finished.filter((r) => r.started_at && r.finished_at).map((r) => Date.parse(r.finished_at) - Date.parse(r.started_at)).sort((a, b) => a - b);
  const rate = finished.length ? Math.round((succeeded.length / finished.length) * 1000) / 1000 : null;
  const lastFailed = failed.sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at))[0];
  const pending = [...ws.table(collection(store, "Approval")).all()].filter((a) => a.value.agent_id === agent.id && a.value.status === "pending").length;
  const last = runs.map((r) => r.created_at).sort().at(-1) ?? null;
  return {
    agent_id: agent.id,
    name: agent.name,
    status: rate === null ? "idle" : rate < 0.5 ? "failing" : rate < 0.95 ? "degraded" : "healthy",
    window,
    runs_total: inWindow.length,
    runs_succeeded: succeeded.length,
    runs_failed: failed.length,
    success_rate: rate,
    p50_duration_ms: percentile(durations, 50),
    p95_duration_ms: percentile(durations, 95),
    pending_approvals: pending,
    last_run_at: last,
    last_error: lastFailed?.error ? { run_id: lastFailed.id, code: lastFailed.error.code, message: lastFailed.error.message, failed_at: lastFailed.finished_at ?? lastFailed.created_at } : null,
  };
}

function windowOf(store: Store, route: Route, query: URLSearchParams): string {
  const p = route.parameters.find((x) => x.in === "query" && x.name === "window");
  return query.get("window") ?? store.model.contract.deref(p?.schema)?.enum?.[0] ?? "last_24h";
}

/** The health records of every agent of the workspace, in the agents' order (oldest first). */
function healthRecords(store: Store, ws: WorkspaceData, window: string): Rec[] {
  const agents = [...ws.table(collection(store, "Agent")).all()].sort((a, b) => a.seq - b.seq);
  const coll = collection(store, "AgentHealth");
  return agents.map((a) => new Rec(coll, null, a.seq, healthOf(store, ws, a.value, window)));
}

export function listAgentHealth(store: Store, ws: WorkspaceData, req: StoreRequest): StoreAnswer {
  const records = healthRecords(store, ws, windowOf(store, req.route, req.query));
  // `window` names a property of the records, so the generic list would filter by it: it has been applied already.
  const query = new URLSearchParams(req.query);
  query.delete("window");
  return listAnswer(store, req, records, query);
}

export function getAgentHealth(store: Store, ws: WorkspaceData, req: StoreRequest): StoreAnswer {
  const agent = store.find(ws, collection(store, "Agent"), req.params);
  return { status: req.route.successCode, body: Buffer.from(JSON.stringify(healthOf(store, ws, agent.value, windowOf(store, req.route, req.query)))) };
}
