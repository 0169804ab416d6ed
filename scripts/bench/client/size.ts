// Client size: small apps bundled by esbuild for the browser, minified, `ws` external (Node only; browsers use their
// own WebSocket), then gzipped (level 9), all as ES modules so nothing is added by a wrapper, with code splitting
// on (as app bundlers do): a module the client loads with import() on first use (the stream-body timeout) becomes a
// chunk of its own, counted apart. The size of an app is what it loads up front: its entry chunk and every chunk
// that one imports statically.
//   app            imports only createClient from the package root (src/index.ts, what docs/typescript.md tells browser
//                  users to import) and makes a client: what a browser app that calls the API pays. Side by side,
//                  the same app on bare openapi-fetch.
//   app + <entry>  the app also calling one helper of each entry point (pagination, streaming, websocket,
//                  webhooks): what each costs on top, when used.
//   everything     src/index.ts as a whole (every export kept), beside openapi-fetch as a whole.
// The package has `sideEffects: false`, so a bundler keeps only what an app imports; "app" shows that it does.
import { build } from "esbuild";
import path from "node:path";
import zlib from "node:zlib";
import { ROOT } from "../../lib/paths.js";

export interface BundleSize {
  /** What the app loads up front: its entry chunk and the chunks that imports statically. */
  minified: number;
  gzipped: number;
  /** Chunks loaded with import() only when a feature is first used, by file name (minus esbuild's hash). */
  lazy: Record<string, { minified: number; gzipped: number }>;
}

export const ENTRIES = ["pagination", "streaming", "websocket", "webhooks"] as const;
export type Entry = (typeof ENTRIES)[number];

export interface ClientSize {
  /** An app importing only createClient, ours and on bare openapi-fetch. */
  app: { ours: BundleSize; openapiFetch: BundleSize; ratio: number };
  /** The app also using one entry point's helper: gzipped bytes added to `app.ours`. */
  added: Record<Entry, number>;
  /**
   * The app with TanStack Query: a query, an infinite list and a mutation through @tanstack/react-query's hooks, on
   * our `@avt/api-contract/react-query` and on openapi-fetch + openapi-react-query (react itself external: the app
   * has it either way). `bindings` is what ours adds to the app without TanStack.
   */
  query: { ours: BundleSize; theirs: BundleSize; ratio: number; bindings: number };
  /**
   * The zod subpath (`@avt/api-contract/zod`; react external, zod bundled): the TanStack app above with
   * `validate: responseValidator()` ÷ openapi-fetch + openapi-react-query; `validator`, what `validate` adds to the
   * app without TanStack (zod and every response schema); `oneSchema`, an app parsing only `Analysis` (and what it
   * refers to) beside `allSchemas`, every schema kept: what tree-shaking leaves.
   */
  zod: { ours: BundleSize; ratio: number; validator: number; oneSchema: number; allSchemas: number };
  /** Everything the package exports, and openapi-fetch's every export. */
  everything: { ours: BundleSize; openapiFetch: BundleSize; ratio: number };
}

const MAKE = `const api = createClient({ baseUrl: "https://api.example.com", apiKey: "pk_test_x" });`;
/** One call of each entry point's main helper, imported from its own entry module. */
const USE: Record<Entry, string> = {
  pagination: `import { paginate } from "./src/client/pagination.ts"; export const use = () => paginate(api, "/v1/analyses");`,
  streaming: `import { streamAnalysisEvents } from "./src/client/streaming.ts"; export const use = () => streamAnalysisEvents(api, "anl_1");`,
  websocket: `import { openWebSocket } from "./src/client/websocket.ts"; export const use = () => openWebSocket(api, "/v1/stream");`,
  webhooks: `import { verifyWebhookSignature } from "./src/client/webhooks.ts"; export const use = verifyWebhookSignature;`,
};

const gzip = (code: Uint8Array) => zlib.gzipSync(code, { level: 9 }).length;

