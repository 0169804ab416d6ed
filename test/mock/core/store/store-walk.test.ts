// Every operation of the contract, walked through the stateful mock: first every create (with the request
// examples), then processing steps, then every read, update and action on what was created, then every delete.
// Each answer must be the operation's documented success, and valid as the contract says (status, headers and
// body checked by the robustness tests' independent oracle, with ajv); the store's answers must be about what
// was asked for.
import type { SimulatedClock } from "../../../../src/mock/core/clock/simulated.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json, Route } from "../../../../src/mock/core/contract/contract-build.js";
import { CaseFactory } from "../../../helpers/robustness/cases.js";
import { rawRequest, type RawResponse } from "../../../helpers/robustness/http.js";
import { ContractOracle } from "../../../helpers/robustness/oracle.js";
import { contract, startStateful, STEP_MS, type TestGateway } from "../../../helpers/mock.js";

const KEY = "pk_test_demo_business";
const WORKSPACE = "ws_DemoBusiness";
let g: TestGateway & { clock: SimulatedClock };
let multipart: Awaited<ReturnType<typeof CaseFactory.multipartBodies>>;
const oracle = new ContractOracle(contract);
const model = () => g.gateway.store.model;

beforeAll(async () => {
  g = await startStateful({ wsIdleTimeoutMs: 1000 });
  multipart = await CaseFactory.multipartBodies(contract);
});
afterAll(() => g.close());

/** How many named examples a route's request body has. */
function requestExamples(route: Route): number {
  const content = contract.deref(route.op.requestBody)?.content ?? {};
  return Math.max(1, ...Object.values<Json>(content).map((m) => Object.keys(m.examples ?? {}).length));
}

/** The `n`th example of a route's request body (the first when it has fewer), as bytes with its content type. */
function requestBody(route: Route, n = 0): { type: string; bytes: Buffer } | null {
  const content = contract.deref(route.op.requestBody)?.content ?? {};
  for (const [type, media] of Object.entries<Json>(content)) {
    const all = Object.values<Json>(media.examples ?? {});
    const value = contract.deref(all[n] ?? all[0])?.value;
    if (type === "application/json") return { type, bytes: Buffer.from(JSON.stringify(value)) };
    if (type === "application/x-www-form-urlencoded") return { type, bytes: Buffer.from(new URLSearchParams(value).toString()) };
    if (type === "multipart/form-data") {
      const v = multipart.get(`${route.method} ${route.template}`)![0]!;
      return { type: v.contentType, bytes: v.bytes };
    }
    return { type, bytes: Buffer.from("RIFF....WAVEfmt fake media bytes") };
  }
  return null;
}

/** Ids of records this walk made, by collection schema (the last one first). */
const made = new Map<string, string[]>();

/** A path of `route` naming records this walk made (or the workspace's own seeded ones), with its required query. */
function pathOf(route: Route, prefer: "first" | "last" = "last"): string {
  const query = route.parameters
    .filter((p) => p.in === "query" && p.required)
    .map((p) => `${p.name}=${encodeURIComponent(String(contract.deref(p.schema)?.examples?.[0] ?? p.example))}`)
    .join("&");
  return pathTemplate(route, prefer) + (query ? `?${query}` : "");
}

function pathTemplate(route: Route, prefer: "first" | "last"): string {
  return route.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (name === "workspace_id") return WORKSPACE;
    const pattern = contract.deref(route.parameters.find((p) => p.in === "path" && p.name === name)?.schema)?.pattern;
    const coll = [...model().collections.values()].find((c) => c.keyPattern === pattern && (made.get(c.schema)?.length ?? 0) > 0);
    const ids = coll ? made.get(coll.schema)! : [];
    if (!ids.length) throw new Error(`${route.operationId}: nothing made for {${name}}`);
    return encodeURIComponent(prefer === "first" ? ids[0]! : ids.at(-1)!);
  });
}

async function send(route: Route, path: string, headers: Array<[string, string]> = [], example = 0): Promise<RawResponse> {
  const body = requestBody(route, example);
  const res = await rawRequest(new URL(g.url), {
    method: route.method.toUpperCase(),
    path,
    headers: [["X-API-Key", KEY], ...(body ? [["Content-Type", body.type] as [string, string]] : []), ...headers],
    body: body?.bytes ?? null,
  });
  expect(oracle.check(route.method, path, res), `${route.operationId} ${path}`).toEqual([]);
  return res;
}

const json = (r: RawResponse) => JSON.parse(r.body.toString("utf8"));
/** Operations the edge's own state answers before the store (decision W10): keys, OAuth, webhooks, billing. */
const EDGE_STATE = /^\/v1\/(keys|oauth|webhooks|billing)(\/|$)/;
/** Whether the store (or the examples, for what it does not keep) answers `route`, rather than the edge's state. */
const storeAnswers = (route: Route) => !EDGE_STATE.test(route.template);
const plans = () => model().plans;
const routes = () => contract.router.routes.filter((r) => r.rateLimited);
const isCreate = (r: Route) => plans().get(r)?.kind === "create" || (r.method === "post" && [201, 202].includes(r.successCode) && !r.template.includes("{"));
const isDelete = (r: Route) => r.method === "delete";

