// `@avt/api-contract/react-query`: TanStack Query options for every operation of the contract, over the typed
// client. Keys are openapi-react-query's (`[method, path, init]`), so the two interoperate. Nothing here imports
// TanStack at run time: the options are plain objects, typed with @tanstack/query-core's types, and a mutation
// invalidates through the `QueryClient` TanStack hands its `onSuccess`.
import type { MutationFunctionContext, QueryClient, QueryFunctionContext } from "@tanstack/query-core";
import type { FetchResponse, MaybeOptionalInit } from "openapi-fetch";
import type { ApiClient } from "../client/client.js";
import { unwrap, type ApiError } from "../client/errors.js";
import type { HttpMethod, InitParam, ListPage, ListPath, PathsWith, paths } from "../client/types.js";
import type { WriteFacts } from "./facts.js";
import { INVALIDATION } from "./invalidation.generated.js";

export type { WriteFacts, ReferenceFact } from "./facts.js";

type Media = `${string}/${string}`;
type WriteMethod = "post" | "put" | "patch" | "delete";
type Init<M extends HttpMethod, P extends PathsWith<M>> = MaybeOptionalInit<paths[P], M>;
/** The success data of `M path`. */
export type QueryData<M extends HttpMethod, P extends PathsWith<M>> = FetchResponse<paths[P][M] & Record<string, any>, Init<M, P>, Media>["data"]; // eslint-disable-line @typescript-eslint/no-explicit-any
/** A query's key: openapi-react-query's `[method, path, init]`. */
export type QueryKey<P extends PathsWith<"get">> = readonly ["get", P, Init<"get", P> | Record<string, never>];
export type InfiniteQueryKey<P extends ListPath> = readonly ["get", P, Init<"get", P> | Record<string, never>, { infinite: true }];

type Loose = { params?: { path?: Record<string, unknown>; query?: Record<string, unknown> }; body?: unknown; [k: string]: unknown };
type Call = (path: string, init?: Loose) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

const PARAM = /\{([^}]+)\}/g;
const paramsOf = (template: string) => [...template.matchAll(PARAM)].map((m) => m[1]!);

/** The ids at `at` (`*`: each item of an array) in a body. */
function idsAt(value: unknown, at: readonly string[]): string[] {
  if (at.length === 0) return typeof value === "string" ? [value] : [];
  const [head, ...rest] = at;
  if (head === "*") return Array.isArray(value) ? value.flatMap((v) => idsAt(v, rest)) : [];
  return value && typeof value === "object" && Object.hasOwn(value, head!) ? idsAt((value as Record<string, unknown>)[head!], rest) : [];
}

/** The key prefixes `facts` make stale for a write sent with `init`. */
export function staleKeys(facts: WriteFacts | undefined, init: Loose | undefined): Array<readonly unknown[]> {
  if (!facts) return [];
  const sent = init?.params?.path ?? {};
  const keyOf = (template: string, path: Record<string, unknown>) => (Object.keys(path).length ? ["get", template, { params: { path } }] : ["get", template]);
  const pick = (template: string) => Object.fromEntries(paramsOf(template).filter((p) => p in sent).map((p) => [p, sent[p]]));
  const keys = facts.stale.map((t) => keyOf(t, pick(t)));
  for (const ref of facts.references ?? []) {
    const param = paramsOf(ref.get).at(-1)!;
    for (const id of idsAt(init?.body, ref.at)) keys.push(keyOf(ref.get, { [param]: id }));
  }
  return keys;
}

/** Invalidates what the contract says a write on `method path` changes (the mutations' `onSuccess` does it for you). */
export async function invalidate(queryClient: QueryClient, method: string, path: string, init?: object): Promise<void> {
  const keys = staleKeys(INVALIDATION[`${method.toUpperCase()} ${path}`], init as Loose | undefined);
  await Promise.all(keys.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
}

/** What `mutationOptions(method, path)` gives: TanStack's mutation options, `mutate(init)` taking the call's init. */
export interface MutationOptionsOf<M extends WriteMethod, P extends PathsWith<M>> {
  mutationKey: readonly [M, P];
  mutationFn: (init: Init<M, P>) => Promise<QueryData<M, P>>;
  onSuccess: (data: QueryData<M, P>, init: Init<M, P>, onMutateResult: unknown, context: MutationFunctionContext) => Promise<void>;
}

/** The bindings of one client. */
export function createQueryOptions(client: ApiClient) {
  const call = (method: string) => (client as unknown as Record<string, Call>)[method.toUpperCase()]!;
  const withSignal = (init: Loose | undefined, signal: AbortSignal) => ({ ...init, signal });

  function queryKey<P extends PathsWith<"get">>(path: P, ...init: InitParam<Init<"get", P>>): QueryKey<P> {
    return ["get", path, (init[0] ?? {}) as Init<"get", P>];
  }

  /** `useQuery(queryOptions(path, init))`: the GET, throwing `ApiError` on failure. */
  function queryOptions<P extends PathsWith<"get">>(path: P, ...init: InitParam<Init<"get", P>>) {
    return {
      queryKey: queryKey(path, ...init),
      queryFn: ({ signal }: QueryFunctionContext) => unwrap(call("get")(path, withSignal(init[0] as Loose, signal))) as Promise<QueryData<"get", P>>,
    };
  }

  /**
   * `useInfiniteQuery(infiniteQueryOptions(path, init))`: a list, page by page, by `next_cursor`. The first page is
   * asked without `cursor` (initialPageParam is null), the next ones with the last page's `next_cursor` while
   * `has_more`.
   */
  function infiniteQueryOptions<P extends ListPath>(path: P, ...init: InitParam<Init<"get", P>>) {
    const first = (init[0] ?? {}) as Loose;
    return {
      queryKey: ["get", path, first, { infinite: true }] as unknown as InfiniteQueryKey<P>,
      initialPageParam: null as string | null,
      queryFn: ({ signal, pageParam }: QueryFunctionContext<readonly unknown[], string | null>) => {
        const query = pageParam === null ? first.params?.query : { ...first.params?.query, cursor: pageParam };
        return unwrap(call("get")(path, withSignal({ ...first, params: { ...first.params, query } }, signal))) as Promise<ListPage<P>>;
      },
      getNextPageParam: (last: ListPage<P>): string | undefined => (last.has_more && last.next_cursor !== null ? last.next_cursor : undefined),
    };
  }

  /**
   * `useMutation(mutationOptions(method, path))`: `mutate(init)` sends it; success invalidates what it changes. The
   * result's types take nothing from the call's context (NoInfer): else `useMutation`'s inference picked another path.
   */
  function mutationOptions<M extends WriteMethod, P extends PathsWith<M>>(method: M, path: P): MutationOptionsOf<NoInfer<M>, NoInfer<P>> {
    return {
      mutationKey: [method, path] as const,
      mutationFn: (init: Init<M, P>) => unwrap(call(method)(path, init as Loose)) as Promise<QueryData<M, P>>,
      onSuccess: (_data, init, _result, context) => invalidate(context.client, method, path, init as object),
    };
  }

  return { queryKey, queryOptions, infiniteQueryOptions, mutationOptions };
}

export type QueryOptionsOf = ReturnType<typeof createQueryOptions>;
export type { ApiError };
