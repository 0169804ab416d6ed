// The retry table of docs/typescript.md, cell by cell: each row's requests meet each column's failure once (then
// succeed), and the client retries exactly where the table says "retried". The failures are made the way undici
// reports them (a `cause` with the connect error's code), with a fake clock: no real waiting.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ApiClient } from "../../src/client/index.js";
import { ROOT } from "../../scripts/lib/paths.js";
import { FakeClock, json, testClient, type Reply } from "./helpers.js";

const doc = fs.readFileSync(path.join(ROOT, "docs/typescript.md"), "utf8");
const table = doc.split("<!-- retry-table -->")[1]!.trim().split("\n").filter((l) => l.startsWith("|"));
const columns = table[0]!.split("|").slice(2, -1).map((c) => c.trim());
const rows = table.slice(2).map((l) => l.split("|").slice(1, -1).map((c) => c.trim()));

const fetchFailed = (code: string) => Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error(code), { code }) });
/** Each column's failure, for the first attempt only. */
const FAULTS: Record<string, Reply | "hang"> = {
  "network error before sending": () => Promise.reject(fetchFailed("ECONNREFUSED")),
  "network error after sending": () => Promise.reject(fetchFailed("UND_ERR_SOCKET")),
  timeout: "hang",
  "429": () => json(429, { detail: "Slow down.", error: "rate_limit_exceeded", limit: 1, window: "1 minute", retry_after: 0 }, { "Retry-After": "0" }),
  "5xx": () => json(503, { detail: "Unavailable." }),
};

/** Calls that stand for each row (every method it names; keyed by the client, by the caller, or exempt). */
const CALLS: Array<[row: RegExp, name: string, call: (api: ApiClient) => Promise<unknown>]> = [
  [/^GET, HEAD, PUT, DELETE$/, "GET", (api) => api.GET("/v1/boards")],
  [/^GET, HEAD, PUT, DELETE$/, "PUT", (api) => api.PUT("/v1/consent", { body: { consents: [{ purpose: "analytics", granted: true }] } as never })],
  [/^GET, HEAD, PUT, DELETE$/, "DELETE", (api) => api.DELETE("/v1/boards/{board_id}", { params: { path: { board_id: "brd_01HZX5D0K2M8Q4T6W1Y3A5C7E9" } } })],
  [/^POST, PATCH with an `Idempotency-Key`/, "POST, the client's key", (api) => api.POST("/v1/boards", { body: { name: "Board" } })],
  [/^POST, PATCH with an `Idempotency-Key`/, "PATCH, the caller's key", (api) => api.PATCH("/v1/boards/{board_id}", { params: { path: { board_id: "brd_01HZX5D0K2M8Q4T6W1Y3A5C7E9" } }, body: { name: "B" }, headers: { "Idempotency-Key": "mine" } })],
  [/^POST, PATCH without one$/, "POST /v1/query", (api) => api.POST("/v1/query", { body: { question: "Why?" } as never })],
  [/^POST, PATCH without one$/, "POST /v1/oauth/token", (api) => api.POST("/v1/oauth/token", { body: { grant_type: "client_credentials", client_id: "app" } })],
];

/** Runs a call to its end, moving the fake clock whenever the client waits. */
async function drive(clock: FakeClock, pending: Promise<unknown>): Promise<void> {
  let done = false;
  const settled = pending.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 50 && !done; i++) {
    await clock.settle();
    if (!done && clock.pending.length) await clock.advance(clock.pending[0]!);
  }
  await settled;
}

describe("the retry table of docs/typescript.md", () => {
  it("has the five failure columns and three rows", () => {
    expect([...columns].sort()).toEqual(Object.keys(FAULTS).sort());
    expect(rows).toHaveLength(3);
  });
  for (const row of rows) {
    const calls = CALLS.filter(([re]) => re.test(row[0]!));
    it(`row "${row[0]}" has calls that stand for it`, () => expect(calls.length).toBeGreaterThan(1));
    columns.forEach((column, i) => {
      for (const [, name, call] of calls) {
        it(`${name}, ${column}: ${row[i + 1]}`, async () => {
          const fault = FAULTS[column]!;
          const first: Reply = fault === "hang" ? () => new Promise<Response>(() => {}) : fault;
          const { client, clock, calls: sent } = testClient((c, n) => (n === 1 ? first(c, n) : json(200, {})), { timeoutMs: 1000, retry: { random: () => 0 } });
          await drive(clock, call(client));
          expect(sent.length > 1 ? "retried" : "not retried").toBe(row[i + 1]);
        });
      }
    });
  }
});
