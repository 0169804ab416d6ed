// Retries that never duplicate (src/client/idempotency.ts, transport.ts): the key the client sends with every write
// that takes one, the retry rules of writes without one, and, against the mock over real HTTP with answers slower
// than the client's timeout, one resource however many attempts.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createClient, TimeoutError } from "../../src/client/index.js";
import { IDEMPOTENCY_HEADER } from "../../src/client/idempotency.js";
import { takesKey } from "../../src/client/write.js";
import { contract, freshKey, startGateway, type TestGateway } from "../helpers/mock.js";
import { caught, json, replies, testClient } from "./helpers.js";

const busy = () => json(503, { detail: "Busy." });
const limited = () => json(429, { detail: "Slow down.", error: "rate_limit_exceeded", limit: 1, window: "1 minute", retry_after: 1 }, { "Retry-After": "1" });
const created = () => json(201, { id: "brd_1" });
const QUERY = { question: "What did the customer ask for?" };

describe("the Idempotency-Key the client sends", () => {
  it("one key per call, the same on every attempt, on an operation that takes it; a new one for the next call", async () => {
    const { client, clock, calls } = testClient(replies(busy, busy, created), { timeoutMs: 0, retry: { random: () => 0 } });
    const pending = client.POST("/v1/boards", { body: { name: "Board" } });
    for (let i = 0; i < 2; i++) await clock.advance(await clock.untilTimer());
    expect((await pending).response.status).toBe(201);
    const keys = calls.map((c) => c.headers.get(IDEMPOTENCY_HEADER));
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys).size).toBe(1);
    await client.POST("/v1/boards", { body: { name: "Board" } });
    expect(calls[3]!.headers.get(IDEMPOTENCY_HEADER)).not.toBe(keys[0]);
  });

  it("a caller's own key wins, given as a header or as the typed header parameter", async () => {
    const { client, calls } = testClient(created, { timeoutMs: 0 });
    await client.POST("/v1/boards", { body: { name: "Board" }, headers: { "idempotency-key": "mine-1" } });
    await client.PATCH("/v1/boards/{board_id}", { params: { path: { board_id: "brd_1" }, header: { "Idempotency-Key": "mine-2" } }, body: { name: "Board" } });
    expect(calls.map((c) => c.headers.get(IDEMPOTENCY_HEADER))).toEqual(["mine-1", "mine-2"]);
  });

  it("only on the operations that take it: none on a GET, a PUT or an exempt POST", async () => {
    const { client, calls } = testClient(() => json(200, {}), { timeoutMs: 0 });
    await client.GET("/v1/boards");
    await client.POST("/v1/query", { body: QUERY as never });
    expect(calls.map((c) => c.headers.get(IDEMPOTENCY_HEADER))).toEqual([null, null]);
  });

  it("the generated rule picks exactly the operations that reference the key in the bundled contract", () => {
    const ops = Object.entries<any>(contract.doc.paths).flatMap(([p, item]) => ["get", "put", "post", "patch", "delete"].filter((m) => item[m]).map((m) => [m, p, item[m]] as const));
    const keyed = ops.filter(([, , op]) => op.parameters?.some((x: any) => x.$ref === "#/components/parameters/IdempotencyKey")).map(([m, p]) => `${m.toUpperCase()} ${p}`);
    const picked = ops.filter(([m, p]) => takesKey(m.toUpperCase(), p)).map(([m, p]) => `${m.toUpperCase()} ${p}`);
    expect(picked).toEqual(keyed);
    expect(keyed.length).toBeGreaterThan(20);
  });
});

