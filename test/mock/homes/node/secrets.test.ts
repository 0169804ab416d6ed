// Credentials never leak: a run against the gateway with many distinct secrets, valid and invalid (API keys,
// bearer JWTs, the JWT signing secret, webhook secrets), put everywhere a client might put them (headers, the
// token query parameter where it is and is not allowed, other query parameters, paths, malformed and valid JSON
// bodies, WebSocket URLs), then a scan of everything captured: every response (status, headers, body), every
// WebSocket message and refusal, every line of the gateway's log, every webhook delivery, and the messages of
// the errors the client and the keys-file loader raise. The one allowed appearance is the 201 that creates a
// webhook, which returns its secret once.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { createClient, unwrap, verifyWebhookSignature } from "../../../../src/client/index.js";
import { eventSourceUrl, streamAnalysisEvents } from "../../../../src/client/streaming.js";
import { webSocketUrl } from "../../../../src/client/websocket.js";
import { mintToken } from "../../../../src/mock/index.js";
import { parseKeysFile } from "../../../../src/mock/core/access/keys.js";
import { ANALYSIS_ID, policy, startGateway, startReceiver, type TestGateway } from "../../../helpers/mock.js";
import { rawRequest, type RawResponse } from "../../../helpers/robustness/http.js";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const random = (n: number) => [...randomBytes(n)].map((b) => BASE62[b % 62]).join("");

interface Secret {
  label: string;
  value: string;
  /** The part that must not appear even in pieces (every 8-character window of it is looked for). */
  secretPart: string;
}

/** Every secret of the run, and a scan of text for any of them (whole, or any 8 characters of its secret part). */
class SecretScanner {
  readonly secrets: Secret[] = [];
  private readonly windows = new Map<string, Secret>();

  add(label: string, value: string, secretPart = value): string {
    const s = { label, value, secretPart };
    this.secrets.push(s);
    for (let i = 0; i + 8 <= secretPart.length; i++) this.windows.set(secretPart.slice(i, i + 8), s);
    return value;
  }

  /** Findings in `text`, as "<secret label> in <where>"; `allowed` may excuse one secret in one place. */
  scan(where: string, text: string, allowed?: (s: Secret) => boolean): string[] {
    const found = new Map<Secret, string>();
    for (let i = 0; i + 8 <= text.length; i++) {
      const s = this.windows.get(text.slice(i, i + 8));
      if (s && !found.has(s) && !allowed?.(s)) {
        const whole = text.includes(s.value) ? "" : " (in part)";
        found.set(s, `${s.label}${whole} in ${where}: …${text.slice(Math.max(0, i - 40), i + 30).replace(/\s+/g, " ")}…`);
      }
    }
    return [...found.values()];
  }
}

const scanner = new SecretScanner();
const jwtSecret = scanner.add("JWT signing secret", `jwt-signing-${random(32)}`);
const otherJwtSecret = scanner.add("forger's JWT secret", `forged-${random(32)}`);
const plans = Object.keys(policy.plans);

const validKeys = Array.from({ length: 16 }, (_, i) => {
  const suffix = random(24);
  // The first ones carry the requests of the others (ids, paths, bodies): on the largest plan.
  const plan = i < 4 ? plans[plans.length - 1]! : plans[i % plans.length]!;
  return { key: scanner.add(`valid key ${i}`, `pk_${i % 2 ? "live" : "test"}_${suffix}`, suffix), workspace_id: `ws_Secret${String(i).padStart(4, "0")}`, plan };
});
const frozenSuffix = random(24);
const frozenKey = { key: scanner.add("frozen key", `pk_test_${frozenSuffix}`, frozenSuffix), workspace_id: "ws_SecretFrozen", plan: plans[0]!, frozen: true };
const limitedSuffix = random(24);
const limitedKey = { key: scanner.add("limited key", `pk_test_${limitedSuffix}`, limitedSuffix), workspace_id: "ws_SecretLimited", plan: plans[0]!, rate_limit_rpm: 2 };
const invalidKeys = Array.from({ length: 20 }, (_, i) => {
  const suffix = random(24);
  const prefix = ["pk_test_", "pk_live_", "sk_live_", "pk_prod_", "", "Bearer "][i % 6]!;
  return scanner.add(`invalid key ${i}`, prefix + suffix, suffix);
});

