// The sandbox balancer's own answers (decision SB26): when no replica passes its health check HAProxy answers the
// contract's JSON error with Retry-After, not its HTML page; a replica that drops a request mid-way gives a JSON 502;
// every answer carries an X-Request-Id, the client's own when valid. Real haproxy, in front of a loopback server
// that answers /health and drops every other request, and of a port nobody listens on.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, missing } from "../../../scripts/lib/engines.js";
import { BALANCER_RETRY_AFTER_SECONDS, startHaproxy, type Balancer } from "../../../scripts/lib/haproxy.js";
import { schemaErrors } from "../../helpers/mock.js";

const skip = missing("haproxy");

describe.skipIf(skip !== null)(skip ?? "the balancer's own answers", () => {
  let down: Balancer;
  let dropping: Balancer;
  let server: http.Server;

  beforeAll(async () => {
    // A "replica" that is healthy but drops every API request: HAProxy retries, then gives up with a 502.
    server = http.createServer((req, res) => (req.url === "/health" ? res.end("ok") : req.socket.destroy()));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const healthy = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    down = await startHaproxy([`127.0.0.1:${await freePort()}`, `127.0.0.1:${await freePort()}`], await freePort(), { waitForReplicas: false });
    dropping = await startHaproxy([healthy], await freePort());
  }, 30_000);

  afterAll(async () => {
    await down?.stop();
    await dropping?.stop();
    server?.close();
  });

  async function get(b: Balancer, headers: Record<string, string> = {}) {
    const res = await fetch(`${b.url}/v1/analyses`, { headers: { "X-API-Key": "pk_test_demo_pro", ...headers } });
    return { status: res.status, headers: res.headers, text: await res.text() };
  }

  it("answers 503 in the contract's error body with Retry-After when no replica is up, never HTML", async () => {
    // Past the checks taking both servers out (the first request may still find them "up" and fail to connect).
    let r = await get(down);
    for (let i = 0; i < 20 && r.status !== 503; i++) (await new Promise((ok) => setTimeout(ok, 250)), (r = await get(down)));
    expect(r.status).toBe(503);
    expect(r.headers.get("content-type")).toBe("application/json");
    expect(r.headers.get("retry-after")).toBe(String(BALANCER_RETRY_AFTER_SECONDS));
    const body = JSON.parse(r.text);
    expect(schemaErrors("Error", body)).toEqual([]);
    expect(body.error).toBe("dependency_unavailable");
    expect(r.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it("echoes a valid X-Request-Id on its own answers and replaces an invalid one", async () => {
    expect((await get(down, { "X-Request-Id": "trace-7" })).headers.get("x-request-id")).toBe("trace-7");
    expect((await get(down, { "X-Request-Id": "has space" })).headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it("answers 502 in the contract's error body when the replica drops the request", async () => {
    const r = await get(dropping, { "X-Request-Id": "trace-8" });
    expect(r.status).toBe(502);
    expect(r.headers.get("content-type")).toBe("application/json");
    expect(schemaErrors("Error", JSON.parse(r.text))).toEqual([]);
    expect(JSON.parse(r.text).detail).toContain("Idempotency-Key");
    expect(r.headers.get("x-request-id")).toBe("trace-8");
  });
});