describe("every operation through the store", () => {
  it("creates: each answers its documented success, valid, keeping what was sent", async () => {
    for (const route of routes().filter(isCreate).sort((a, b) => a.template.split("/").length - b.template.split("/").length)) {
      const path = pathOf(route);
      // Every request example once; three runs (approve, reject, cancel), each asking for approval.
      const times = route.operationId === "createRun" ? 3 : requestExamples(route);
      for (let i = 0; i < times; i++) {
        const res = await send(route, path, route.operationId === "createRun" ? [["Prefer", "scenario=approval"]] : [], i);
        if (route.operationId === "createConversationMessage") expect(json(res).role).toBe("assistant"); // answers the reply (handlers.ts)
        // Creates the store does not answer (keys, webhooks: their own responders and rules) need only be valid.
        if (!storeAnswers(route)) continue;
        expect(res.status, route.operationId).toBe(route.successCode);
        const value = json(res);
        const plan = plans().get(route);
        if (plan?.kind === "create" && route.operationId !== "createConversationMessage") {
          const sent = JSON.parse(requestBody(route, i)?.type === "application/json" ? requestBody(route, i)!.bytes.toString() : "{}");
          for (const [k, v] of Object.entries(sent)) if (Object.hasOwn(plan.coll.properties, k) && plan.coll.machine?.property !== k) expect(value[k], `${route.operationId}.${k}`).toEqual(v);
        }
        // Creates the store does not keep (webhooks, keys) belong to their own responders: seeded records stand in below.
        if (plan?.kind === "create" && route.operationId !== "createConversationMessage") made.set(plan.coll.schema, [...(made.get(plan.coll.schema) ?? []), value[plan.coll.key]]);
      }
    }
    // What the store created through its lifecycles and handlers: the runs' approvals appear after two steps.
    g.clock.advance(STEP_MS * 2);
    const approvals = (await Promise.all(made.get("Run")!.map(async (id) => json(await send(route("getRun"), `/v1/runs/${id}`)).approval_id))) as string[];
    made.set("Approval", approvals);
    // Webhooks and keys are kept by their own responders: the seeded ones stand in.
    for (const [schema, list] of [["Webhook", "/v1/webhooks"], ["ApiKey", "/v1/keys"], ["Invoice", "/v1/billing/invoices"], ["AgentHealth", "/v1/agent-monitoring/agents"]] as const) {
      if (!made.get(schema)?.length) made.set(schema, json(await send(listRoute(list), list)).data.map((x: Json) => x.id ?? x.agent_id));
    }
  });

  it("reads, updates and actions: each answers its documented success about the record named", async () => {
    g.clock.advance(60_000); // a fresh minute of the rate limit
    const later = routes().filter((r) => !isCreate(r) && !isDelete(r) && r.successCode !== 101);
    expect(later.length).toBeGreaterThan(40);
    for (const route of later) {
      const actions: Record<string, "first" | "last"> = { approveApproval: "first", rejectApproval: "last" };
      const path = pathOf(route, actions[route.operationId] ?? "last");
      if (route.operationId === "cancelRun") continue; // below, on the run both decisions left alone
      const res = await send(route, path);
      if (!storeAnswers(route)) continue;
      expect(res.status, `${route.operationId} ${path}`).toBe(route.successCode);
      const plan = plans().get(route);
      if (plan && (plan.kind === "get" || plan.kind === "update" || plan.kind === "action")) {
        expect(json(res)[plan.coll.key], route.operationId).toBe(decodeURIComponent(path.split("?")[0]!.split("/").at(plan.kind === "action" ? -2 : -1)!));
      }
    }
    const cancel = route("cancelRun");
    const runs = made.get("Run")!;
    const res = await send(cancel, `/v1/runs/${runs[1]}/cancel`);
    expect([res.status, json(res).status]).toEqual([200, "canceled"]);
  });

  it("deletes: each answers 204, and the record is gone", async () => {
    g.clock.advance(60_000);
    for (const route of routes().filter(isDelete).sort((a, b) => b.template.split("/").length - a.template.split("/").length)) {
      const path = pathOf(route);
      const res = await send(route, path);
      if (!storeAnswers(route)) continue;
      expect(res.status, route.operationId).toBe(204);
      const get = contract.router.routes.find((r) => r.method === "get" && r.template === route.template);
      const plan = plans().get(route);
      if (get && plan) {
        expect((await send(get, path)).status, `${get.operationId} after ${route.operationId}`).toBe(404);
      }
    }
  });

  it("the walk covered every operation that is not a WebSocket", () => {
    const ws = routes().filter((r) => r.successCode === 101).length;
    expect(routes().filter(isCreate).length + routes().filter((r) => !isCreate(r) && !isDelete(r) && r.successCode !== 101).length + routes().filter(isDelete).length + ws).toBe(routes().length);
  });
});

function route(operationId: string): Route {
  return contract.router.routes.find((r) => r.operationId === operationId)!;
}

function listRoute(template: string): Route {
  return contract.router.routes.find((r) => r.method === "get" && r.template === template)!;
}
