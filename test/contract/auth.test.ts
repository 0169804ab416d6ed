// Section 5 (authentication) of the interface specification.
import { describe, expect, it } from "vitest";
import { codes, section, table } from "../helpers/spec-doc.js";
import { createAjv } from "../../scripts/lib/contract.js";
import { deref, doc, inlineRefs, operation, operations, PUBLIC_PATHS, securityOf } from "../helpers/contract.js";

const schemes = doc.components.securitySchemes as Record<string, { type: string; in?: string; name?: string; scheme?: string; bearerFormat?: string; description: string }>;
const isStreamingOp = (op: { responses: Record<string, unknown> }) =>
  Object.entries(op.responses).some(([c, r]) => c === "101" || Object.keys((deref(r) as { content?: object }).content ?? {}).includes("text/event-stream"));

describe("section 5: the three ways to authenticate", () => {
  const rows = table("5. Authentication");
  it("the table has the three methods", () => expect(rows.map((r) => r["Method"])).toEqual(["API key", "Bearer token", "Query parameter"]));

  it("API key: header X-API-Key", () => {
    const row = rows.find((r) => r["Method"] === "API key")!;
    const [header] = codes(row["Where sent"]!).length ? codes(row["Where sent"]!) : [];
    expect(header).toBe("X-API-Key");
    expect(Object.values(schemes)).toContainEqual(expect.objectContaining({ type: "apiKey", in: "header", name: header }));
  });

  it("Bearer token: Authorization: Bearer <JWT>", () => {
    const row = rows.find((r) => r["Method"] === "Bearer token")!;
    expect(row["Form"]).toContain("Bearer <JWT>");
    expect(Object.values(schemes)).toContainEqual(expect.objectContaining({ type: "http", scheme: "bearer", bearerFormat: "JWT" }));
  });

  it("Query parameter: token, on WebSocket and SSE operations only", () => {
    const row = rows.find((r) => r["Method"] === "Query parameter")!;
    const [name] = codes(row["Where sent"]!);
    expect(name).toBe("token");
    const [schemeName] = Object.entries(schemes).find(([, s]) => s.type === "apiKey" && s.in === "query" && s.name === name)!;
    const users = operations().filter((o) => securityOf(o.op).some((req) => schemeName in req));
    expect(users.length).toBeGreaterThan(0);
    for (const o of users) expect(isStreamingOp(o.op), `${o.method} ${o.path} takes ?token= but is not WebSocket or SSE`).toBe(true);
    // ...and every WebSocket and SSE operation accepts it.
    for (const o of operations().filter((x) => isStreamingOp(x.op))) {
      expect(securityOf(o.op).some((req) => schemeName in req), `${o.path} must accept ?token=`).toBe(true);
    }
    for (const p of ["/v1/stream", "/v1/analysis/{id}/stream"]) expect(securityOf(operation(p, "get").op)).toContainEqual({ [schemeName]: [] });
  });

  it("rule 1: every operation requires credentials except the gateway's health and the published description", () => {
    for (const o of operations()) {
      const reqs = securityOf(o.op);
      const open = reqs.length === 0 || reqs.some((r) => Object.keys(r).length === 0);
      expect(open, `${o.method} ${o.path}`).toBe(PUBLIC_PATHS.includes(o.path));
    }
    for (const p of ["/v1/health", "/aria/conversations", "/ws/analyses/{analysis_id}"]) expect(securityOf(operation(p, "get").op).length).toBeGreaterThan(0);
  });

  it("rule 2: pk_live_ marks a production key, pk_test_ a development key", () => {
    const text = section("5. Authentication");
    expect(text).toContain("`pk_live_` is a production key");
    const key = Object.values(schemes).find((s) => s.name === "X-API-Key")!;
    expect(key.description).toMatch(/`pk_live_`[^.]*production/);
    expect(key.description).toMatch(/`pk_test_`[^.]*development/);
    const secret = deref(doc.components.schemas.ApiKeyWithSecret).properties.secret;
    const validate = createAjv().compile(inlineRefs(secret));
    expect(validate("pk_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0")).toBe(true);
    expect(validate("pk_test_9f8e7d6c5b4a39281706f5e4d3c2b1a0")).toBe(true);
    expect(validate("sk_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0")).toBe(false);
  });

  it("rule 3: keys are created with POST /v1/keys and revoked; the secret is shown once", () => {
    const created = deref(operation("/v1/keys", "post").op.responses["201"]).content["application/json"].schema;
    expect(deref(created).properties).toHaveProperty("secret");
    const listed = deref(deref(operation("/v1/keys", "get").op.responses["200"]).content["application/json"].schema);
    expect(deref(listed.properties.data.items).properties).not.toHaveProperty("secret");
    expect(operation("/v1/keys/{key_id}", "delete").op).toBeDefined();
  });

  it("rules 5 and 6: every secured operation documents 401 and 403", () => {
    for (const o of operations().filter((x) => !PUBLIC_PATHS.includes(x.path))) {
      expect(o.op.responses["401"], `${o.op.operationId} 401`).toBeDefined();
      expect(o.op.responses["403"], `${o.op.operationId} 403`).toBeDefined();
    }
    const forbidden = deref(doc.components.responses.Forbidden);
    expect(Object.keys(forbidden.content["application/json"].examples)).toContain("frozen_account");
    const unauthorized = deref(doc.components.responses.Unauthorized);
    expect(Object.keys(unauthorized.content["application/json"].examples)).toEqual(expect.arrayContaining(["missing_credentials", "expired_token"]));
  });

  it("rule 7: the token query parameter is documented as a secret to send over TLS only", () => {
    const token = Object.values(schemes).find((s) => s.in === "query")!;
    expect(token.description).toMatch(/secret/i);
    expect(token.description).toMatch(/TLS/);
  });

  it("rule 9: a webhook's secret cannot be changed in place (rotate by delete and create)", () => {
    const update = deref(deref(operation("/v1/webhooks/{webhook_id}", "patch").op.requestBody).content["application/json"].schema);
    expect(update.properties).not.toHaveProperty("secret");
    expect(update.additionalProperties).toBe(false);
    const created = deref(deref(operation("/v1/webhooks", "post").op.responses["201"]).content["application/json"].schema);
    expect(created.properties).toHaveProperty("secret");
  });
});