const HOOKS = `import { useInfiniteQuery, useMutation, useQuery } from "@tanstack/react-query";`;
const OURS_QUERY = `import { createClient } from "./src/index.ts"; import { createQueryOptions } from "./src/query/index.ts"; ${HOOKS}
${MAKE} const q = createQueryOptions(api);
export const useAll = () => [useQuery(q.queryOptions("/v1/analyses")), useInfiniteQuery(q.infiniteQueryOptions("/v1/analyses")), useMutation(q.mutationOptions("post", "/v1/analyses"))];`;
/** The same options, no TanStack: what the subpath itself costs. */
const BINDINGS_ONLY = `import { createClient } from "./src/index.ts"; import { createQueryOptions } from "./src/query/index.ts";
${MAKE} const q = createQueryOptions(api);
export const options = [q.queryOptions("/v1/analyses"), q.infiniteQueryOptions("/v1/analyses"), q.mutationOptions("post", "/v1/analyses")];`;
const THEIR_QUERY = `import createClient from "openapi-fetch"; import createQueryClient from "openapi-react-query"; ${HOOKS}
const $api = createQueryClient(createClient({ baseUrl: "https://api.example.com" }));
export const useAll = () => [$api.useQuery("get", "/v1/analyses"), $api.useInfiniteQuery("get", "/v1/analyses", {}, { pageParamName: "cursor", initialPageParam: null, getNextPageParam: (p) => p.next_cursor }), $api.useMutation("post", "/v1/analyses")];`;

const VALIDATED = (app: string) => app.replace(`apiKey: "pk_test_x" }`, `apiKey: "pk_test_x", validate: responseValidator() }`) + `\nimport { responseValidator } from "./src/zod/index.ts";`;

async function bundle(contents: string): Promise<BundleSize> {
  const r = await build({
    stdin: { contents, resolveDir: ROOT, loader: "ts" },
    absWorkingDir: ROOT,
    bundle: true,
    minify: true,
    splitting: true,
    outdir: "out", // nothing is written: the chunks' names only
    platform: "browser",
    format: "esm",
    target: "es2022",
    external: ["ws", "react", "react-dom", "react/jsx-runtime"],
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const code = new Map(r.outputFiles.map((f) => [path.relative(ROOT, f.path), f.contents]));
  const outputs = r.metafile.outputs;
  const upFront = new Set(Object.keys(outputs).filter((k) => outputs[k]!.entryPoint === "<stdin>"));
  for (const k of upFront) for (const i of outputs[k]!.imports) if (i.kind === "import-statement" && !i.external) upFront.add(i.path);
  const loaded = [...upFront].map((k) => code.get(k)!);
  const lazy: BundleSize["lazy"] = {};
  for (const [k, c] of code) if (!upFront.has(k)) lazy[path.basename(k).replace(/-[A-Z0-9]+\.js$/, "")] = { minified: c.length, gzipped: gzip(c) };
  // Each chunk is its own file, gzipped on its own, as a server sends it.
  return { minified: loaded.reduce((n, c) => n + c.length, 0), gzipped: loaded.reduce((n, c) => n + gzip(c), 0), lazy };
}

export async function clientSize(): Promise<ClientSize> {
  const app = `import { createClient } from "./src/index.ts"; ${MAKE} export { api };`;
  const ours = await bundle(app);
  const openapiFetch = await bundle(`import createClient from "openapi-fetch"; export const api = createClient({ baseUrl: "https://api.example.com" });`);
  const added = {} as Record<Entry, number>;
  for (const e of ENTRIES) added[e] = (await bundle(`${app}\n${USE[e]}`)).gzipped - ours.gzipped;
  const oursQuery = await bundle(OURS_QUERY);
  const theirQuery = await bundle(THEIR_QUERY);
  const bare = await bundle(BINDINGS_ONLY);
  const oursZod = await bundle(VALIDATED(OURS_QUERY));
  const validator = (await bundle(VALIDATED(app))).gzipped - ours.gzipped;
  const oneSchema = await bundle(`import { Analysis } from "./src/zod/index.ts"; export const check = (v: unknown) => Analysis.safeParse(v);`);
  const allSchemas = await bundle(`export * from "./src/zod/schemas.generated.ts";`);
  const all = await bundle(`export * from "./src/index.ts";`);
  const allFetch = await bundle(`export * from "openapi-fetch"; export { default } from "openapi-fetch";`);
  return {
    app: { ours, openapiFetch, ratio: ours.gzipped / openapiFetch.gzipped },
    added,
    query: { ours: oursQuery, theirs: theirQuery, ratio: oursQuery.gzipped / theirQuery.gzipped, bindings: bare.gzipped - ours.gzipped },
    zod: { ours: oursZod, ratio: oursZod.gzipped / theirQuery.gzipped, validator, oneSchema: oneSchema.gzipped, allSchemas: allSchemas.gzipped },
    everything: { ours: all, openapiFetch: allFetch, ratio: all.gzipped / allFetch.gzipped },
  };
}
