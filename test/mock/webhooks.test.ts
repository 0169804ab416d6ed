// Webhooks: registering a loopback URL, the signed sample deliveries that follow, test deliveries, and the
// signature scheme of the contract (checked here independently with node:crypto).
import { createHmac, timingSafeEqual } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { isLoopbackUrl, NOT_LOOPBACK_NOTICE } from "../../src/mock/webhooks.js";
import { redact } from "../../src/mock/log.js";
import { apiKey, getJson, schemaErrors, startGateway, startReceiver, type Delivery, type TestGateway } from "./helpers.js";

/** The contract's scheme: v1= + hex HMAC-SHA256 of "<timestamp>.<raw body>", keyed with the whole secret. */
function verify(secret: string, d: Delivery): boolean {
  const expected = "v1=" + createHmac("sha256", secret).update(`${d.headers["x-webhook-timestamp"]}.`).update(d.raw).digest("hex");
  const got = String(d.headers["x-webhook-signature"]);
  return got.length === expected.length && timingSafeEqual(Buffer.from(got), Buffer.from(expected));
}

let g: TestGateway;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const key = apiKey("pk_test_demo_business");
const json = { ...key, "Content-Type": "application/json" };

beforeAll(async () => {
  g = await startGateway();
  receiver = await startReceiver();
});
afterAll(async () => {
  await g.close();
  await receiver.close();
});

async function register(body: object) {
  const r = await getJson(`${g.url}/v1/webhooks`, { method: "POST", headers: json, body: JSON.stringify(body) });
  expect(r.status).toBe(201);
  return r.body;
}

