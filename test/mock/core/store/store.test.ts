// The stateful mock through HTTP: what is created is what is read, listed, changed and deleted; each workspace
// has its own data, seeded from the contract's examples; lists page, filter and end as the contract says.
import type { SimulatedClock } from "../../../../src/mock/core/clock/simulated.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../../../src/index.js";
import { paginate } from "../../../../src/client/pagination.js";
import { ANALYSIS_ID, call, contract, schemaErrors, startStateful, type TestGateway } from "../../../helpers/mock.js";

let g: TestGateway & { clock: SimulatedClock };
beforeAll(async () => {
  g = await startStateful();
});
afterAll(() => g.close());

const example = (name: string) => contract.doc.components.examples[name].value;
const iso = (ms: number) => new Date(ms).toISOString();

describe("create, read, update, delete", () => {
  it("a created board is what GET, the list, PATCH and DELETE see; then 404", async () => {
    const sent = { name: "Churn watch", description: "Signals from renewals.", shared: true };
    const created = await call(g.url, "POST", "/v1/boards", { body: sent });
    expect(created.status).toBe(201);
    expect(schemaErrors("Board", created.body)).toEqual([]);
    expect(created.body).toMatchObject({ ...sent, widgets: [], workspace_id: "ws_DemoPro00000", created_at: iso(g.clock.now()), updated_at: iso(g.clock.now()) });
    expect(created.body.id).toMatch(/^brd_[0-9A-Za-z]{26}$/);
    expect(created.body.id).not.toBe(example("Board").id);
    const id = created.body.id;

    expect((await call(g.url, "GET", `/v1/boards/${id}`)).body).toEqual(created.body);
    expect((await call(g.url, "GET", "/v1/boards")).body.data[0]).toEqual(created.body);

    g.clock.advance(5_000);
    const renamed = await call(g.url, "PATCH", `/v1/boards/${id}`, { body: { name: "Churn watch (EMEA)" } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...created.body, name: "Churn watch (EMEA)", updated_at: iso(g.clock.now()) });
    expect((await call(g.url, "GET", `/v1/boards/${id}`)).body).toEqual(renamed.body);
    expect((await call(g.url, "GET", "/v1/boards")).body.data[0]).toEqual(renamed.body);

    const deleted = await call(g.url, "DELETE", `/v1/boards/${id}`);
    expect([deleted.status, deleted.body]).toEqual([204, null]);
    const gone = await call(g.url, "GET", `/v1/boards/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.detail).toBe(`No board ${id} in this workspace.`);
    expect((await call(g.url, "DELETE", `/v1/boards/${id}`)).status).toBe(404);
    expect((await call(g.url, "PATCH", `/v1/boards/${id}`, { body: { name: "x" } })).status).toBe(404);
    expect((await call(g.url, "GET", "/v1/boards")).body.data.map((b: { id: string }) => b.id)).not.toContain(id);
  });

  it("a new record takes the schema's defaults, values derived from the request (x-derived), null where allowed, and server-set times; what was sent is kept", async () => {
    const r = await call(g.url, "POST", "/v1/analyses", { body: { media_url: "https://media.example.com/a.mp3", media_type: "audio" } });
    expect(r.status).toBe(202);
    expect(schemaErrors("Analysis", r.body)).toEqual([]);
    expect(r.body).toMatchObject({
      status: "queued",
      progress: 0,
      title: "a.mp3",
      summary: null,
      error: null,
      completed_at: null,
      duration_seconds: null,
      source: { type: "url", url: "https://media.example.com/a.mp3", filename: "a.mp3" },
      media_type: "audio",
      created_at: iso(g.clock.now()),
    });
  });

  it("nested objects get what the resource requires and the request left out (SkillOutputCreate → SkillOutput)", async () => {
    const sent = { ...example("SkillCreate"), name: "Sentiment score", output: { type: "score" } };
    const r = await call(g.url, "POST", "/v1/skills", { body: sent });
    expect(r.status).toBe(201);
    expect(schemaErrors("Skill", r.body)).toEqual([]);
    expect(r.body.output).toEqual({ type: "score", labels: [], threshold: null });
  });

  it("deleting an analysis deletes its signals, alerts, speakers and transcript too", async () => {
    const id = ANALYSIS_ID;
    const key = "pk_test_demo_starter";
    for (const sub of ["signals", "alerts", "speakers"]) expect((await call(g.url, "GET", `/v1/analyses/${id}/${sub}`, { key })).body.data.length).toBeGreaterThan(0);
    expect((await call(g.url, "DELETE", `/v1/analyses/${id}`, { key })).status).toBe(204);
    for (const sub of ["signals", "alerts", "speakers", "transcript"]) expect((await call(g.url, "GET", `/v1/analyses/${id}/${sub}`, { key })).status).toBe(404);
    // Other workspaces still have their own copy.
    expect((await call(g.url, "GET", `/v1/analyses/${id}/signals`)).status).toBe(200);
  });

  it("sub-collections belong to their parent: a member added to a workspace is listed there, updated and removed", async () => {
    const ws = "ws_DemoPro00000";
    const added = await call(g.url, "POST", `/v1/workspaces/${ws}/members`, { body: { email: "ana@example.com", role: "viewer" } });
    expect(added.status).toBe(201);
    expect(schemaErrors("WorkspaceMember", added.body)).toEqual([]);
    expect(added.body).toMatchObject({ email: "ana@example.com", role: "viewer", workspace_id: ws, name: null });
    const members = (await call(g.url, "GET", `/v1/workspaces/${ws}/members`)).body.data;
    expect(members.map((m: { user_id: string }) => m.user_id)).toContain(added.body.user_id);
    const promoted = await call(g.url, "PATCH", `/v1/workspaces/${ws}/members/${added.body.user_id}`, { body: { role: "admin" } });
    expect(promoted.body.role).toBe("admin");
    expect((await call(g.url, "DELETE", `/v1/workspaces/${ws}/members/${added.body.user_id}`)).status).toBe(204);
    expect((await call(g.url, "PATCH", `/v1/workspaces/${ws}/members/${added.body.user_id}`, { body: { role: "admin" } })).status).toBe(404);
    expect((await call(g.url, "GET", `/v1/workspaces/ws_NotMine00000/members`)).status).toBe(404);
  });

  it("a conversation message answers the assistant's reply; both are listed and counted", async () => {
    const conv = await call(g.url, "POST", "/aria/conversations", { body: { analysis_ids: [ANALYSIS_ID] } });
    expect(conv.body).toMatchObject({ message_count: 0, last_message_at: null, title: null });
    const reply = await call(g.url, "POST", `/aria/conversations/${conv.body.id}/messages`, { body: { content: "Who may churn?" } });
    expect(reply.status).toBe(201);
    expect(schemaErrors("Message", reply.body)).toEqual([]);
    expect(reply.body).toMatchObject({ role: "assistant", conversation_id: conv.body.id });
    const messages = (await call(g.url, "GET", `/aria/conversations/${conv.body.id}/messages`)).body.data;
    expect(messages.map((m: { role: string; content: string }) => [m.role, m.role === "user" ? m.content : ""])).toEqual([
      ["assistant", ""],
      ["user", "Who may churn?"],
    ]);
    const after = (await call(g.url, "GET", `/aria/conversations/${conv.body.id}`)).body;
    expect(after).toMatchObject({ message_count: 2, last_message_at: reply.body.created_at, title: "Who may churn?" });
  });

  it("PUT /v1/consent changes the purposes sent and keeps the others; terms are accepted once, 409 for another version", async () => {
    const before = (await call(g.url, "GET", "/v1/consent")).body;
    const put = await call(g.url, "PUT", "/v1/consent", { body: { consents: [{ purpose: "marketing", granted: true }] } });
    expect(schemaErrors("ConsentRecord", put.body)).toEqual([]);
    const marketing = put.body.consents.find((c: { purpose: string }) => c.purpose === "marketing");
    expect(marketing).toEqual({ purpose: "marketing", granted: true, updated_at: iso(g.clock.now()), source: "api" });
    expect(put.body.consents.filter((c: { purpose: string }) => c.purpose !== "marketing")).toEqual(before.consents.filter((c: { purpose: string }) => c.purpose !== "marketing"));
    expect((await call(g.url, "GET", "/v1/consent")).body).toEqual(put.body);

    const tos = (await call(g.url, "GET", "/v1/tos")).body;
    expect(tos.accepted).toBe(false);
    expect((await call(g.url, "POST", "/v1/tos/accept", { body: { version: "1999-01-01" } })).status).toBe(409);
    const accepted = await call(g.url, "POST", "/v1/tos/accept", { body: { version: tos.version } });
    expect(accepted.status).toBe(200);
    expect((await call(g.url, "GET", "/v1/tos")).body).toMatchObject({ accepted: true, accepted_version: tos.version, accepted_at: accepted.body.accepted_at });
  });
});

describe("operations that store nothing", () => {
  it("answer from the contract's examples, as before", async () => {
    for (const [path, body, name] of [
      ["/v1/query", example("QueryCreate"), "QueryResult"],
      ["/v1/text/analyze", example("TextAnalysisCreate"), "TextAnalysis"],
      ["/aria/results/chat", example("ResultsChatQuestion"), "ResultsChatAnswer"],
    ] as const) {
      const r = await call(g.url, "POST", path, { body });
      expect([r.status, r.body]).toEqual([200, example(name)]);
    }
  });
});

describe("workspaces", () => {
  it("are isolated: another workspace's id answers 404 and its lists do not show it", async () => {
    const mine = await call(g.url, "POST", "/v1/boards", { body: { name: "Mine" } });
    const other = "pk_test_demo_business";
    expect((await call(g.url, "GET", `/v1/boards/${mine.body.id}`, { key: other })).status).toBe(404);
    expect((await call(g.url, "DELETE", `/v1/boards/${mine.body.id}`, { key: other })).status).toBe(404);
    expect((await call(g.url, "GET", "/v1/boards", { key: other })).body.data.map((b: { id: string }) => b.id)).not.toContain(mine.body.id);
    expect((await call(g.url, "GET", `/v1/boards/${mine.body.id}`)).status).toBe(200);
  });

  it("each starts with the contract's examples, in its own workspace; a list's items are what GET answers", async () => {
    for (const key of ["pk_test_demo_free", "pk_test_demo_pro", "pk_test_demo_business"]) {
      const ws = (await call(g.url, "GET", "/v1/boards", { key })).body.data[0].workspace_id;
      const got = await call(g.url, "GET", `/v1/analyses/${ANALYSIS_ID}`, { key });
      expect(got.body).toEqual({ ...example("Analysis"), workspace_id: ws });
      for (const list of ["/v1/analyses", "/v1/runs", "/v1/approvals", "/v1/agents", "/v1/reports", "/v1/speakers"]) {
        const page = (await call(g.url, "GET", list, { key })).body;
        for (const item of page.data) expect((await call(g.url, "GET", `${list}/${item.id}`, { key })).body).toEqual(item);
      }
    }
  });
});

describe("lists", () => {
  let key: string;
  const made: string[] = [];
  beforeAll(async () => {
    key = "pk_test_demo_pro";
    for (let i = 0; i < 45; i++) {
      g.clock.advance(1000);
      made.push((await call(g.url, "POST", "/v1/boards", { key: "pk_test_demo_business", body: { name: `Board ${i}` } })).body.id);
    }
  });

  it("page with the contract's default and maximum limit, newest first, and end with has_more false and next_cursor null", async () => {
    const key = "pk_test_demo_business";
    const first = (await call(g.url, "GET", "/v1/boards", { key })).body;
    expect(first.data).toHaveLength(20); // Limit's default
    expect(first.data.slice(0, 3).map((b: { id: string }) => b.id)).toEqual(made.slice(-3).reverse());
    expect(first.has_more).toBe(true);
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { data: Array<{ id: string }>; next_cursor: string | null; has_more: boolean } = (await call(g.url, "GET", `/v1/boards?limit=7${cursor ? `&cursor=${cursor}` : ""}`, { key })).body;
      ids.push(...page.data.map((b) => b.id));
      expect(page.has_more).toBe(page.next_cursor !== null);
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    const all = (await call(g.url, "GET", "/v1/boards?limit=100", { key })).body;
    expect(all).toMatchObject({ has_more: false, next_cursor: null });
    expect(ids).toEqual(all.data.map((b: { id: string }) => b.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages).toBe(Math.ceil(ids.length / 7));
    expect((await call(g.url, "GET", "/v1/boards?limit=101", { key })).status).toBe(422); // Limit's maximum
  });

  it("the client's paginate() walks a list to its end", async () => {
    const client = createClient({ baseUrl: g.url, apiKey: "pk_test_demo_business", retry: false });
    const seen: string[] = [];
    for await (const b of paginate(client, "/v1/boards", { params: { query: { limit: 10 } } })) seen.push(b.id);
    expect(seen).toEqual(expect.arrayContaining(made));
    expect(seen).toHaveLength((await call(g.url, "GET", "/v1/boards?limit=100", { key: "pk_test_demo_business" })).body.data.length);
  });

  it("honour every documented filter: equality, time ranges and minimums", async () => {
    const byStatus = (await call(g.url, "GET", "/v1/analyses?status=completed", { key })).body.data;
    expect(byStatus.length).toBeGreaterThan(0);
    expect(byStatus.every((a: { status: string }) => a.status === "completed")).toBe(true);
    const all = (await call(g.url, "GET", "/v1/analyses?limit=100", { key })).body.data;
    const times = all.map((a: { created_at: string }) => a.created_at).sort();
    const after = (await call(g.url, "GET", `/v1/analyses?created_after=${times[1]}`, { key })).body.data;
    expect(after.map((a: { created_at: string }) => a.created_at).sort()).toEqual(times.slice(1)); // at or after
    const before = (await call(g.url, "GET", `/v1/analyses?created_before=${times[1]}`, { key })).body.data;
    expect(before.map((a: { created_at: string }) => a.created_at)).toEqual([times[0]]);
    const wrongWay = await call(g.url, "GET", `/v1/analyses?created_after=${times[1]}&created_before=${times[0]}`, { key });
    expect([wrongWay.status, wrongWay.body.detail]).toEqual([400, "created_before must be later than created_after."]);
    const strong = (await call(g.url, "GET", `/v1/analyses/${ANALYSIS_ID}/signals?min_score=0.5`, { key })).body.data;
    const signals = (await call(g.url, "GET", `/v1/analyses/${ANALYSIS_ID}/signals`, { key })).body.data;
    expect(strong).toEqual(signals.filter((s: { score: number }) => s.score >= 0.5));
    expect(strong.length).toBeLessThan(signals.length);
    const builtin = (await call(g.url, "GET", "/v1/skills?builtin=true", { key })).body.data;
    expect(builtin.length).toBeGreaterThan(0);
    expect(builtin.every((s: { builtin: boolean }) => s.builtin)).toBe(true);
    const run = example("Approval").run_id;
    const ofRun = (await call(g.url, "GET", `/v1/approvals?run_id=${run}`, { key })).body.data;
    expect(ofRun.map((a: { run_id: string }) => a.run_id)).toEqual([run]);
  });

  it("a cursor the API did not give answers 400; scenario=empty an empty last page", async () => {
    const bad = await call(g.url, "GET", "/v1/boards?cursor=not-a-cursor", { key });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/next_cursor/);
    for (const r of [await call(g.url, "GET", "/v1/boards?__scenario=empty", { key }), await call(g.url, "GET", "/v1/boards", { key, headers: { Prefer: "scenario=empty" } })]) {
      expect(r.body).toEqual({ data: [], next_cursor: null, has_more: false });
    }
  });
});

describe("the store is a MockState", () => {
  it("snapshot and restore carry the workspaces over to another gateway; reset goes back to the seed", async () => {
    const made = await call(g.url, "POST", "/v1/boards", { key: "pk_test_demo_free", body: { name: "Kept" } });
    const other = await startStateful();
    try {
      const copy = JSON.parse(JSON.stringify(g.gateway.store.snapshot()));
      const target = other.gateway.store;
      target.restore(copy);
      expect((await call(other.url, "GET", `/v1/boards/${made.body.id}`, { key: "pk_test_demo_free" })).body).toEqual(made.body);
      target.reset();
      expect((await call(other.url, "GET", `/v1/boards/${made.body.id}`, { key: "pk_test_demo_free" })).status).toBe(404);
      expect((await call(other.url, "GET", `/v1/analyses/${ANALYSIS_ID}`, { key: "pk_test_demo_free" })).status).toBe(200);
      expect(() => target.restore({ version: 2 })).toThrow(/not a snapshot of the store/);
      expect(() => target.restore({ version: 1, workspaces: { ws_X: { seq: 1, records: [{ coll: "Nope", value: {} }] } } })).toThrow(/records\[0\]: "Nope" is not a collection/);
    } finally {
      await other.close();
    }
  });
});

describe("the seeded world", () => {
  it("every id a seeded record shows leads to a record: GET of it answers 200 (decision S21)", async () => {
    // Every top-level collection the contract lists, read whole over HTTP in a fresh workspace, as a frontend would.
    const fresh = await startStateful();
    try {
      const key = "pk_test_demo_business";
      const colls = [...fresh.gateway.store.model.collections.values()].filter((c) => !c.parent && c.itemPath && c.prefix && c.keyParam);
      const byPrefix = new Map(colls.map((c) => [c.prefix!, c]));
      const shown: Array<[from: string, id: string]> = [];
      const visit = (v: unknown, from: string): void => {
        if (typeof v === "string") {
          const m = /^([a-z]+_)[0-9A-Za-z]{8,40}$/.exec(v);
          if (m && byPrefix.has(m[1]!) && m[1] !== "ws_") shown.push([from, v]);
        } else if (Array.isArray(v)) v.forEach((x) => visit(x, from));
        else if (v && typeof v === "object") Object.values(v).forEach((x) => visit(x, from));
      };
      for (const c of colls) {
        const list = await call(fresh.url, "GET", `${c.collectionPath}?limit=100`, { key });
        if (list.status !== 200) continue;
        for (const item of list.body.data) visit(item, `${c.schema} ${item[c.key]}`);
      }
      expect(shown.length).toBeGreaterThan(40);
      const missing: string[] = [];
      for (const [from, id] of shown) {
        const c = byPrefix.get(/^[a-z]+_/.exec(id)![0])!;
        const r = await call(fresh.url, "GET", c.itemPath!.replace(`{${c.keyParam}}`, id), { key });
        if (r.status !== 200) missing.push(`${from} → ${id}: ${r.status}`);
      }
      expect(missing).toEqual([]);
      // A copy made for a named id points back at the record naming it: the approval a run names is that run's.
      const run = (await call(fresh.url, "GET", "/v1/runs?limit=100", { key })).body.data.find((r: { approval_id: string | null }) => r.approval_id);
      expect((await call(fresh.url, "GET", `/v1/approvals/${run.approval_id}`, { key })).body.run_id).toBe(run.id);
    } finally {
      await fresh.close();
    }
  });
});
