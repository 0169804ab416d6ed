// Boundary, unicode and control-byte inputs (probes/inputs.ts): each planted failure is found, and fast-check's
// shrinking leaves the one changed value that fails — the report's request and curl line are that minimal one.
import { afterEach, describe, expect, it } from "vitest";
import { startDefectiveServer, type Ctx, type DefectiveServer } from "../fixtures/defective-server.js";
import { BUSINESS_KEY, listed, useMock } from "../helpers.js";
import { contract } from "../../helpers/mock.js";
import { unicodeOfLength } from "../../../src/verify/requests/boundaries.js";

const mock = useMock();
let server: DefectiveServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const nameSchema = contract.deref(contract.doc.components.schemas.SpeakerCreate).properties.name;
const example = contract.deref(contract.doc.paths["/v1/speakers"].post.requestBody.content["application/json"].examples.default).value;

/** The speaker's name of a createSpeaker, or null. */
function nameOf(c: Ctx): string | null {
  try {
    const name = (JSON.parse(c.req.body.toString("utf8")) as { name?: unknown }).name;
    return typeof name === "string" ? name : null;
  } catch {
    return null;
  }
}

/** The answer made the contract's 500 (its error body; the answer's own headers kept). */
const fail = (c: Ctx) => void (c.res = { status: 500, headers: { ...c.res.headers, "content-type": "application/json" }, body: Buffer.from(JSON.stringify({ detail: "Internal Server Error" })) });

/** Planted defects of a backend, each alone (the test backend's `plant` hook). */
const PLANTS = {
  // A name of exactly maxLength overflows a column sized one short.
  "max-length-500": (c: Ctx) => void (c.op === "createSpeaker" && [...(nameOf(c) ?? "")].length === nameSchema.maxLength && fail(c)),
  // A name outside ASCII fails an encoder that assumed Latin-1.
  "unicode-500": (c: Ctx) => void (c.op === "createSpeaker" && /[^\x00-\x7f]/.test(nameOf(c) ?? "") && fail(c)),
  // A lenient parser keeps a control byte in an Idempotency-Key, and the key's store fails on it.
  "control-byte-500": (c: Ctx) => void (c.op === "createSpeaker" && /[\x01-\x08\x0b-\x1f\x7f]/.test(c.req.headers["idempotency-key"] ?? "") && fail(c)),
};

async function run(defect: keyof typeof PLANTS) {
  server = await startDefectiveServer({ upstream: mock.g.url, defect: null, key: BUSINESS_KEY, plant: PLANTS[defect], lenient: true });
  const report = await mock.run(server.url, { operations: "createSpeaker", allowWrites: true, negativeBudget: 0 });
  const found = report.violations.filter((v) => v.rule === "not-a-server-error");
  expect(found, listed(report)).toHaveLength(1);
  return { report, v: found[0]! };
}

describe("boundary and unicode inputs, shrunk to a minimal request", () => {
  it("a 500 on a name of exactly maxLength: the minimal request changes the name alone, to maxLength characters", async () => {
    const { report, v } = await run("max-length-500");
    expect(v.cases).toEqual(["inputs body.name max-length"]);
    const sent = JSON.parse(v.reproduction!.request.body!);
    expect(sent.name).toBe("x".repeat(nameSchema.maxLength));
    // Every other field is the example's own: the shrink took back every other change.
    for (const [k, value] of Object.entries(example)) if (k !== "name") expect(sent[k], k).toEqual(value);
    expect(v.reproduction!.curl).toContain(`"name":"${"x".repeat(nameSchema.maxLength)}"`);
    const shrunk = report.notices.map((n) => /createSpeaker: a request failing not-a-server-error was shrunk from (\d+) changed value\(s\) to 1 \(body\.name max-length\)/.exec(n)).find(Boolean);
    // The failing request fast-check met first changed several fields at once (every one at its upper bound).
    expect(Number(shrunk?.[1]), report.notices.join("\n")).toBeGreaterThan(1);
  });

  it("a 500 on a unicode name: the minimal request changes the name alone, to astral, combining, RTL and NUL characters", async () => {
    const { v } = await run("unicode-500");
    expect(v.cases).toEqual(["inputs body.name unicode"]);
    const sent = JSON.parse(v.reproduction!.request.body!);
    expect(sent.name).toBe(unicodeOfLength([...sent.name].length));
    expect(sent.name).toMatch(/😀/u);
    expect(sent.name).toContain("\u0000");
    expect(sent.external_id).toEqual(example.external_id);
  });

  it("a 500 on a control byte in a header value: the minimal request carries it in that header alone, and its line sends the same bytes", async () => {
    const { report, v } = await run("control-byte-500");
    expect(v.cases).toEqual(["inputs header.idempotency-key control-byte"]);
    expect(v.reproduction!.request.headers["idempotency-key"]).toMatch(/^verify\x01\d+$/);
    expect(v.reproduction!.request.headers["x-request-id"]).toMatch(/^verify[- ]\d+$/);
    // curl cannot send a control byte in a header: the line is printf into nc, the key as $API_KEY.
    expect(v.reproduction!.curl).toMatch(/^printf '.*idempotency-key: verify\\001\d+.*' \| nc 127\.0\.0\.1 \d+$/);
    expect(v.reproduction!.curl).toContain(`'"$API_KEY"'`);
    expect(JSON.stringify(report)).not.toContain(BUSINESS_KEY);
  });

  it("the test backend with no plant, parsing control bytes leniently, shows nothing", async () => {
    server = await startDefectiveServer({ upstream: mock.g.url, defect: null, key: BUSINESS_KEY, lenient: true });
    const report = await mock.run(server.url, { operations: "createSpeaker", allowWrites: true });
    expect(report.violations, listed(report)).toEqual([]);
  });

  it("the mock takes or refuses every one of them as the contract says: no violation, and the rule ran", async () => {
    const lines: string[] = [];
    const report = await mock.run(mock.g.url, { operations: "createSpeaker,listSpeakers,getSpeaker,createWebhook,listAnalyses", allowWrites: true, onExchange: (l) => void lines.push(l) });
    expect(report.violations, listed(report)).toEqual([]);
    const sent = lines.filter((l) => / \(inputs /.test(l));
    for (const kind of ["body.name max-length", "body.name unicode", "query.limit maximum", "header.idempotency-key control-byte", "header.x-request-id control-byte"]) expect(sent.some((l) => l.includes(kind)), kind).toBe(true);
    const inputs = report.operations.flatMap((o) => o.skipped).filter((s) => s.case === "inputs");
    expect(inputs).toEqual([]);
    expect(report.checks.find((c) => c.rule === "not-a-server-error")!.run).toBeGreaterThan(report.requests - 5);
    expect(report.notices.filter((n) => /shrunk|input-budget/.test(n))).toEqual([]);
  });
});
