import { describe, expect, expectTypeOf, it } from "vitest";
import { ApiError, readRateLimit, type components } from "../../src/client/index.js";
import { pages, paginate } from "../../src/client/pagination.js";
import { json, responseExample, testClient, type Call } from "./helpers.js";

const example = responseExample("/v1/analyses", "get", 200) as components["schemas"]["AnalysisList"];
const item = example.data[0]!;
const items = Array.from({ length: 7 }, (_, i) => ({ ...item, id: `anl_01HZX4A9B7C5D3E1F2G4H6J8K${i}` }));
const RATE = {
  "X-RateLimit-Limit": "150",
  "X-RateLimit-Remaining": "149",
  "X-RateLimit-Reset": "1763737260",
  "X-RateLimit-Daily-Limit": "10000",
  "X-RateLimit-Daily-Remaining": "9874",
};

/** Serves `items` in pages of `limit`, the cursor being the next index. */
function listServer(all: unknown[]) {
  return (call: Call) => {
    const limit = Number(call.url.searchParams.get("limit") ?? 20);
    const from = Number(call.url.searchParams.get("cursor") ?? 0);
    const next = from + limit < all.length ? String(from + limit) : null;
    return json(200, { data: all.slice(from, from + limit), next_cursor: next, has_more: next !== null }, RATE);
  };
}

describe("paginate", () => {
  it("yields every item of every page, typed by the list's item schema", async () => {
    const { client, calls } = testClient(listServer(items));
    const seen: string[] = [];
    for await (const analysis of paginate(client, "/v1/analyses", { params: { query: { limit: 3, status: "completed" } } })) {
      expectTypeOf(analysis).toEqualTypeOf<components["schemas"]["Analysis"]>();
      seen.push(analysis.id);
    }
    expect(seen).toEqual(items.map((i) => i.id));
    expect(calls.map((c) => c.url.search)).toEqual([
      "?limit=3&status=completed",
      "?limit=3&status=completed&cursor=3",
      "?limit=3&status=completed&cursor=6",
    ]);
  });

  it("fetches lazily: breaking out of the loop stops fetching", async () => {
    const { client, calls } = testClient(listServer(items));
    for await (const a of paginate(client, "/v1/analyses", { params: { query: { limit: 2 } } })) {
      if (a.id === items[2]!.id) break;
    }
    expect(calls).toHaveLength(2);
  });

  it("starts from a given cursor and works for lists with path parameters", async () => {
    const signals = responseExample("/v1/analyses/{analysis_id}/signals", "get", 200);
    const { client, calls } = testClient(listServer([...signals.data, ...signals.data]));
    const got = [];
    for await (const s of paginate(client, "/v1/analyses/{analysis_id}/signals", {
      params: { path: { analysis_id: "anl_01HZX4A9B7C5D3E1F2G4H6J8K0" }, query: { cursor: "1", limit: 1 } },
    })) {
      expectTypeOf(s).toEqualTypeOf<components["schemas"]["Signal"]>();
      got.push(s);
    }
    expect(got).toHaveLength(signals.data.length * 2 - 1);
    expect(calls[0]!.url.pathname).toBe("/v1/analyses/anl_01HZX4A9B7C5D3E1F2G4H6J8K0/signals");
    expect(calls[0]!.url.searchParams.get("cursor")).toBe("1");
  });

  it("throws the typed error of a failing page", async () => {
    const { client } = testClient((call) =>
      call.url.searchParams.get("cursor") ? json(403, { detail: "This workspace is frozen." }) : listServer(items)(call),
      { retry: false },
    );
    const seen: string[] = [];
    const error = await (async () => {
      for await (const a of paginate(client, "/v1/analyses", { params: { query: { limit: 4 } } })) seen.push(a.id);
    })().catch((e: unknown) => e);
    expect(seen).toHaveLength(4);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 403, kind: "forbidden", detail: "This workspace is frozen." });
  });

  it("stops with an error instead of looping when has_more comes without a new cursor", async () => {
    const { client, calls } = testClient(() => json(200, { data: [item], next_cursor: "same", has_more: true }));
    const error = await (async () => {
      for await (const _ of paginate(client, "/v1/analyses")) void _;
    })().catch((e: unknown) => e);
    expect(String(error)).toMatch(/without a new next_cursor/);
    expect(calls).toHaveLength(2);
  });

  it("pages() gives each page with its response, for the rate-limit headers", async () => {
    const { client } = testClient(listServer(items));
    const sizes: number[] = [];
    for await (const page of pages(client, "/v1/analyses", { params: { query: { limit: 5 } } })) {
      expectTypeOf(page.data).toEqualTypeOf<components["schemas"]["Analysis"][]>();
      sizes.push(page.data.length);
      expect(readRateLimit(page.response)?.remaining).toBe(149);
    }
    expect(sizes).toEqual([5, 2]);
  });
});
