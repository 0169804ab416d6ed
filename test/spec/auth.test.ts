// Section 5 (authentication) of the interface specification.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { codes, decisionsText, section, table } from "../helpers/spec-doc.js";
import { createAjv, ROOT } from "../../scripts/lib/contract.js";
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

describe("credential precedence: X-API-Key, then Bearer, then token (decision M4), stated in the contract", () => {
  // `X-API-Key` → the header API-key scheme, `Authorization: Bearer` → the bearer scheme, `token` → the query scheme.
  const schemeOf = (credential: string): string => {
    const found = Object.entries(schemes).find(([, s]) =>
      credential.startsWith("Authorization") ? s.type === "http" && s.scheme === "bearer" : s.type === "apiKey" && s.name === credential.replace(/^\?|=$/g, ""),
    );
    if (!found) throw new Error(`no security scheme for ${credential}`);
    return found[0];
  };
  /** The backticked credentials of the sentence that starts with `label`, in their order. */
  const orderIn = (text: string, label: RegExp): string[] => {
    const m = label.exec(text);
    if (!m) throw new Error(`no ${label} in the text`);
    // To the end of the sentence, or of the table cell; line breaks inside a sentence are spaces.
    return codes(text.slice(m.index + m[0].length).replace(/\s+/g, " ").split(/\.(\s|$)|\|/)[0]!).map(schemeOf);
  };
  const RANKS = ["first", "second", "third"];
  const guide = fs.readFileSync(path.join(ROOT, "docs/contract.md"), "utf8");
  const decisions = decisionsText("edge");
  const order = orderIn(doc.info.description, /Credential precedence:/);

  it("info.description orders the three schemes", () => expect(order).toEqual(["ApiKeyAuth", "BearerAuth", "TokenQuery"]));
  it("each security scheme's description states its own rank", () => {
    for (const [name, s] of Object.entries(schemes)) expect(`${name}: ${/Precedence: (\w+)\./.exec(s.description)?.[1]}`).toBe(`${name}: ${RANKS[order.indexOf(name)]}`);
  });
  it("the author's guide (docs/contract.md) and decision M4 (docs/decisions/edge.md) state the same order", () => {
    expect(orderIn(guide, /Credential precedence:/)).toEqual(order);
    expect(orderIn(decisions, /\| M4 \| Credential precedence \| /)).toEqual(order);
  });
  it("the first credential present is the only one judged", () => {
    expect(doc.info.description).toMatch(/first one present is the only one judged/);
  });
});

/**
 * RFC 9110 section 11.6.1 challenges, `#challenge` where challenge = auth-scheme [ 1*SP #auth-param ] (no token68
 * form is used here): the comma-separated elements, split outside quoted strings, are either `scheme`,
 * `scheme param=value` (a new challenge) or `param=value` (one more parameter of the current challenge).
 */
function parseChallenges(value: string): Array<{ scheme: string; params: Record<string, string> }> {
  const T = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
  const PARAM = `(${T})\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|(${T}))`;
  const elements = value.match(/(?:[^,"]|"(?:[^"\\]|\\.)*")+/g) ?? [];
  const out: Array<{ scheme: string; params: Record<string, string> }> = [];
  for (const raw of elements.map((e) => e.trim())) {
    const m = new RegExp(`^(?:(${T})(?: +${PARAM})?|${PARAM})$`).exec(raw);
    if (!m) throw new Error(`not a challenge element: ${raw}`);
    if (m[1]) out.push({ scheme: m[1], params: m[2] ? { [m[2].toLowerCase()]: m[3] ?? m[4]! } : {} });
    else if (out.length) out.at(-1)!.params[m[5]!.toLowerCase()] = m[6] ?? m[7]!;
    else throw new Error(`a parameter before any scheme: ${value}`);
  }
  return out;
}

describe("401 and 403 say why, for programs", () => {
  const unauthorized = doc.components.responses.Unauthorized;
  const forbidden = doc.components.responses.Forbidden;
  const errorCode = deref(doc.components.schemas.Error).properties.error;
  const known: string[] = errorCode["x-extensible-enum"];
  const [part401, part403] = (errorCode.description as string).replace(/\s+/g, " ").split("A 403 has");

  it("every 401 and 403 example carries an `error` code listed for its status", () => {
    for (const [response, part] of [[unauthorized, part401], [forbidden, part403]] as const) {
      for (const [name, ex] of Object.entries<{ value: { error?: string } }>(response.content["application/json"].examples)) {
        expect(known, name).toContain(ex.value.error);
        expect(part, `${name}: ${ex.value.error}`).toContain(`\`${ex.value.error}\``);
      }
    }
  });
  it("every listed code is explained, the 401 codes before the 403 ones, and the code stays optional (additive)", () => {
    for (const c of known) expect(errorCode.description).toContain(`\`${c}\``);
    expect(known.filter((c) => part401!.includes(`\`${c}\``))).toEqual(["missing_credentials", "invalid_credentials", "token_expired", "key_expired", "key_revoked"]);
    expect(deref(doc.components.schemas.Error).required).toEqual(["detail"]);
  });

  it("a 401 carries a WWW-Authenticate challenge: Bearer (RFC 6750), then ApiKey naming the key's header", () => {
    const header = deref(unauthorized.headers["WWW-Authenticate"]);
    const values: string[] = header.schema.enum;
    expect(values).toHaveLength(2);
    const apiKeyHeader = Object.values(schemes).find((s) => s.type === "apiKey" && s.in === "header")!.name;
    for (const value of values) {
      const [bearer, apiKey, ...rest] = parseChallenges(value);
      expect(rest).toEqual([]);
      expect(bearer!.scheme).toBe("Bearer");
      expect(bearer!.params.realm).toBe("api");
      if ("error" in bearer!.params) expect(["invalid_request", "invalid_token", "insufficient_scope"]).toContain(bearer!.params.error);
      expect(apiKey).toEqual({ scheme: "ApiKey", params: { realm: "api", header: apiKeyHeader } });
      expect(header.description).toContain(`\`${value}\``);
    }
    expect(values.map((v) => parseChallenges(v)[0]!.params.error)).toEqual([undefined, "invalid_token"]);
  });
  it("the challenge parser reads what it should and refuses what it should not", () => {
    expect(parseChallenges('Basic realm="x", Bearer')).toEqual([{ scheme: "Basic", params: { realm: "x" } }, { scheme: "Bearer", params: {} }]);
    expect(() => parseChallenges('realm="x"')).toThrow();
  });
});
