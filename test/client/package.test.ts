// Packaging: `npm pack` (its prepack builds dist/), install the tarball into a new project outside the
// repository, type-check a consumer there with this repository's tsc (no @types/node, no skipLibCheck), and run
// it with node against a fake fetch. Needs the tarball's dependencies from the npm cache or registry.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { expectLeanTree, NPM_ENV, packClientPackage, run } from "../helpers/packages.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSC = path.join(ROOT, "node_modules/typescript/bin/tsc");

const CONSUMER = `
import { ApiError, createClient, readRateLimit, unwrap, type components } from "@avt/api-contract";
import { paginate } from "@avt/api-contract/pagination";
import { eventSourceUrl } from "@avt/api-contract/streaming";
import { webSocketUrl } from "@avt/api-contract/websocket";
import { signWebhookPayload, verifyWebhookSignature } from "@avt/api-contract/webhooks";

const RATE = { "X-RateLimit-Limit": "150", "X-RateLimit-Remaining": "149", "X-RateLimit-Reset": "1763737260", "X-RateLimit-Daily-Limit": "10000", "X-RateLimit-Daily-Remaining": "9874" };
const seen: string[] = [];
async function fakeFetch(input: Request, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const url = new URL(request.url);
  seen.push(\`\${request.method} \${url.pathname}\${url.search} \${request.headers.get("X-API-Key") === "pk_test_consumer" ? "key" : "no-key"}\${request.headers.has("Idempotency-Key") ? " +idempotency-key" : ""}\`);
  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...RATE } });
  if (url.pathname === "/v1/analyses/anl_missing") return json(404, { detail: "Resource not found." });
  if (url.pathname === "/v1/analyses/anl_slow") return slowBody(request.signal);
  return url.searchParams.get("cursor")
    ? json(200, { data: [{ id: "anl_2" }], next_cursor: null, has_more: false })
    : json(200, { data: [{ id: "anl_1" }], next_cursor: "c2", has_more: true });
}

/** Five chunks 40 ms apart, the body erroring when the attempt's signal aborts (as fetch's does). */
function slowBody(signal: AbortSignal): Response {
  const bytes = new TextEncoder().encode(JSON.stringify({ id: "anl_slow" }));
  const body = new ReadableStream<Uint8Array>({
    async start(c) {
      signal.addEventListener("abort", () => c.error(signal.reason));
      for (let i = 0; i < 5; i++) {
        await new Promise((r) => setTimeout(r, 40));
        if (signal.aborted) return;
        c.enqueue(bytes.subarray((i * bytes.length) / 5, ((i + 1) * bytes.length) / 5));
      }
      c.close();
    },
  });
  return new Response(body, { headers: { "Content-Type": "application/json", ...RATE } });
}

const client = createClient({ baseUrl: "https://api.example.test", apiKey: "pk_test_consumer", fetch: fakeFetch });
const ids: Array<components["schemas"]["Analysis"]["id"]> = [];
for await (const analysis of paginate(client, "/v1/analyses", { params: { query: { limit: 1 } } })) ids.push(analysis.id);
const { response } = await client.GET("/v1/analyses", { timeoutMs: 5000 });
// A body read as a stream is timed chunk by chunk, by a module the client loads on first use (dist/client/body-timeout.js):
// 200 ms of body in chunks 40 ms apart arrives under a 100 ms timeout.
const slow = await client.GET("/v1/analyses/{analysis_id}", { params: { path: { analysis_id: "anl_slow" } }, parseAs: "stream", timeoutMs: 100 });
const streamed = await new Response(slow.data as ReadableStream).text();
let notFound = "";
try {
  await unwrap(client.GET("/v1/analyses/{analysis_id}", { params: { path: { analysis_id: "anl_missing" } } }));
} catch (e) {
  if (e instanceof ApiError) notFound = \`\${e.status} \${e.kind} \${e.detail}\`;
}
// A keyed write gets its Idempotency-Key from a module the client loads on first use (dist/client/write.js).
await client.POST("/v1/analyses", { body: { media_url: "https://example.com/a.mp3", media_type: "audio" } });
const signed = await signWebhookPayload({ payload: "{}", secret: "whsec_consumer", timestamp: 1795093200 });
await verifyWebhookSignature({ payload: "{}", headers: signed.headers, secret: "whsec_consumer", now: 1795093200_000 });
const urls = [await eventSourceUrl(client, "anl_1"), await webSocketUrl(client, "/v1/stream", { query: { encoding: "opus" } })];

export function typesTravelWithThePackage() {
  // @ts-expect-error: no such path in the contract
  void client.GET("/v1/no-such-path", {});
  // @ts-expect-error: limit is an integer
  void client.GET("/v1/analyses", { params: { query: { limit: "ten" } } });
  // @ts-expect-error: not a WebSocket operation
  void webSocketUrl(client, "/v1/analyses");
}
console.log(JSON.stringify({ ids, streamed, rate: readRateLimit(response), latest: readRateLimit(client)?.remaining, notFound, seen, urls }));
`;