describe("a write without a key", () => {
  it("is not retried after a 5xx; one with a key is", async () => {
    const unkeyed = testClient(busy, { timeoutMs: 0 });
    expect((await unkeyed.client.POST("/v1/query", { body: QUERY as never })).response.status).toBe(503);
    expect(unkeyed.calls).toHaveLength(1);
    const keyed = testClient(replies(busy, created), { timeoutMs: 0, retry: { random: () => 0 } });
    const pending = keyed.client.POST("/v1/boards", { body: { name: "Board" } });
    await keyed.clock.advance(await keyed.clock.untilTimer());
    expect((await pending).response.status).toBe(201);
    expect(keyed.calls).toHaveLength(2);
  });

  it("is not retried after a timeout", async () => {
    const { client, clock, calls } = testClient(() => new Promise<Response>(() => {}), { timeoutMs: 1000 });
    const pending = caught(client.POST("/v1/query", { body: QUERY as never }));
    await clock.advance(await clock.untilTimer());
    expect(await pending).toBeInstanceOf(TimeoutError);
    expect(calls).toHaveLength(1);
  });

  it("is retried after a 429 (the server refused it unread)", async () => {
    const { client, clock, calls } = testClient(replies(limited, () => json(200, {})), { timeoutMs: 0 });
    const pending = client.POST("/v1/query", { body: QUERY as never });
    await clock.advance(await clock.untilTimer());
    expect((await pending).response.status).toBe(200);
    expect(calls).toHaveLength(2);
  });
});

describe("network errors, over real sockets", () => {
  let server: http.Server;
  let port: number;
  let closedPort: number;
  beforeAll(async () => {
    // Drops every connection once the request is in: a failure after sending.
    server = http.createServer((req) => req.socket.destroy());
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const counting = (base: string) => {
    let n = 0;
    const client = createClient({ baseUrl: base, apiKey: "pk_test_demo_pro", timeoutMs: 5000, retry: { baseDelayMs: 1, maxDelayMs: 2 }, fetch: (r, i) => (n++, fetch(r, i)) });
    return { client, attempts: () => n };
  };

  it("a connection refused (nothing sent) is retried, even for a write without a key", async () => {
    const c = counting(`http://127.0.0.1:${closedPort}`);
    await caught(c.client.POST("/v1/query", { body: QUERY as never }));
    expect(c.attempts()).toBe(3);
  });

  it("a connection dropped after the request was sent: a write without a key is sent once, one with a key again", async () => {
    const unkeyed = counting(`http://127.0.0.1:${port}`);
    await caught(unkeyed.client.POST("/v1/query", { body: QUERY as never }));
    expect(unkeyed.attempts()).toBe(1);
    const keyed = counting(`http://127.0.0.1:${port}`);
    await caught(keyed.client.POST("/v1/boards", { body: { name: "Board" } }));
    expect(keyed.attempts()).toBe(3);
  });
});

describe("against a server that answers after longer than the client's timeout", () => {
  // The mock behind a slow front: each request is passed on to the mock at once and in full (the mock acts on it, as
  // a real backend would even if the client has gone), and its answer is held back for 400 ms.
  let g: TestGateway;
  let front: http.Server;
  let frontUrl: string;
  const key = freshKey("business");
  beforeAll(async () => {
    g = await startGateway({ extraKeys: [key] });
    front = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !["host", "connection", "content-length"].includes(k))) as Record<string, string>;
      const answer = await fetch(`${g.url}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
      const body = Buffer.from(await answer.arrayBuffer());
      setTimeout(() => res.writeHead(answer.status, { "Content-Type": "application/json" }).end(body), 400);
    });
    await new Promise<void>((r) => front.listen(0, "127.0.0.1", r));
    frontUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    front.closeAllConnections();
    await new Promise((r) => front.close(r));
    await g.close();
  });

  it("more than one attempt, all with the same key, and one resource on the server", async () => {
    const sent: Array<string | null> = [];
    const client = createClient({
      baseUrl: frontUrl,
      apiKey: key.key,
      timeoutMs: 150,
      retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 },
      fetch: (r, i) => (sent.push(r.headers.get(IDEMPOTENCY_HEADER)), fetch(r, i)),
    });
    expect(await caught(client.POST("/v1/boards", { body: { name: "Slow server board" } }))).toBeInstanceOf(TimeoutError);
    expect(sent.length).toBeGreaterThan(1);
    expect(new Set(sent).size).toBe(1);
    expect(sent[0]).toBeTruthy();
    // The mock has acted on every attempt (the front passes each on at once): its log has a line for each.
    await vi.waitFor(() => expect(g.logs.filter((l) => l.includes("POST /v1/boards")).length).toBe(sent.length), { timeout: 5000 });
    const reader = createClient({ baseUrl: g.url, apiKey: key.key });
    const { data } = await reader.GET("/v1/boards", { params: { query: { limit: 100 } } });
    expect(data!.data.filter((b) => b.name === "Slow server board")).toHaveLength(1);
  });
});