describe("webhooks", () => {
  it("registers a loopback URL and answers 201 with the webhook and its secret", async () => {
    const hook = await register({ url: receiver.url, event_types: ["analysis.completed", "alert.triggered"], description: "test" });
    expect(schemaErrors("WebhookWithSecret", hook)).toEqual([]);
    expect(hook).toMatchObject({ url: receiver.url, event_types: ["analysis.completed", "alert.triggered"], enabled: true, workspace_id: "ws_DemoBusiness" });
    expect(hook.secret).toMatch(/^whsec_[0-9A-Za-z]{32,64}$/);

    // Then one signed sample event per subscribed type, signed with that very secret.
    await receiver.received(2);
    const mine = receiver.deliveries.filter((d) => d.headers["x-webhook-id"] === hook.id);
    expect(mine.map((d) => d.body.type).sort()).toEqual(["alert.triggered", "analysis.completed"]);
    for (const d of mine) {
      expect(verify(hook.secret, d)).toBe(true);
      expect(schemaErrors("WebhookEvent", d.body)).toEqual([]);
      expect(d.body.workspace_id).toBe("ws_DemoBusiness");
      expect(d.headers["x-webhook-timestamp"]).toBe(String(Math.floor(g.clock.now() / 1000)));
      expect(d.headers["content-type"]).toBe("application/json");
    }
    // A tampered body would not verify.
    expect(verify(hook.secret, { ...mine[0]!, raw: Buffer.concat([mine[0]!.raw, Buffer.from(" ")]) })).toBe(false);
    expect(verify("whsec_" + "x".repeat(32), mine[0]!)).toBe(false);
  });

  it("POST /v1/webhooks/{id}/test sends one signed event of the chosen type, even to a disabled webhook", async () => {
    const before = receiver.deliveries.length;
    const hook = await register({ url: receiver.url, event_types: ["analysis.completed"], enabled: false });
    const r = await getJson(`${g.url}/v1/webhooks/${hook.id}/test`, { method: "POST", headers: json, body: JSON.stringify({ event_type: "report.ready" }) });
    expect(r.status).toBe(202);
    expect(schemaErrors("WebhookTestDelivery", r.body)).toEqual([]);
    expect(r.body).toMatchObject({ event_type: "report.ready", status: "queued" });
    await receiver.received(before + 1);
    const d = receiver.deliveries.at(-1)!;
    expect([d.headers["x-webhook-id"], d.body.type]).toEqual([hook.id, "report.ready"]);
    expect(verify(hook.secret, d)).toBe(true);
    expect(receiver.deliveries.length).toBe(before + 1); // disabled: no automatic sample delivery
  });

  it("shows the outcome on GET (without the secret), and forgets the webhook on DELETE", async () => {
    const hook = await register({ url: receiver.url, event_types: ["run.finished"] });
    const n = receiver.deliveries.length;
    await receiver.received(n + 1);
    let shown;
    // The receiver has the delivery; the mock records the answer when it reads it: ask until it shows.
    for (let i = 0; i < 1000; i++) {
      shown = await getJson(`${g.url}/v1/webhooks/${hook.id}`, { headers: key });
      if (shown.body.last_delivery_status) break;
    }
    expect(shown!.status).toBe(200);
    expect(schemaErrors("Webhook", shown!.body)).toEqual([]);
    expect(shown!.body).toMatchObject({ id: hook.id, last_delivery_status: 200 });
    expect(shown!.body.secret).toBeUndefined();
    expect((await getJson(`${g.url}/v1/webhooks/${hook.id}`, { method: "DELETE", headers: key })).status).toBe(204);
    expect((await getJson(`${g.url}/v1/webhooks/${hook.id}`, { headers: key })).status).toBe(404);
    expect((await getJson(`${g.url}/v1/webhooks/${hook.id}`, { method: "DELETE", headers: key })).status).toBe(404);
  });

  it("another workspace cannot test someone else's webhook (404, nothing is sent)", async () => {
    const n = receiver.deliveries.length;
    const hook = await register({ url: receiver.url, event_types: ["analysis.failed"] });
    await receiver.received(n + 1); // its automatic sample delivery
    const r = await getJson(`${g.url}/v1/webhooks/${hook.id}/test`, {
      method: "POST",
      headers: { ...apiKey("pk_test_demo_free"), "Content-Type": "application/json" },
      body: JSON.stringify({ event_type: "analysis.failed" }),
    });
    expect(r.status).toBe(404);
    expect(r.body.detail).toBe(`Webhook ${hook.id} not found.`);
    // The owner's own test delivery comes after; by then a wrongly sent one would have arrived too.
    await getJson(`${g.url}/v1/webhooks/${hook.id}/test`, { method: "POST", headers: json, body: JSON.stringify({ event_type: "run.finished" }) });
    await receiver.received(n + 2);
    expect(receiver.deliveries.filter((d) => d.headers["x-webhook-id"] === hook.id).map((d) => d.body.type)).toEqual(["analysis.failed", "run.finished"]);
  });

  it("refuses a non-loopback http URL with 422 (the contract's pattern)", async () => {
    const r = await getJson(`${g.url}/v1/webhooks`, { method: "POST", headers: json, body: JSON.stringify({ url: "http://example.com/hook", event_types: ["analysis.completed"] }) });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(["body", "url"]);
  });

  it("stores a URL that is not loopback but never calls it, and says so in the answer and the log", async () => {
    // Every fetch the process makes is seen here; one to a non-loopback address is stopped before the network.
    const realFetch = globalThis.fetch;
    const outside: string[] = [];
    const spy = vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (!isLoopbackUrl(url)) {
        outside.push(url);
        return Promise.reject(new TypeError("test: no traffic outside loopback"));
      }
      return realFetch(input, init);
    });
    try {
      const urls = ["https://169.254.169.254/latest/meta-data/", "https://10.0.0.1/hook", "https://hooks.northwind.example/in", "https://ops:hunter2secret@hooks.northwind.example/in"];
      const hooks = [];
      for (const url of urls) {
        const r = await getJson(`${g.url}/v1/webhooks`, { method: "POST", headers: json, body: JSON.stringify({ url, event_types: ["analysis.completed"] }) });
        expect(r.status, url).toBe(201);
        expect(r.body.url).toBe(url); // stored as registered
        expect(r.headers.get("x-mock-notice"), url).toBe(NOT_LOOPBACK_NOTICE);
        hooks.push(r.body);
      }
      const test = await getJson(`${g.url}/v1/webhooks/${hooks[0].id}/test`, { method: "POST", headers: json, body: JSON.stringify({ event_type: "report.ready" }) });
      expect([test.status, test.headers.get("x-mock-notice")]).toEqual([202, NOT_LOOPBACK_NOTICE]);
      // One log line per delivery the mock did not make: 4 samples and the test delivery.
      const skipped = () => g.logs.filter((l) => / webhook .* not sent: /.test(l));
      await vi.waitFor(() => expect(skipped()).toHaveLength(5));
      expect(outside).toEqual([]);
      const log = g.logs.join("\n");
      expect(log).not.toContain("hunter2secret");
      expect(log).toContain("https://[redacted]@hooks.northwind.example/in");
      // A loopback URL is still called (and gets no notice).
      const n = receiver.deliveries.length;
      const local = await getJson(`${g.url}/v1/webhooks`, { method: "POST", headers: json, body: JSON.stringify({ url: receiver.url.replace("127.0.0.1", "localhost"), event_types: ["run.finished"] }) });
      expect(local.headers.get("x-mock-notice")).toBeNull();
      await receiver.received(n + 1);
    } finally {
      spy.mockRestore();
    }
  });

  it.each([
    ["http://127.0.0.1:9/x", true],
    ["http://127.255.0.3/x", true],
    ["http://localhost:8080/", true],
    ["http://LOCALHOST/", true],
    ["http://[::1]:3000/hook", true],
    ["https://[0:0:0:0:0:0:0:1]/hook", true],
    ["http://2130706433/", true], // 127.0.0.1 written as one number: the URL parser normalises it
    ["https://169.254.169.254/latest/meta-data/", false],
    ["https://10.0.0.1/hook", false],
    ["https://128.0.0.1/", false],
    ["https://localhost.evil.example/", false],
    ["https://127.0.0.1.nip.io/", false],
    ["https://[::ffff:a9fe:a9fe]/", false],
    ["https://[::2]/", false],
    ["not a url", false],
  ])("isLoopbackUrl(%s) is %s", (url, loopback) => {
    expect(isLoopbackUrl(url)).toBe(loopback);
  });

  it("keeps a password in a loopback URL out of the log, also from the error of the failed delivery", async () => {
    // fetch refuses URLs with credentials, and its error message quotes the whole URL.
    const r = await getJson(`${g.url}/v1/webhooks`, { method: "POST", headers: json, body: JSON.stringify({ url: "https://ops:hunter3secret@127.0.0.1:9/in", event_types: ["report.ready"] }) });
    expect(r.status).toBe(201);
    await vi.waitFor(() => expect(g.logs.filter((l) => l.includes(r.body.id))).toHaveLength(1));
    const line = g.logs.find((l) => l.includes(r.body.id))!;
    expect(line).toContain("https://[redacted]@127.0.0.1:9/in");
    expect(line).toMatch(/credentials/);
    expect(g.logs.join("\n")).not.toContain("hunter3secret");
  });

  it("redacts the userinfo of every URL in logged text", () => {
    expect(redact("webhook → https://ops:hunter2@hooks.example/in?x=1 and http://u@h/")).toBe("webhook → https://[redacted]@hooks.example/in?x=1 and http://[redacted]@h/");
    expect(redact("GET http://user:pw@127.0.0.1:4010/v1/analyses?token=abc")).toBe("GET http://[redacted]@127.0.0.1:4010/v1/analyses?token=[redacted]");
    expect(redact("mail me at ops@example.com")).toBe("mail me at ops@example.com");
  });

  it("with Prefer, answers the documented response instead (e.g. the 409 of a 21st webhook)", async () => {
    const r = await getJson(`${g.url}/v1/webhooks`, { method: "POST", headers: { ...json, Prefer: "code=409" }, body: JSON.stringify({ url: receiver.url, event_types: ["analysis.completed"] }) });
    expect(r.status).toBe(409);
  });
});
