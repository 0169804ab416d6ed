// Model-based test of the store (fast-check `commands`): random sequences of create, read, update, delete, list,
// processing steps and decisions over boards, analyses and approvals, run against the store's own API and
// against a simple model of what the contract promises. Every answer must match the model and validate against
// the operation's documented schema.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { refName, successSchema } from "../../../../src/mock/core/store/model.js";
import { handle } from "../../../../src/mock/core/store/ops.js";
import { Store, StoreError } from "../../../../src/mock/core/store/store.js";
import { systemClock } from "../../../../src/mock/core/clock/clock.js";
import { SimulatedClock } from "../../../../src/mock/core/clock/simulated.js";
import { contract, schemaErrors, T0 } from "../../../helpers/mock.js";

const WS = "ws_ModelTest0001";
const STEP = 100;
const routes = new Map(contract.router.routes.map((r) => [r.operationId, r]));

interface Real {
  store: Store;
  clock: SimulatedClock;
}

/** Calls an operation of the store as the responder would; a StoreError becomes its status and `{detail}`. */
function op(real: Real, operationId: string, params: Record<string, string> = {}, o: { body?: unknown; query?: string; scenario?: string } = {}): { status: number; body: any } {
  const route = routes.get(operationId)!;
  try {
    const a = handle(real.store, { route, params, query: new URLSearchParams(o.query ?? ""), body: o.body, workspaceId: WS, scenario: o.scenario })!;
    const body = a.body ? JSON.parse(a.body.toString("utf8")) : null;
    const schema = refName(successSchema(contract, route));
    if (schema) expect(schemaErrors(schema, body), `${operationId}: ${JSON.stringify(body).slice(0, 200)}`).toEqual([]);
    return { status: a.status, body };
  } catch (e) {
    if (!(e instanceof StoreError)) throw e;
    expect(Object.keys(route.op.responses), `${operationId} documents ${e.status}`).toContain(String(e.status));
    return { status: e.status, body: { detail: e.message } };
  }
}

interface Model {
  /** Boards made here, oldest first, with the name each should have; deleted ones are kept as `null`. */
  boards: Array<{ id: string; name: string } | null>;
  deletedBoards: string[];
  /** The seeded boards, in list order (they are older than anything made here). */
  seededBoards: string[];
  analyses: Array<{ id: string; fail: boolean; steps: number; deleted: boolean }>;
  approvals: Array<{ id: string; status: string }>;
  /** Runs asking for approval, and the steps each has taken. */
  runs: Array<{ id: string; steps: number }>;
}

const expectedStatus = (a: Model["analyses"][number]) => (a.steps === 0 ? "queued" : a.steps === 1 ? "processing" : a.fail ? "failed" : "completed");
const live = (m: Model) => m.boards.filter((b): b is { id: string; name: string } => b !== null);
const pick = <T>(list: T[], i: number): T | undefined => (list.length ? list[i % list.length] : undefined);

class CreateBoard implements fc.Command<Model, Real> {
  constructor(readonly name: string) {}
  check = () => true;
  run(m: Model, r: Real) {
    const res = op(r, "createBoard", {}, { body: { name: this.name } });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe(this.name);
    m.boards.push({ id: res.body.id, name: this.name });
  }
  toString = () => `createBoard(${JSON.stringify(this.name)})`;
}

class RenameBoard implements fc.Command<Model, Real> {
  constructor(
    readonly i: number,
    readonly name: string,
  ) {}
  check = (m: Readonly<Model>) => live(m as Model).length > 0;
  run(m: Model, r: Real) {
    const b = pick(live(m), this.i)!;
    const res = op(r, "updateBoard", { board_id: b.id }, { body: { name: this.name } });
    expect([res.status, res.body.name]).toEqual([200, this.name]);
    b.name = this.name;
  }
  toString = () => `renameBoard(${this.i}, ${JSON.stringify(this.name)})`;
}

class DeleteBoard implements fc.Command<Model, Real> {
  constructor(readonly i: number) {}
  check = (m: Readonly<Model>) => live(m as Model).length > 0;
  run(m: Model, r: Real) {
    const b = pick(live(m), this.i)!;
    expect(op(r, "deleteBoard", { board_id: b.id }).status).toBe(204);
    m.boards[m.boards.indexOf(b)] = null;
    m.deletedBoards.push(b.id);
  }
  toString = () => `deleteBoard(${this.i})`;
}

class GetBoard implements fc.Command<Model, Real> {
  constructor(readonly i: number) {}
  check = () => true;
  run(m: Model, r: Real) {
    const b = pick(live(m), this.i);
    if (b) expect(op(r, "getBoard", { board_id: b.id }).body).toMatchObject({ id: b.id, name: b.name, workspace_id: WS });
    const gone = pick(m.deletedBoards, this.i);
    if (gone) expect(op(r, "getBoard", { board_id: gone }).status).toBe(404);
  }
  toString = () => `getBoard(${this.i})`;
}

class ListBoards implements fc.Command<Model, Real> {
  constructor(readonly limit: number) {}
  check = () => true;
  run(m: Model, r: Real) {
    const seen: Array<{ id: string; name: string }> = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: any } = op(r, "listBoards", {}, { query: `limit=${this.limit}${cursor ? `&cursor=${cursor}` : ""}` });
      expect(page.body.data.length).toBeLessThanOrEqual(this.limit);
      expect(page.body.has_more).toBe(page.body.next_cursor !== null);
      seen.push(...page.body.data.map((b: { id: string; name: string }) => ({ id: b.id, name: b.name })));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen.map((b) => b.id)).toEqual([...live(m).map((b) => b.id).reverse(), ...m.seededBoards]);
    expect(seen.slice(0, live(m).length)).toEqual([...live(m)].reverse().map((b) => ({ ...b })));
  }
  toString = () => `listBoards(limit=${this.limit})`;
}