let g: TestGateway;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const jwts: string[] = [];
/** What the gateway said, each with where it came from. */
const captured: Array<{ where: string; text: string }> = [];
/** Webhook secrets returned by the 201 of POST /v1/webhooks, and the responses they may appear in. */
const webhookSecrets = new Map<string, RawResponse>();

const show = (r: RawResponse) => `${r.status} ${r.headers.map(([k, v]) => `${k}: ${v}`).join("\n")}\n\n${r.body.toString("utf8")}`;

async function send(where: string, method: string, path: string, headers: Array<[string, string]> = [], body?: string): Promise<RawResponse> {
  const res = await rawRequest(new URL(g.url), { method, path, headers: body === undefined ? headers : [...headers, ["Content-Type", "application/json"]], body: body === undefined ? null : Buffer.from(body) });
  captured.push({ where: `${where}: ${method} ${path.slice(0, 60)}`, text: show(res) });
  return res;
}

/** Opens a WebSocket, keeps what the server says (upgrade refusal or first messages), and closes. */
function wsCapture(where: string, url: string): Promise<void> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    const texts: string[] = [];
    const done = () => {
      captured.push({ where, text: texts.join("\n") });
      resolve();
    };
    ws.on("upgrade", (res) => texts.push(JSON.stringify(res.headers)));
    ws.on("unexpected-response", (_req, res) => {
      texts.push(`${res.statusCode} ${JSON.stringify(res.headers)}`);
      res.on("data", (c: Buffer) => texts.push(c.toString()));
      res.on("end", done);
    });
    ws.on("message", (m) => {
      texts.push(m.toString());
      if (texts.length > 3) ws.close();
    });
    ws.on("error", (e) => texts.push(e.message));
    ws.on("close", (code, reason) => {
      texts.push(`${code} ${reason}`);
      done();
    });
  });
}

beforeAll(async () => {
  g = await startGateway({ extraKeys: [...validKeys, frozenKey, limitedKey], jwtSecret });
  receiver = await startReceiver();
  await g.gateway.ready;
  const now = g.clock.now();
  for (let i = 0; i < 4; i++) {
    const ws = `ws_SecretJwt${i}000`;
    const valid = await mintToken({ secret: jwtSecret, workspaceId: ws, plan: "pro", expiresInSeconds: 86_400, now });
    const expired = await mintToken({ secret: jwtSecret, workspaceId: ws, plan: "pro", expiresInSeconds: -600, now });
    const forged = await mintToken({ secret: otherJwtSecret, workspaceId: ws, plan: "pro", expiresInSeconds: 86_400, now });
    const tampered = valid.slice(0, -3) + (valid.endsWith("AAA") ? "BBB" : "AAA");
    for (const [kind, t] of [["valid", valid], ["expired", expired], ["forged", forged], ["tampered", tampered]] as const) {
      jwts.push(scanner.add(`${kind} JWT ${i}`, t, t.split(".")[2]!));
    }
  }
});
afterAll(async () => {
  await g.close();
  await receiver.close();
});

