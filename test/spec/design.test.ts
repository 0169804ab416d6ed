// The contract's own design rules, where the specification says "not shown" (docs/decisions/contract.md).
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createAjv } from "../../scripts/lib/contract.js";
import { deref, doc, inlineRefs, operations, parametersOf } from "../helpers/contract.js";

const schemas = doc.components.schemas;
const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

function* walkSchemas(node: unknown, where: string): Generator<[string, Record<string, unknown>]> {
  if (!node || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const [i, n] of node.entries()) yield* walkSchemas(n, `${where}/${i}`);
    return;
  }
  const o = node as Record<string, unknown>;
  if (o.properties && typeof o.properties === "object") yield [where, o];
  for (const [k, v] of Object.entries(o)) if (k !== "examples" && k !== "example") yield* walkSchemas(v, `${where}/${k}`);
}

describe("design: naming", () => {
  it("every schema property is snake_case", () => {
    let n = 0;
    for (const [where, s] of walkSchemas(doc.components, "#/components")) {
      for (const name of Object.keys(s.properties as object)) {
        expect(name, where).toMatch(SNAKE);
        n++;
      }
    }
    expect(n).toBeGreaterThan(500);
  });
  it("every query parameter is snake_case (token included)", () => {
    for (const o of operations()) for (const p of parametersOf(o)) if (p.in === "query") expect(p.name, o.op.operationId).toMatch(SNAKE);
  });
  it("operationIds are camelCase and every operation has exactly one declared tag", () => {
    const tags = doc.tags.map((t: { name: string }) => t.name);
    for (const { op } of operations()) {
      expect(op.operationId).toMatch(/^[a-z]+[A-Z][A-Za-z0-9]*$/);
      expect(op.tags).toHaveLength(1);
      expect(tags).toContain(op.tags[0]);
    }
  });
});

describe("design: cursor pagination on every list", () => {
  const lists = operations().filter((o) => {
    const ok = deref(o.op.responses["200"]);
    const ref = ok?.content?.["application/json"]?.schema?.$ref ?? "";
    return o.method === "get" && ref.endsWith("List");
  });
  it("there are lists under many prefixes", () => expect(lists.length).toBeGreaterThanOrEqual(20));
  for (const o of lists) {
    it(`${o.op.operationId} takes cursor and limit and returns {data, next_cursor, has_more}`, () => {
      const names = parametersOf(o).map((p) => p.name);
      expect(names).toEqual(expect.arrayContaining(["cursor", "limit"]));
      const env = deref(deref(o.op.responses["200"]).content["application/json"].schema);
      expect(Object.keys(env.properties).sort()).toEqual(["data", "has_more", "next_cursor"]);
      expect(env.required.sort()).toEqual(["data", "has_more", "next_cursor"]);
      expect(env.properties.data.type).toBe("array");
      expect(env.properties.next_cursor.type).toEqual(["string", "null"]);
      expect(env.allOf).toBeUndefined();
    });
  }
  it("every GET of a collection (no trailing id) that returns an array is a paginated list", () => {
    for (const o of operations()) {
      if (o.method !== "get") continue;
      const schema = deref(deref(o.op.responses["200"])?.content?.["application/json"]?.schema);
      if (schema?.properties?.data?.type === "array") expect(lists.map((l) => l.op.operationId)).toContain(o.op.operationId);
    }
  });
});

