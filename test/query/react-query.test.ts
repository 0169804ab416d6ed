// @vitest-environment happy-dom
// The TanStack Query bindings (`@avt/api-contract/react-query`, src/query/) under React Testing Library, on the
// in-process simulation: typed queries, mutations that invalidate what the contract says they change, and the
// infinite list paging by next_cursor without ever sending `cursor` on the first page (issue 45, finding 2).
import { QueryClient, QueryClientProvider, useInfiniteQuery, useMutation, useQuery } from "@tanstack/react-query";
import { act, cleanup, renderHook, waitFor } from "@testing-library/react";
import { createElement, type ReactNode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, unwrap } from "../../src/client/index.js";
import { createSimulation } from "../../src/mock/index.js";
import { createQueryOptions } from "../../src/query/index.js";

const MEDIA = { media_url: "https://media.example.com/calls/q4-review.mp3", media_type: "audio" } as const;

function setup() {
  const sim = createSimulation({ seed: 7 });
  const sent: string[] = [];
  const fetch = (input: Request, init?: RequestInit) => {
    sent.push(`${input.method} ${input.url}`);
    return sim.fetch(input, init);
  };
  const api = createClient({ baseUrl: sim.baseUrl, apiKey: sim.keys.pro, fetch, retry: false });
  const q = createQueryOptions(api);
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = ({ children }: { children: ReactNode }) => createElement(QueryClientProvider, { client: queryClient }, children);
  const close = async () => {
    queryClient.clear();
    await sim.close();
  };
  return { sim, api, q, wrapper, sent, close };
}

afterEach(cleanup);

describe("queries and mutations", () => {
  it("a create's success refetches its collection's list", async () => {
    const { q, wrapper, close } = setup();
    const { result } = renderHook(
      () => ({ list: useQuery(q.queryOptions("/v1/analyses", { params: { query: { limit: 50 } } })), create: useMutation(q.mutationOptions("post", "/v1/analyses")) }),
      { wrapper },
    );
    await waitFor(() => expect(result.current.list.isSuccess).toBe(true));
    const before = result.current.list.data!.data.length;
    let created: { id: string } | undefined;
    await act(async () => {
      created = await result.current.create.mutateAsync({ body: MEDIA });
    });
    await waitFor(() => expect(result.current.list.data!.data.map((a) => a.id)).toContain(created!.id));
    expect(result.current.list.data!.data.length).toBe(before + 1);
    await close();
  });

  it("an update's success refetches the item and its list; a delete's too", async () => {
    const { api, q, wrapper, close } = setup();
    const created = await unwrap(api.POST("/v1/analyses", { body: MEDIA }));
    const path = { analysis_id: created.id };
    const { result } = renderHook(
      () => ({
        item: useQuery(q.queryOptions("/v1/analyses/{analysis_id}", { params: { path } })),
        list: useQuery(q.queryOptions("/v1/analyses")),
        update: useMutation(q.mutationOptions("patch", "/v1/analyses/{analysis_id}")),
        remove: useMutation(q.mutationOptions("delete", "/v1/analyses/{analysis_id}")),
      }),
      { wrapper },
    );
    await waitFor(() => expect(result.current.item.isSuccess && result.current.list.isSuccess).toBe(true));
    await act(async () => {
      await result.current.update.mutateAsync({ params: { path }, body: { title: "Renewal call" } });
    });
    await waitFor(() => expect(result.current.item.data?.title).toBe("Renewal call"));
    await waitFor(() => expect(result.current.list.data!.data.find((a) => a.id === created.id)?.title).toBe("Renewal call"));
    await act(async () => {
      await result.current.remove.mutateAsync({ params: { path } });
    });
    await waitFor(() => expect(result.current.list.data!.data.map((a) => a.id)).not.toContain(created.id));
    await waitFor(() => expect(result.current.item.isError).toBe(true));
    expect((result.current.item.error as { status?: number }).status).toBe(404);
    await close();
  });

  it("a failed query is an ApiError with the contract's status", async () => {
    const { q, wrapper, close } = setup();
    const { result } = renderHook(() => useQuery(q.queryOptions("/v1/analyses/{analysis_id}", { params: { path: { analysis_id: "anl_0000000000NOSUCH000000000" } } })), { wrapper });
    await waitFor(() => expect(result.current.isError).toBe(true));
    expect(result.current.error).toMatchObject({ name: "ApiError", status: 404 });
    await close();
  });
});

describe("infinite queries", () => {
  it("page by next_cursor, the first page without cursor, and stop when has_more is false", async () => {
    const { api, q, wrapper, sent, close } = setup();
    const existing = (await unwrap(api.GET("/v1/analyses", { params: { query: { limit: 100 } } }))).data.length;
    for (let i = 0; i < 5 - Math.min(existing, 5); i++) await unwrap(api.POST("/v1/analyses", { body: MEDIA }));
    const total = (await unwrap(api.GET("/v1/analyses", { params: { query: { limit: 100 } } }))).data.length;
    sent.length = 0;
    const { result } = renderHook(() => useInfiniteQuery(q.infiniteQueryOptions("/v1/analyses", { params: { query: { limit: 2 } } })), { wrapper });
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    while (result.current.hasNextPage) {
      await act(async () => {
        await result.current.fetchNextPage();
      });
    }
    const ids = result.current.data!.pages.flatMap((p) => p.data.map((a) => a.id));
    expect(ids.length).toBe(total);
    expect(new Set(ids).size).toBe(total);
    expect(sent.length).toBe(Math.ceil(total / 2));
    expect(new URL(sent[0]!.split(" ")[1]!).searchParams.has("cursor")).toBe(false);
    expect(sent.slice(1).every((s) => new URL(s.split(" ")[1]!).searchParams.get("cursor"))).toBe(true);
    await close();
  });
});
