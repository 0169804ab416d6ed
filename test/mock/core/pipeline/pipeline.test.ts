// The order of src/mock/core/pipeline/pipeline.ts, pinned by behaviour: for each stage that answers, a request that two
// neighbouring stages would both refuse gets the earlier stage's answer. Swapping two stages in pipeline.ts turns
// the matching case red. The cases follow the list in pipeline.ts from top to bottom.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawExchange } from "../../../helpers/robustness/http.js";
import { ANALYSIS_ID, apiKey, freshKey, getJson, policy, startGateway, wsSession, type TestGateway } from "../../../helpers/mock.js";

// A gateway of its own: the anonymous bucket (per client address) is exhausted on purpose below.
let g: TestGateway;
const key = freshKey("business");
const frozenKey = freshKey("free", { frozen: true });
const SMALL_BODY = 64;

beforeAll(async () => {
  g = await startGateway({ extraKeys: [key, frozenKey], maxBodyBytes: SMALL_BODY });
});
afterAll(() => g.close());

const withKey = (k = key.key, more: Record<string, string> = {}) => ({ headers: { ...apiKey(k), ...more } });
const jsonPost = (body: string, more: Record<string, string> = {}) => ({
  method: "POST",
  headers: { ...apiKey(key.key), "Content-Type": "application/json", ...more },
  body,
});
const detail = async (path: string, init?: RequestInit) => {
  const r = await getJson(g.url + path, init);
  return { status: r.status, detail: r.body?.detail as unknown };
};

describe("plain requests follow pipeline.ts", () => {
  it("malformed before cors: a preflight without Host answers 400", async () => {
    const r = await rawExchange(new URL(g.url), Buffer.from("OPTIONS /v1/analyses HTTP/1.1\r\nAccess-Control-Request-Method: GET\r\n\r\n"));
    expect(r?.status).toBe(400);
    expect(JSON.parse(r!.body.toString()).detail).toMatch(/needs a Host header/);
  });

  // (ownPaths answers only GET and HEAD, cors only OPTIONS: their order cannot show.)
  it("cors before apiPrefix and credentials: a preflight anywhere answers 204", async () => {
    for (const path of ["/health", "/elsewhere", "/v1/unknown"]) {
      const res = await fetch(g.url + path, { method: "OPTIONS", headers: { Origin: "http://localhost:8080", "Access-Control-Request-Method": "GET" } });
      expect([path, res.status]).toEqual([path, 204]);
    }
  });

  it("ownPaths before apiPrefix and credentials: /health answers without credentials", async () => {
    expect((await detail("/health")).status).toBe(200);
  });

  it("apiPrefix before authenticate: a path outside the API answers 404 without credentials", async () => {
    expect(await detail("/elsewhere")).toEqual({ status: 404, detail: expect.stringMatching(/The API lives under/) });
  });

  it("requireCredentials before frozen and route: an unknown operation without credentials answers 401", async () => {
    expect((await detail("/v1/unknown")).status).toBe(401);
  });

  it("frozen before route: a frozen workspace gets 403 on an unknown path too", async () => {
    expect((await detail("/v1/unknown", withKey(frozenKey.key))).status).toBe(403);
  });

  it("route before validateParams: a bad parameter on an unknown method or path answers 405 or 404", async () => {
    expect((await detail("/v1/analyses?limit=abc", { method: "PUT", ...withKey() })).status).toBe(405);
    expect((await detail("/v1/unknown?limit=abc", withKey())).status).toBe(404);
  });

  it("validateParams before prefer: a bad parameter with an undocumented Prefer answers 422", async () => {
    expect((await detail("/v1/analyses?limit=abc", withKey(key.key, { Prefer: "code=599" }))).status).toBe(422);
  });

  it("prefer before readBody and validateBody: an undocumented Prefer with a broken body, or one over the limit, answers the Prefer 400", async () => {
    for (const body of ["{", "{" + "x".repeat(SMALL_BODY)]) {
      expect(await detail("/v1/analyses", jsonPost(body, { Prefer: "code=599" }))).toEqual({ status: 400, detail: expect.stringMatching(/^Prefer code=599/) });
    }
  });

  it("readBody before validateBody: a broken body over the limit answers the limit's 400", async () => {
    expect(await detail("/v1/analyses", jsonPost("{" + "x".repeat(SMALL_BODY)))).toEqual({ status: 400, detail: expect.stringMatching(/larger than the mock accepts/) });
    expect(await detail("/v1/analyses", jsonPost("{"))).toEqual({ status: 400, detail: expect.stringMatching(/not valid JSON/) });
  });

  it("validateBody before the responders: an invalid webhook registration answers 422 and registers nothing", async () => {
    expect((await detail("/v1/webhooks", jsonPost(JSON.stringify({ url: 42 })))).status).toBe(422);
  });

  it("upgradeRequired before examples: a plain GET of a WebSocket operation answers 426, unless Prefer asks for another response", async () => {
    expect((await detail("/v1/stream", withKey())).status).toBe(426);
    expect((await detail("/v1/stream", withKey(key.key, { Prefer: "code=400" }))).status).toBe(400);
  });

  it("sse before examples: the event stream, unless Prefer asks for another response", async () => {
    const res = await fetch(`${g.url}/v1/analysis/${ANALYSIS_ID}/stream`, withKey());
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    await res.body?.cancel();
    expect((await detail(`/v1/analysis/${ANALYSIS_ID}/stream`, withKey(key.key, { Prefer: "code=404" }))).status).toBe(404);
  });

  it("webhooks before examples: a registration is real (its own id and secret), not the contract's example", async () => {
    const first = await getJson(`${g.url}/v1/webhooks`, jsonPost(JSON.stringify({ url: "http://127.0.0.1:9/hook", event_types: ["report.ready"] })));
    const second = await getJson(`${g.url}/v1/webhooks`, jsonPost(JSON.stringify({ url: "http://127.0.0.1:9/hook", event_types: ["report.ready"] })));
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.body.id).not.toBe(second.body.id);
    expect(first.body.secret).not.toBe(second.body.secret);
  });
});