/** A consumer of the front-end subpaths, with react, @tanstack/react-query and @types/react installed beside the tarball. */
const FRONTEND_CONSUMER = `
import { QueryClient, useMutation } from "@tanstack/react-query";
import createQueryClient from "openapi-react-query";
import { createClient } from "@avt/api-contract";
import { createQueryOptions } from "@avt/api-contract/react-query";
import { useAnalysisEvents, type AnalysisEventsState } from "@avt/api-contract/react";
import { Analysis, ResponseValidationError, responseValidator } from "@avt/api-contract/zod";
import type { infer as Infer } from "zod";

const sent: string[] = [];
const fakeFetch = async (input: Request) => {
  const url = new URL(input.url);
  sent.push(url.pathname + url.search);
  const page = url.searchParams.get("cursor") ? { data: [{ id: "anl_2" }], next_cursor: null, has_more: false } : { data: [{ id: "anl_1" }], next_cursor: "c2", has_more: true };
  return new Response(JSON.stringify(page), { headers: { "Content-Type": "application/json" } });
};
const api = createClient({ baseUrl: "https://api.example.test", apiKey: "pk_test_consumer", fetch: fakeFetch });
const $api = createQueryClient(api); // openapi-react-query takes the client as it is
const q = createQueryOptions(api);
const queryClient = new QueryClient();
const pages = await queryClient.fetchInfiniteQuery({ ...q.infiniteQueryOptions("/v1/analyses", { params: { query: { limit: 1 } } }), pages: 2 });

export function typesTravelWithThePackage() {
  const create = useMutation(q.mutationOptions("post", "/v1/analyses"));
  // @ts-expect-error: media_type is a closed enum
  void create.mutateAsync({ body: { media_url: "https://media.example.com/a.wav", media_type: "podcast" } });
  // @ts-expect-error: /v1/analyses has no DELETE
  q.mutationOptions("delete", "/v1/analyses");
  const events: AnalysisEventsState = useAnalysisEvents(api, "anl_1");
  // @ts-expect-error: the id is a string
  useAnalysisEvents(api, 42);
  return [events, $api];
}
// The fake's pages are not Analysis objects: the validating client refuses them, naming the operation and the path.
const checked = createClient({ baseUrl: "https://api.example.test", apiKey: "pk_test_consumer", fetch: fakeFetch, validate: responseValidator() });
const refused = await checked.GET("/v1/analyses").then(() => "passed", (e: unknown) => (e instanceof ResponseValidationError ? \`\${e.operationId} \${e.pointer}\` : String(e)));
const progress: Infer<typeof Analysis>["progress"] = 100;
// @ts-expect-error: progress is a number
const wrong: Infer<typeof Analysis>["progress"] = "done";
void [progress, wrong];
console.log(JSON.stringify({ ids: pages.pages.flatMap((p) => p.data.map((a) => a.id)), sent, refused }));
`;

/** One `npm pack` of the client package (its prepack builds dist/) for every test here: the tarball and what it holds. */
let tarball: Promise<{ dir: string; file: string; files: string[] }> | undefined;
function packed(): Promise<{ dir: string; file: string; files: string[] }> {
  tarball ??= (async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "client-package-"));
    return { dir, ...(await packClientPackage(ROOT, dir)) };
  })();
  return tarball;
}
afterAll(async () => {
  if (tarball) await fs.rm((await tarball).dir, { recursive: true, force: true });
});

/**
 * A fresh project outside the repository with the packed tarball and `deps` installed, `source` as consumer.ts:
 * type-checked with tsc (which throws with its output on any type error), then run; its stdout.
 */