describe("design: states, transcripts, signals", () => {
  it("analyses go queued → processing → completed | failed, and can be canceled", () => {
    expect(schemas.AnalysisStatus.enum).toEqual(["queued", "processing", "completed", "failed", "canceled"]);
    expect(deref(schemas.Analysis.properties.status).enum).toBe(schemas.AnalysisStatus.enum);
  });
  it("runs go queued → running (→ awaiting_approval) → succeeded | failed, and can be canceled", () => {
    expect(schemas.RunStatus.enum).toEqual(["queued", "running", "awaiting_approval", "succeeded", "failed", "canceled"]);
  });
  it("approvals go pending → approved | rejected | expired", () => {
    expect(schemas.ApprovalStatus.enum).toEqual(["pending", "approved", "rejected", "expired"]);
  });
  it("transcripts have segments with timings and speaker labels", () => {
    const seg = schemas.TranscriptSegment;
    for (const f of ["start", "end", "speaker_label", "text", "confidence"]) expect(seg.required, f).toContain(f);
    expect(deref(schemas.Transcript.properties.segments.items)).toBe(seg);
    const validate = createAjv().compile(inlineRefs(seg));
    const ok = { id: "seg_01HZX4A9B7C5D3E1F2G4H6J8K0", start: 1.2, end: 3.4, speaker_label: "SPEAKER_00", speaker_id: null, text: "Hello.", confidence: 0.93, words: [] };
    expect(validate(ok), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...ok, confidence: 1.5 })).toBe(false);
  });
  it("signals carry a score from 0 to 1", () => {
    expect(schemas.Signal.properties.score).toMatchObject({ type: "number", minimum: 0, maximum: 1 });
    expect(schemas.Signal.required).toContain("score");
  });
  it("the SSE stream's events are a union of schemas, each with a const event name", () => {
    const union = schemas.AnalysisStreamEvent;
    const names = union.oneOf.map((v: unknown) => deref(v).properties.event.const);
    expect(names).toEqual(expect.arrayContaining(["status", "transcript.segment", "signal", "alert", "completed", "error"]));
    expect(union.discriminator.propertyName).toBe("event");
    expect(new Set(names).size).toBe(names.length);
  });
});

describe("design: webhooks", () => {
  const events = Object.keys(doc.webhooks);
  it("outgoing events are described as top-level webhooks", () => {
    expect(events).toEqual(expect.arrayContaining(["analysis.completed", "analysis.failed", "run.finished", "approval.requested"]));
  });
  it("each delivery is signed: X-Webhook-Timestamp and X-Webhook-Signature (HMAC-SHA256 over timestamp and body)", () => {
    for (const e of events) {
      const op = doc.webhooks[e].post;
      const headers = op.parameters.map((p: unknown) => deref(p)).filter((p: { in: string }) => p.in === "header");
      const names = headers.map((h: { name: string }) => h.name);
      expect(names, e).toEqual(expect.arrayContaining(["X-Webhook-Timestamp", "X-Webhook-Signature"]));
      const sig = headers.find((h: { name: string }) => h.name === "X-Webhook-Signature");
      expect(sig.description).toMatch(/HMAC-SHA256/);
      expect(createAjv().compile(sig.schema)("v1=" + "ab".repeat(32))).toBe(true);
      const body = deref(op.requestBody).content["application/json"].schema;
      expect(deref(body).properties.type.const, e).toBe(e);
    }
  });
  it("the signature's example is a real test vector: the analysis.completed example, signed at the example timestamp with the example secret", () => {
    const op = doc.webhooks["analysis.completed"].post;
    const param = (name: string) => op.parameters.map((p: unknown) => deref(p)).find((p: { name: string }) => p.name === name);
    const timestamp = param("X-Webhook-Timestamp").schema.examples[0];
    const documented = param("X-Webhook-Signature").schema.examples[0];
    const secret = deref(doc.components.examples.WebhookWithSecret).value.secret;
    const body = JSON.stringify(deref(deref(op.requestBody).content["application/json"].examples.default).value);
    expect(documented).toBe("v1=" + createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex"));
    expect(param("X-Webhook-Signature").description).toContain(timestamp);
    expect(param("X-Webhook-Signature").description).toContain(secret);
  });
  it("the webhook event union covers every event type", () => {
    const types = schemas.WebhookEvent.oneOf.map((v: unknown) => deref(v).properties.type.const).sort();
    expect(types).toEqual([...events].sort());
    expect(schemas.WebhookEventType.enum.sort()).toEqual([...events].sort());
  });
});
