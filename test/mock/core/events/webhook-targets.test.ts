// Webhook targets on loopback (decision SH15, issue 29 item 10): accepted only with --allow-loopback-webhooks
// (otherwise 422 naming `url`), and what a tenant reads of a delivery never tells a closed port from a live service.
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { call, startGateway, startReceiver, type TestGateway } from "../../../helpers/mock.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function gateway(allowLoopbackWebhooks: boolean): Promise<TestGateway> {
  const g = await startGateway({ allowLoopbackWebhooks });
  closers.push(() => g.close());
  return g;
}

const register = (g: TestGateway, url: string) => call(g.url, "POST", "/v1/webhooks", { body: { url, event_types: ["report.ready"] } });

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** The webhook once its first delivery has been attempted. */
async function delivered(g: TestGateway, id: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100; i++) {
    const h = (await call(g.url, "GET", `/v1/webhooks/${id}`)).body;
    if (h.last_delivery_at) return h;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`webhook ${id}: no delivery attempted`);
}

describe("webhook targets on loopback", () => {
  it("without --allow-loopback-webhooks: a loopback URL answers 422 naming url, on create and update", async () => {
    const g = await gateway(false);
    for (const url of ["http://127.0.0.1:6379/", "http://localhost:8080/hook", "http://[::1]:22/"]) {
      const r = await register(g, url);
      expect(r.status, url).toBe(422);
      expect(r.body.detail[0].loc).toEqual(["body", "url"]);
      expect(r.body.detail[0].msg).toContain("--allow-loopback-webhooks");
    }
    const ok = await register(g, "https://hooks.northwind.example/in");
    expect(ok.status).toBe(201);
    const patch = await call(g.url, "PATCH", `/v1/webhooks/${ok.body.id}`, { body: { url: "http://127.0.0.1:5432/" } });
    expect([patch.status, patch.body.detail[0].loc]).toEqual([422, ["body", "url"]]);
  });

  it("with it: a closed port and a live service's 404 read the same (null); a 2xx is shown", async () => {
    const g = await gateway(true);
    const live = await startReceiver(404);
    const ack = await startReceiver(200);
    closers.push(live.close, ack.close);
    const closed = await register(g, `http://127.0.0.1:${await closedPort()}/hook`);
    const notFound = await register(g, live.url);
    const fine = await register(g, ack.url);
    expect([closed.status, notFound.status, fine.status]).toEqual([201, 201, 201]);
    const [a, b, c] = [await delivered(g, closed.body.id), await delivered(g, notFound.body.id), await delivered(g, fine.body.id)];
    expect(live.deliveries.length).toBe(1); // the live service was called, and answered 404
    expect([a.last_delivery_status, b.last_delivery_status, c.last_delivery_status]).toEqual([null, null, 200]);
  });
});
