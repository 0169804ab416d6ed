// Type-level tests of the TanStack Query bindings (tsc --noEmit covers test/): the hooks take the contract's types
// through the options, and refuse what the contract refuses.
import type { useInfiniteQuery, useMutation, useQuery } from "@tanstack/react-query";
import { describe, expectTypeOf, it } from "vitest";
import type { components } from "../../src/client/index.js";
import type { createQueryOptions } from "../../src/query/index.js";

type Q = ReturnType<typeof createQueryOptions>;

/** Never called: only compiled. */
function hooks(q: Q, query: typeof useQuery, mutation: typeof useMutation, infinite: typeof useInfiniteQuery) {
  const item = query(q.queryOptions("/v1/analyses/{analysis_id}", { params: { path: { analysis_id: "anl_x" } } }));
  expectTypeOf(item.data).toEqualTypeOf<components["schemas"]["Analysis"] | undefined>();
  // @ts-expect-error: the path parameter is required
  q.queryOptions("/v1/analyses/{analysis_id}", {});
  const create = mutation(q.mutationOptions("post", "/v1/analyses"));
  void create.mutateAsync({ body: { media_url: "https://media.example.com/a.wav", media_type: "audio" } });
  // @ts-expect-error: media_type is a closed enum
  void create.mutateAsync({ body: { media_url: "https://media.example.com/a.wav", media_type: "podcast" } });
  // @ts-expect-error: /v1/analyses has no DELETE
  q.mutationOptions("delete", "/v1/analyses");
  const pages = infinite(q.infiniteQueryOptions("/v1/analyses", { params: { query: { limit: 2 } } }));
  expectTypeOf(pages.data?.pages[0]?.data[0]).toEqualTypeOf<components["schemas"]["Analysis"] | undefined>();
  // @ts-expect-error: not a list
  q.infiniteQueryOptions("/v1/billing/plan");
}

describe("the bindings' types", () => {
  it("compile", () => expectTypeOf(hooks).toBeFunction());
});
