// Webhooks: registering a loopback URL, the signed sample deliveries that follow, test deliveries, and the
// signature scheme of the contract (checked here independently with node:crypto).
import { createHmac, timingSafeEqual } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { isLoopbackUrl, MAX_WEBHOOKS_PER_WORKSPACE, NOT_LOOPBACK_NOTICE } from "../../../../src/mock/core/events/webhooks.js";
import { redact } from "../../../../src/mock/core/pipeline/log.js";
import { apiKey, contract, freshKey, getJson, schemaErrors, startGateway, startReceiver, type Delivery, type TestGateway } from "../../../helpers/mock.js";

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
      const urls = ["https://169.254.169.254/latest/meta-data/", "https://10.0.0.1/hook", "https://hooks.northwind.example/in"];
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
      // One log line per delivery the mock did not make: 3 samples and the test delivery.
      const skipped = () => g.logs.filter((l) => / webhook .* not sent: /.test(l));
      await vi.waitFor(() => expect(skipped()).toHaveLength(4));
      expect(outside).toEqual([]);
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
    ["http://[::ffff:7f00:1]:3000/hook", true], // 127.0.0.1, IPv4-mapped: the shared check (src/loopback.ts) knows it
    ["http://api.localhost:3000/hook", false], // a name under localhost would be resolved: never delivered to
    ["not a url", false],
  ])("isLoopbackUrl(%s) is %s", (url, loopback) => {
    expect(isLoopbackUrl(url)).toBe(loopback);
  });

  it("refuses a webhook URL with user information (the contract's pattern), echoing the password nowhere", async () => {
    for (const url of ["https://ops:hunter3secret@hooks.northwind.example/in", "http://ops:hunter3secret@127.0.0.1:9/in"]) {
      const r = await getJson(`${g.url}/v1/webhooks`, { method: "POST", headers: json, body: JSON.stringify({ url, event_types: ["report.ready"] }) });
      expect(r.status, url).toBe(422);
      expect(r.body.detail.map((i: { loc: unknown[] }) => i.loc)).toEqual([["body", "url"]]);
      expect(JSON.stringify(r.body)).not.toContain("hunter3secret");
    }
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

describe("webhooks for real: list, update, the limit of 20, emit", () => {
  /** A gateway of its own and a fresh workspace, so the counts below are this test's alone. */
  async function world() {
    const k = freshKey("pro");
    const h = await startGateway({ extraKeys: [k] });
    const headers = { ...apiKey(k.key), "Content-Type": "application/json" };
    const call = (method: string, path: string, body?: unknown) => getJson(h.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { h, k, call };
  }

  it("lists the workspace's webhooks newest first, paginated, without secrets; another workspace sees none", async () => {
    const { h, call } = await world();
    try {
      const made = [];
      for (const d of ["a", "b", "c"]) made.push((await call("POST", "/v1/webhooks", { url: "https://hooks.northwind.example/in", event_types: ["report.ready"], description: d })).body);
      const p1 = await call("GET", "/v1/webhooks?limit=2");
      expect(p1.status).toBe(200);
      expect(schemaErrors("WebhookList", p1.body)).toEqual([]);
      expect([p1.body.data.map((w: { description: string }) => w.description), p1.body.has_more]).toEqual([["c", "b"], true]);
      expect(JSON.stringify(p1.body)).not.toContain("whsec_");
      const p2 = await call("GET", `/v1/webhooks?limit=2&cursor=${p1.body.next_cursor}`);
      expect([p2.body.data.map((w: { id: string }) => w.id), p2.body.has_more, p2.body.next_cursor]).toEqual([[made[0].id], false, null]);
      const elsewhere = await getJson(`${h.url}/v1/webhooks`, { headers: apiKey("pk_test_demo_free") });
      expect(elsewhere.body.data.map((w: { id: string }) => w.id)).not.toContain(made[0].id);
    } finally {
      await h.close();
    }
  });

  it("PATCH changes url, event_types, enabled and description, never the secret; deliveries go to the new URL", async () => {
    const { h, call } = await world();
    const other = await startReceiver();
    try {
      const hook = (await call("POST", "/v1/webhooks", { url: receiver.url, event_types: ["run.finished"], enabled: false })).body;
      const up = await call("PATCH", `/v1/webhooks/${hook.id}`, { url: other.url, event_types: ["analysis.completed", "report.ready"], enabled: true, description: "moved" });
      expect(up.status).toBe(200);
      expect(schemaErrors("Webhook", up.body)).toEqual([]);
      expect(up.body).toMatchObject({ id: hook.id, url: other.url, event_types: ["analysis.completed", "report.ready"], enabled: true, description: "moved", created_at: hook.created_at });
      expect(up.body.secret).toBeUndefined();
      expect((await call("PATCH", `/v1/webhooks/${hook.id}`, { secret: "whsec_" + "x".repeat(32) })).status).toBe(422);
      await call("POST", `/v1/webhooks/${hook.id}/test`, { event_type: "report.ready" });
      await other.received(1);
      expect(verify(hook.secret, other.deliveries[0]!)).toBe(true); // the secret of creation
      const away = await call("PATCH", `/v1/webhooks/${hook.id}`, { url: "https://hooks.northwind.example/v2" });
      expect(away.headers.get("x-mock-notice")).toBe(NOT_LOOPBACK_NOTICE);
      expect((await call("GET", `/v1/webhooks/${hook.id}`)).body.url).toBe("https://hooks.northwind.example/v2");
    } finally {
      await h.close();
      await other.close();
    }
  });

  it("a 21st webhook answers 409, as the contract says; deleting one makes room", async () => {
    const createDescription: string = contract.doc.paths["/v1/webhooks"].post.description;
    expect(createDescription).toContain(`at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks; creating a ${MAX_WEBHOOKS_PER_WORKSPACE + 1}st answers 409`);
    const { h, call } = await world();
    try {
      const body = { url: "https://hooks.northwind.example/in", event_types: ["report.ready"] };
      const ids = [];
      for (let i = 0; i < MAX_WEBHOOKS_PER_WORKSPACE; i++) ids.push((await call("POST", "/v1/webhooks", body)).body.id);
      const full = await call("POST", "/v1/webhooks", body);
      expect([full.status, full.body.detail]).toEqual([409, "A workspace has at most 20 webhooks: delete one before creating another."]);
      expect((await call("DELETE", `/v1/webhooks/${ids[0]}`)).status).toBe(204);
      expect((await call("POST", "/v1/webhooks", body)).status).toBe(201);
    } finally {
      await h.close();
    }
  });

  it("another workspace's webhook is not found: GET, PATCH and DELETE answer 404", async () => {
    const { h, call } = await world();
    try {
      const hook = (await call("POST", "/v1/webhooks", { url: "https://hooks.northwind.example/in", event_types: ["report.ready"] })).body;
      const as = (method: string, body?: unknown) =>
        getJson(`${h.url}/v1/webhooks/${hook.id}`, { method, headers: { ...apiKey("pk_test_demo_free"), "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
      expect([(await as("GET")).status, (await as("PATCH", { enabled: false })).status, (await as("DELETE")).status]).toEqual([404, 404, 404]);
      expect((await call("GET", `/v1/webhooks/${hook.id}`)).body.enabled).toBe(true);
    } finally {
      await h.close();
    }
  });

  it("emit delivers one event, signed, to each enabled webhook of the workspace subscribed to its type", async () => {
    const { h, k, call } = await world();
    const r = await startReceiver();
    try {
      const make = async (event_types: string[], enabled = true) => (await call("POST", "/v1/webhooks", { url: r.url, event_types, enabled })).body;
      const a = await make(["analysis.completed"]);
      const b = await make(["analysis.completed", "report.ready"]);
      await make(["report.ready"]); // another type
      await make(["analysis.completed"], false); // disabled
      await r.received(3); // the sample deliveries that follow the three enabled registrations
      const before = r.deliveries.length;
      const analysis = { id: "anl_01HZX4A9B7C5D3E1F2G4H6J8K0", status: "completed" };
      h.gateway.webhooks.emit(k.workspace_id, "analysis.completed", { analysis });
      h.gateway.webhooks.emit("ws_SomeoneElse00", "analysis.completed", { analysis });
      await r.received(before + 2);
      await new Promise((done) => setTimeout(done, 100)); // a wrongly sent third would be here by now
      const got = r.deliveries.slice(before);
      expect(got.map((d) => d.headers["x-webhook-id"]).sort()).toEqual([a.id, b.id].sort());
      for (const d of got) {
        expect(d.body).toMatchObject({ type: "analysis.completed", workspace_id: k.workspace_id, data: { analysis } });
        expect(verify(d.headers["x-webhook-id"] === a.id ? a.secret : b.secret, d)).toBe(true);
      }
      expect(got[0]!.body.id).toBe(got[1]!.body.id); // one event, the same id in every webhook
    } finally {
      await h.close();
      await r.close();
    }
  });
});