class CreateAnalysis implements fc.Command<Model, Real> {
  constructor(readonly fail: boolean) {}
  check = () => true;
  run(m: Model, r: Real) {
    const res = op(r, "createAnalysis", {}, { body: { media_url: "https://media.example.com/m.mp3", media_type: "audio" }, ...(this.fail ? { scenario: "fail" } : {}) });
    expect([res.status, res.body.status]).toEqual([202, "queued"]);
    m.analyses.push({ id: res.body.id, fail: this.fail, steps: 0, deleted: false });
  }
  toString = () => `createAnalysis(${this.fail ? "fail" : ""})`;
}

class ReadAnalysis implements fc.Command<Model, Real> {
  constructor(readonly i: number) {}
  check = (m: Readonly<Model>) => m.analyses.length > 0;
  run(m: Model, r: Real) {
    const a = pick(m.analyses, this.i)!;
    const got = op(r, "getAnalysis", { analysis_id: a.id });
    const transcript = op(r, "getAnalysisTranscript", { analysis_id: a.id });
    if (a.deleted) return expect([got.status, transcript.status]).toEqual([404, 404]);
    expect(got.body.status).toBe(expectedStatus(a));
    expect(transcript.status).toBe(expectedStatus(a) === "completed" ? 200 : 409);
    const listed = op(r, "listAnalyses", {}, { query: `status=${expectedStatus(a)}&limit=100` }).body.data.map((x: { id: string }) => x.id);
    expect(listed).toContain(a.id);
  }
  toString = () => `readAnalysis(${this.i})`;
}

class DeleteAnalysis implements fc.Command<Model, Real> {
  constructor(readonly i: number) {}
  check = (m: Readonly<Model>) => m.analyses.some((a) => !a.deleted);
  run(m: Model, r: Real) {
    const a = pick(
      m.analyses.filter((x) => !x.deleted),
      this.i,
    )!;
    expect(op(r, "deleteAnalysis", { analysis_id: a.id }).status).toBe(204); // in every status, never 409
    a.deleted = true;
  }
  toString = () => `deleteAnalysis(${this.i})`;
}

class CreateRun implements fc.Command<Model, Real> {
  check = () => true;
  run(m: Model, r: Real) {
    const agent = op(r, "listAgents").body.data[0].id;
    const res = op(r, "createRun", {}, { body: { agent_id: agent }, scenario: "approval" });
    expect(res.body.status).toBe("queued");
    m.runs.push({ id: res.body.id, steps: 0 });
  }
  toString = () => "createRun(approval)";
}

class Step implements fc.Command<Model, Real> {
  check = () => true;
  run(m: Model, r: Real) {
    r.clock.advance(STEP);
    for (const a of m.analyses) a.steps++;
    for (const run of m.runs) {
      if (++run.steps !== 2) continue;
      const approval = op(r, "getRun", { run_id: run.id }).body.approval_id;
      expect(approval).toMatch(/^apr_/);
      m.approvals.push({ id: approval, status: "pending" });
    }
  }
  toString = () => "step";
}

class Decide implements fc.Command<Model, Real> {
  constructor(
    readonly i: number,
    readonly approve: boolean,
  ) {}
  check = (m: Readonly<Model>) => m.approvals.length > 0;
  run(m: Model, r: Real) {
    const a = pick(m.approvals, this.i)!;
    const res = op(r, this.approve ? "approveApproval" : "rejectApproval", { approval_id: a.id }, { body: {} });
    if (a.status !== "pending") return expect(res.status).toBe(409);
    expect([res.status, res.body.status]).toEqual([200, this.approve ? "approved" : "rejected"]);
    a.status = res.body.status;
    expect(op(r, "getApproval", { approval_id: a.id }).body.status).toBe(a.status);
  }
  toString = () => `${this.approve ? "approve" : "reject"}(${this.i})`;
}

const name = fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim().length > 0);
const commands = fc.commands(
  [
    name.map((n) => new CreateBoard(n)),
    fc.tuple(fc.nat(), name).map(([i, n]) => new RenameBoard(i, n)),
    fc.nat().map((i) => new DeleteBoard(i)),
    fc.nat().map((i) => new GetBoard(i)),
    fc.integer({ min: 1, max: 5 }).map((l) => new ListBoards(l)),
    fc.boolean().map((f) => new CreateAnalysis(f)),
    fc.nat().map((i) => new ReadAnalysis(i)),
    fc.nat().map((i) => new DeleteAnalysis(i)),
    // Runs, steps and decisions are listed more than once: they are drawn more often, so approvals get decided twice.
    ...[1, 2].map(() => fc.constant(new CreateRun())),
    ...[1, 2, 3].map(() => fc.constant(new Step())),
    ...[1, 2].map(() => fc.tuple(fc.nat(), fc.boolean()).map(([i, a]) => new Decide(i, a))),
  ],
  { maxCommands: 40 },
);

describe("the store against a model", () => {
  it("agrees with the model over random sequences of operations", () => {
    fc.assert(
      fc.property(commands, (cmds) => {
        const clock = new SimulatedClock(systemClock, { frozenAt: T0 });
        const store = new Store({ contract, clock, stepMs: STEP, webhooks: { emit: () => {} } });
        const real: Real = { store, clock };
        const seededBoards = op(real, "listBoards", {}, { query: "limit=100" }).body.data.map((b: { id: string }) => b.id);
        fc.modelRun(() => ({ model: { boards: [], deletedBoards: [], seededBoards, analyses: [], approvals: [], runs: [] }, real }), cmds);
      }),
      { numRuns: 100 },
    );
  });
});