describe("WebSocket upgrades follow the same admission (pipeline.ts)", () => {
  const refused = (path: string, headers: Record<string, string> = {}) =>
    wsSession(g.url.replace(/^http/, "ws") + path, { headers }).then(
      () => ({ status: 101 }),
      (e: { status: number }) => ({ status: e.status }),
    );

  it("apiPrefix, then credentials, then frozen, then route, then validateParams, then webSocketOnly", async () => {
    expect(await refused("/elsewhere")).toEqual({ status: 404 });
    expect(await refused("/v1/unknown")).toEqual({ status: 401 });
    expect(await refused("/v1/unknown", apiKey(frozenKey.key))).toEqual({ status: 403 });
    expect(await refused("/v1/analyses?limit=abc", apiKey(key.key))).toEqual({ status: 422 });
    expect(await refused("/v1/unknown?limit=abc", apiKey(key.key))).toEqual({ status: 404 });
    expect(await refused("/v1/analyses", apiKey(key.key))).toEqual({ status: 400 });
  });
});

// Last: it spends the anonymous bucket and the frozen key's.
describe("rateLimit before requireCredentials and frozen", () => {
  async function untilRefused(init?: RequestInit) {
    // The first answer says how many more the bucket takes; one more than that is refused.
    const first = await getJson(`${g.url}/v1/analyses`, init);
    const statuses = [first.status];
    for (let i = 0; i <= Number(first.headers.get(policy.headers.remaining)); i++) statuses.push((await getJson(`${g.url}/v1/analyses`, init)).status);
    return statuses;
  }

  it("over the limit, a request without credentials and one with a frozen key both answer 429", async () => {
    const anonymous = await untilRefused();
    expect(anonymous).toEqual([...Array<number>(anonymous.length - 1).fill(401), 429]);
    const frozen = await untilRefused(withKey(frozenKey.key));
    expect(frozen).toEqual([...Array<number>(frozen.length - 1).fill(403), 429]);
  });
});