describe("no secret in any response, log line or error message", () => {
  it("over HTTP: credentials in headers, query parameters, paths and bodies", async () => {
    const keys = [...validKeys.map((k) => k.key), frozenKey.key, limitedKey.key, ...invalidKeys];
    for (const k of keys) {
      g.clock.advance(60_000); // a fresh minute per secret: the answers are not all 429s
      await send("X-API-Key", "GET", "/v1/analyses", [["X-API-Key", k]]);
      await send("Bearer key", "GET", "/v1/analyses", [["Authorization", `Bearer ${k}`]]);
      await send("token on SSE", "GET", `/v1/analysis/${ANALYSIS_ID}/stream?token=${encodeURIComponent(k)}`);
      await send("token elsewhere", "GET", `/v1/analyses?token=${encodeURIComponent(k)}&api_key=${encodeURIComponent(k)}&secret=${encodeURIComponent(k)}`);
      // The request log writes paths; it can take out what looks like one of this API's keys, not any string.
      if (/^pk_(live|test)_/.test(k)) {
        await send("key as id", "GET", `/v1/analyses/${encodeURIComponent(k)}`, [["X-API-Key", validKeys[0]!.key]]);
        await send("key as path", "GET", `/v1/${encodeURIComponent(k)}`, [["X-API-Key", validKeys[0]!.key]]);
        await send("key as path, outside the API", "GET", `/${encodeURIComponent(k)}/x`);
      }
      const suffix = k.slice(k.lastIndexOf("_") + 1).replace(/^Bearer /, "");
      // Bodies the gateway refuses, whose error must not quote them. (A valid body is stored and read back as sent:
      // a name is the client's data, whatever it looks like.)
      for (const body of [k, suffix, `{"api_key": ${k}}`, `{"api_key": "${k}"`, `{"name": "x", ${suffix}}`, JSON.stringify({ name: k, external_id: k, metadata: k })]) {
        await send("key in a body", "POST", "/v1/speakers", [["X-API-Key", validKeys[1]!.key]], body);
      }
    }
    for (const t of jwts) {
      g.clock.advance(60_000);
      await send("Bearer JWT", "GET", "/v1/analyses", [["Authorization", `Bearer ${t}`]]);
      await send("JWT as X-API-Key", "GET", "/v1/analyses", [["X-API-Key", t]]);
      await send("JWT on SSE", "GET", `/v1/analysis/${ANALYSIS_ID}/stream?token=${t}`);
      await send("JWT elsewhere", "GET", `/v1/analyses?token=${t}`);
      await send("JWT as path", "GET", `/v1/${t}`, [["Authorization", `Bearer ${jwts[0]}`]]);
      await send("JWT in a body", "POST", "/v1/speakers", [["Authorization", `Bearer ${jwts[0]}`]], `{"token": ${t}}`);
    }
    for (let i = 0; i < 5; i++) await send("over the limit", "GET", "/v1/analyses", [["X-API-Key", limitedKey.key]]); // 429s
    expect(captured.some((c) => c.text.startsWith("429"))).toBe(true);
    expect(captured.some((c) => c.text.startsWith("403"))).toBe(true);
  });

  it("over WebSockets: token in the URL, accepted and refused", async () => {
    const base = g.url.replace("http", "ws");
    for (const t of [...validKeys.slice(0, 3).map((k) => k.key), frozenKey.key, ...invalidKeys.slice(0, 3), ...jwts.slice(0, 4)]) {
      await wsCapture("ws /v1/stream", `${base}/v1/stream?token=${encodeURIComponent(t)}`);
      await wsCapture("ws /ws/analyses", `${base}/ws/analyses/${ANALYSIS_ID}?token=${encodeURIComponent(t)}`);
    }
  });

  it("webhook secrets: returned once by the 201, then never again (reads, deliveries, logs)", async () => {
    g.clock.advance(60_000);
    for (const k of validKeys.slice(0, 4)) {
      const created = await send("create webhook", "POST", "/v1/webhooks", [["X-API-Key", k.key]], JSON.stringify({ url: receiver.url, event_types: ["analysis.completed"] }));
      expect(created.status).toBe(201);
      const hook = JSON.parse(created.body.toString());
      scanner.add(`webhook secret of ${hook.id}`, hook.secret, hook.secret.slice("whsec_".length));
      webhookSecrets.set(hook.secret, created);
      await send("read webhook", "GET", `/v1/webhooks/${hook.id}`, [["X-API-Key", k.key]]);
      await send("test webhook", "POST", `/v1/webhooks/${hook.id}/test`, [["X-API-Key", k.key]], JSON.stringify({ event_type: "report.ready" }));
      await send("webhook secret as a key", "GET", "/v1/analyses", [["X-API-Key", hook.secret]]);
      await send("webhook secret in a body", "POST", "/v1/speakers", [["X-API-Key", k.key]], `{"secret": ${hook.secret}}`);
    }
    await receiver.received(8); // 4 sample deliveries + 4 test deliveries
    for (const d of receiver.deliveries) captured.push({ where: "webhook delivery", text: `${JSON.stringify(d.headers)}\n${d.raw.toString()}` });
  });

  it("in the messages of the client's and the keys file's errors", async () => {
    const errors: unknown[] = [];
    const grab = async (p: Promise<unknown> | (() => unknown)) => {
      try {
        await (typeof p === "function" ? p() : p);
      } catch (e) {
        errors.push(e);
      }
    };
    for (const k of [...invalidKeys.slice(0, 4), frozenKey.key]) {
      const client = createClient({ baseUrl: g.url, apiKey: k.replace(/^Bearer /, ""), retry: false });
      await grab(unwrap(client.GET("/v1/analyses")));
      await grab(async () => {
        for await (const e of streamAnalysisEvents(client, "not-an-id", { reconnect: false })) void e;
      });
      await grab(() => createClient({ baseUrl: g.url, apiKey: `${k} with spaces` }));
      await grab(webSocketUrl(createClient({ baseUrl: "http://api.example.test", apiKey: k }), "/v1/stream"));
    }
    for (const t of jwts.slice(4, 8)) {
      await grab(unwrap(createClient({ baseUrl: g.url, token: t, retry: false }).GET("/v1/analyses")));
      await grab(eventSourceUrl(createClient({ baseUrl: "http://api.example.test", token: () => t }), ANALYSIS_ID));
    }
    for (const secret of webhookSecrets.keys()) {
      await grab(verifyWebhookSignature({ payload: "{}", secret: [secret, otherJwtSecret], timestamp: String(Math.floor(Date.now() / 1000)), signature: "v1=" + "0".repeat(64) }));
    }
    const k = validKeys[0]!;
    await grab(() => parseKeysFile(`{"keys": [{"key": ${k.key}}]}`, "keys.json", policy));
    await grab(() => parseKeysFile(`{"keys": [${JSON.stringify(k)}, ${JSON.stringify(k)}]}`, "keys.json", policy));
    await grab(() => parseKeysFile(`{"keys": [{"key": "${k.key}", "workspace_id": "nope", "plan": "free"}]}`, "keys.json", policy));
    expect(errors.length).toBeGreaterThan(25);
    for (const e of errors) {
      const err = e as Error;
      captured.push({ where: `${err.name} raised`, text: `${String(err)}\n${err.stack}\n${JSON.stringify(err)}` });
    }
  });

  it("finds none of the secrets in anything captured, nor in the gateway's log", () => {
    const findings: string[] = [];
    for (const c of captured) {
      const created = [...webhookSecrets.entries()].find(([, r]) => c.text === show(r))?.[0];
      findings.push(...scanner.scan(c.where, c.text, (s) => s.value === created));
    }
    g.logs.forEach((line, i) => findings.push(...scanner.scan(`log line ${i}: ${line.slice(0, 80)}`, line)));
    expect(scanner.secrets.length).toBeGreaterThanOrEqual(60);
    expect(webhookSecrets.size).toBe(4);
    expect(captured.length).toBeGreaterThan(600);
    expect(g.logs.length).toBeGreaterThan(500);
    expect(findings).toEqual([]);
  });
});