async function consumerProject(name: string, source: string, deps: string[]): Promise<{ project: string; stdout: string }> {
  const { dir, file } = await packed();
  const project = path.join(dir, name);
  await fs.mkdir(project);
  await fs.writeFile(path.join(project, "package.json"), JSON.stringify({ name, private: true, type: "module" }));
  const compilerOptions = { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, lib: ["ES2022", "DOM", "DOM.Iterable"], types: [], outDir: "out" };
  await fs.writeFile(path.join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["consumer.ts"] }));
  await fs.writeFile(path.join(project, "consumer.ts"), source);
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", file, ...deps], { cwd: project, env: NPM_ENV });
  await run(process.execPath, [TSC, "-p", project]);
  const { stdout } = await run(process.execPath, [path.join(project, "out/consumer.js")], { cwd: project });
  return { project, stdout };
}

describe("package", () => {
  it("carries the contract's version (as the Python package does)", async () => {
    const pkg = JSON.parse(await fs.readFile(path.join(ROOT, "package.json"), "utf8")) as { version: string };
    const contract = parse(await fs.readFile(path.join(ROOT, "spec/openapi.yaml"), "utf8")) as { info: { version: string } };
    expect(pkg.version).toBe(contract.info.version);
  });

  it("needs only what dist/ imports: no native module, no install script, ws an optional peer", async () => {
    const pkg = JSON.parse(await fs.readFile(path.join(ROOT, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      peerDependencies?: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    expect(Object.keys(pkg.dependencies).sort()).toEqual(["eventsource-parser", "openapi-fetch"]);
    expect(pkg.peerDependencies?.ws).toBeDefined();
    expect(pkg.peerDependenciesMeta?.ws?.optional).toBe(true);
  });

  it("packs, installs into a fresh project, type-checks and runs there", { timeout: 180_000 }, async () => {
    const { files } = await packed();
    expect(files).toEqual(expect.arrayContaining(["dist/index.js", "dist/index.d.ts", "dist/client/client.js", "generated/schema.d.ts", "package.json"]));
    expect(files).toEqual(expect.arrayContaining(["dist/query/index.js", "dist/query/index.d.ts", "dist/query/invalidation.generated.js", "dist/react/index.js", "dist/react/index.d.ts"]));
    expect(files).toEqual(expect.arrayContaining(["dist/zod/index.js", "dist/zod/index.d.ts", "dist/zod/schemas.generated.js", "dist/zod/responses.generated.js"]));
    expect(files.filter((f) => !/^(dist\/index\.|dist\/(client|query|react|zod)\/|generated\/schema\.d\.ts$|package\.json$|README)/.test(f))).toEqual([]);
    expect(files.some((f) => f.endsWith(".d.ts") && f.startsWith("dist/client/"))).toBe(true);

    const { project, stdout } = await consumerProject("consumer", CONSUMER, []);
    await expectLeanTree(project, "@avt/api-contract", ["better-sqlite3", "ws"]);
    expect(JSON.parse(stdout)).toEqual({
      ids: ["anl_1", "anl_2"],
      streamed: '{"id":"anl_slow"}',
      latest: 149,
      rate: { limit: 150, remaining: 149, reset: 1763737260, daily_limit: 10000, daily_remaining: 9874 },
      notFound: "404 not_found Resource not found.",
      urls: ["https://api.example.test/v1/analysis/anl_1/stream?token=pk_test_consumer", "wss://api.example.test/v1/stream?encoding=opus&token=pk_test_consumer"],
      seen: [
        "GET /v1/analyses?limit=1 key",
        "GET /v1/analyses?limit=1&cursor=c2 key",
        "GET /v1/analyses key",
        "GET /v1/analyses/anl_slow key",
        "GET /v1/analyses/anl_missing key",
        "POST /v1/analyses key +idempotency-key",
      ],
    });
  });

  it("the react-query, react and zod subpaths: installed with react, TanStack Query and zod (optional peers), type-check and run", { timeout: 240_000 }, async () => {
    const peers = ["react@19.3.1", "@types/react@19.3.3", "@tanstack/react-query@5.108.4", "openapi-react-query@0.5.4", "zod@4.6.7"];
    const { stdout } = await consumerProject("frontend-consumer", FRONTEND_CONSUMER, peers);
    expect(JSON.parse(stdout)).toEqual({ ids: ["anl_1", "anl_2"], sent: ["/v1/analyses?limit=1", "/v1/analyses?limit=1&cursor=c2", "/v1/analyses"], refused: "listAnalyses /data/0/id" });
  });
});
