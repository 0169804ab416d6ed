// One clock (issue 43, decision HL5): the gateway's simulated clock is the only time its parts read and the only
// timers they set. Paused, nothing moves; one `advance` through `/__mock/clock` moves them all alike: the rate
// limiter's minute window, an analysis's lifecycle, a token's expiry and a webhook's scheduled delivery.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_JWT_SECRET, mintToken } from "../../../../src/mock/core/access/auth.js";
import { call, freshKey, getJson, startGateway, startReceiver, type TestGateway } from "../../../helpers/mock.js";

const CREATE = { media_url: "https://media.example.com/calls/q4-review.mp3", media_type: "audio", title: "Q4 review" };
const STEP_MS = 1000;
const DELIVERY_DELAY_MS = 500;

const free = freshKey("free");
let g: TestGateway;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
  g = await startGateway({ stepMs: STEP_MS, webhookDelayMs: DELIVERY_DELAY_MS, extraKeys: [free] });
});
afterAll(async () => {
  await g.close();
  await receiver.close();
});

const clock = (body: unknown) => getJson(`${g.url}/__mock/clock`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

describe("one clock", () => {
  it("paused, nothing moves; one advance moves the limiter's window, the lifecycle, a token's expiry and a webhook's delivery alike", async () => {
    await clock({ action: "pause" });

    // The minute's budget spent: the next request is refused until the window moves.
    let last = await call(g.url, "GET", "/v1/analyses", { key: free.key });
    for (let i = 1; last.status === 200 && i < 100; i++) last = await call(g.url, "GET", "/v1/analyses", { key: free.key });
    expect([last.status, last.body.error]).toEqual([429, "rate_limit_exceeded"]);

    const created = (await call(g.url, "POST", "/v1/analyses", { body: CREATE })).body;
    const simulatedNow = Date.parse((await getJson(`${g.url}/__mock/clock`)).body.now);
    const token = await mintToken({ secret: DEFAULT_JWT_SECRET, workspaceId: "ws_ClockUser01", plan: "pro", expiresInSeconds: 30, now: simulatedNow });
    const withToken = () => getJson(`${g.url}/v1/boards`, { headers: { Authorization: `Bearer ${token}` } });
    await call(g.url, "POST", "/v1/webhooks", { body: { url: receiver.url, event_types: ["analysis.completed"] } });

    // Real time passes; simulated time does not: nothing has moved.
    await new Promise((r) => setTimeout(r, DELIVERY_DELAY_MS + 300));
    expect((await call(g.url, "GET", "/v1/analyses", { key: free.key })).status).toBe(429);
    expect((await call(g.url, "GET", `/v1/analyses/${created.id}`)).body.status).toBe(created.status);
    expect((await withToken()).status).toBe(200);
    expect(receiver.deliveries).toHaveLength(0);

    const moved = await clock({ action: "advance", ms: 60_000 });
    expect(moved.body).toMatchObject({ paused: true });

    expect((await call(g.url, "GET", "/v1/analyses", { key: free.key })).status).toBe(200);
    expect((await call(g.url, "GET", `/v1/analyses/${created.id}`)).body.status).toBe("completed");
    const expired = await withToken();
    expect([expired.status, expired.body.detail]).toEqual([401, expect.stringMatching(/expired/i)]);
    await receiver.received(1);
    expect(receiver.deliveries[0]!.body.type).toBe("analysis.completed");
  });
});
