// The two packages together as a React + vitest team meets them (issue 45's "Done when"): the client package
// (@avt/api-contract, `npm pack` with its prepack) and the mock package (@avt/mock, build-packages.ts) packed once
// each, and installed from their tarballs into one fresh project outside the repository with vitest, jsdom,
// happy-dom, React, React Testing Library and TanStack Query. There:
//   - one test file runs under vitest's jsdom environment, then under happy-dom: the typed client on `sim.fetch`
//     makes a POST with an Idempotency-Key and its replay, meets a fault rule's 429, follows the event stream, and
//     the paused clock moves an analysis only when advanced; the TanStack Query bindings (useQuery, useMutation's
//     invalidation, useInfiniteQuery by next_cursor) and useAnalysisEvents under React Testing Library;
//   - tsc type-checks the client as openapi-fetch's Client<paths> and refuses wrong request bodies.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildMockPackage, packMockPackage } from "../../../scripts/publish/build-packages.js";
import { REPO_ROOT } from "../../../src/mock/homes/node/contract-files.js";
import { freshProject, NPM_ENV, packClientPackage, run } from "../../helpers/packages.js";

/** The versions this repository tests with, installed in the fresh project too. */
const version = async (name: string) => (JSON.parse(await fs.readFile(path.join(REPO_ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
const DEV = ["vitest", "jsdom", "happy-dom", "react", "react-dom", "@testing-library/react", "@testing-library/dom", "@tanstack/react-query", "openapi-fetch", "typescript", "@types/react"];

/** What an app's component tests do with the two packages; run as written under each DOM environment. */
const FRONTEND_TEST = `import { act, cleanup, renderHook, waitFor } from "@testing-library/react";
import { QueryClient, QueryClientProvider, useInfiniteQuery, useMutation, useQuery } from "@tanstack/react-query";
import { createElement } from "react";
import { afterEach, expect, it } from "vitest";
import { ApiError, createClient, isFinalEvent, streamAnalysisEvents, unwrap } from "@avt/api-contract";
import { createQueryOptions } from "@avt/api-contract/react-query";
import { useAnalysisEvents } from "@avt/api-contract/react";
import { createSimulation } from "@avt/mock";

const MEDIA = { media_url: "https://media.example.com/calls/q4-review.mp3", media_type: "audio" };
const sim = createSimulation();
const api = createClient({ baseUrl: sim.baseUrl, apiKey: sim.keys.pro, fetch: sim.fetch, retry: false });
const status = async (id) => (await unwrap(api.GET("/v1/analyses/{analysis_id}", { params: { path: { analysis_id: id } } }))).status;
afterEach(async () => {
  cleanup();
  await sim.reset();
});

it("runs in the DOM asked for", () => {
  expect(navigator.userAgent).toContain(process.env.DOM_EXPECTED);
});

it("typed client: a POST with an Idempotency-Key, and its replay the same analysis", async () => {
  const create = () => api.POST("/v1/analyses", { body: MEDIA, headers: { "Idempotency-Key": "create-1" } });
  const first = await create();
  expect(first.response.status).toBe(202);
  const again = await create();
  expect([again.response.status, again.response.headers.get("Idempotent-Replayed"), again.data.id]).toEqual([202, "true", first.data.id]);
  expect(await status(first.data.id)).toBe("queued");
});

it("typed client: a fault rule's 429 reaches the client as a 429", async () => {
  await sim.faults.add({ operationId: "createAnalysis", status: 429, times: 1 });
  const limited = await api.POST("/v1/analyses", { body: MEDIA });
  expect(limited.response.status).toBe(429);
  expect((await api.POST("/v1/analyses", { body: MEDIA })).response.status).toBe(202); // the rule was for one request
  await sim.faults.add({ operationId: "createAnalysis", status: 429, times: 1 });
  const error = await unwrap(api.POST("/v1/analyses", { body: MEDIA })).catch((e) => e);
  expect(error).toBeInstanceOf(ApiError);
  expect([error.status, error.kind]).toEqual([429, "rate_limited"]);
});

it("typed client: the event stream to the final event while the clock advances", async () => {
  const { id } = await unwrap(api.POST("/v1/analyses", { body: MEDIA }));
  const kinds = [];
  let last;
  for await (const event of streamAnalysisEvents(api, id)) {
    if (kinds.length === 0) await sim.clock.advance(120_000);
    kinds.push(event.event);
    last = event;
  }
  expect(kinds.length).toBeGreaterThan(1);
  expect(isFinalEvent(last)).toBe(true);
  expect(kinds.at(-1)).toBe("completed");
});

it("the clock: paused, an analysis stays queued until advanced", async () => {
  const { id } = await unwrap(api.POST("/v1/analyses", { body: MEDIA }));
  expect((await sim.clock.pause()).paused).toBe(true);
  expect(await status(id)).toBe("queued");
  await sim.clock.advance(120_000);
  expect(await status(id)).toBe("completed");
});

function withQueryClient() {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return { q: createQueryOptions(api), wrapper: ({ children }) => createElement(QueryClientProvider, { client: queryClient }, children) };
}

it("TanStack Query: a create refetches the list it changes; an infinite query pages by next_cursor", async () => {
  const { q, wrapper } = withQueryClient();
  const { result } = renderHook(
    () => ({ list: useQuery(q.queryOptions("/v1/analyses", { params: { query: { limit: 100 } } })), create: useMutation(q.mutationOptions("post", "/v1/analyses")) }),
    { wrapper },
  );
  await waitFor(() => expect(result.current.list.isSuccess).toBe(true));
  let created;
  await act(async () => {
    created = await result.current.create.mutateAsync({ body: MEDIA });
  });
  await waitFor(() => expect(result.current.list.data.data.map((a) => a.id)).toContain(created.id));
  const total = result.current.list.data.data.length;
  const pages = renderHook(() => useInfiniteQuery(q.infiniteQueryOptions("/v1/analyses", { params: { query: { limit: 2 } } })), { wrapper });
  await waitFor(() => expect(pages.result.current.isSuccess).toBe(true));
  while (pages.result.current.hasNextPage) await act(() => pages.result.current.fetchNextPage());
  const ids = pages.result.current.data.pages.flatMap((p) => p.data.map((a) => a.id));
  expect([ids.length, new Set(ids).size, pages.result.current.data.pages.length]).toEqual([total, total, Math.ceil(total / 2)]);
  const missing = renderHook(() => useQuery(q.queryOptions("/v1/analyses/{analysis_id}", { params: { path: { analysis_id: "anl_0000000000NOSUCH000000000" } } })), { wrapper });
  await waitFor(() => expect(missing.result.current.isError).toBe(true));
  expect(missing.result.current.error).toBeInstanceOf(ApiError);
});

it("useAnalysisEvents: the events in order up to the final one, then done", async () => {
  const { id } = await unwrap(api.POST("/v1/analyses", { body: MEDIA }));
  const { result } = renderHook(() => useAnalysisEvents(api, id));
  await waitFor(() => expect(result.current.events.length).toBeGreaterThan(0));
  await act(async () => {
    await sim.clock.advance(120_000);
  });
  await waitFor(() => expect(result.current.status).toBe("done"));
  expect(isFinalEvent(result.current.last)).toBe(true);
  expect(result.current.events.filter((e) => isFinalEvent(e))).toHaveLength(1);
});
`;

/** The type facts, checked by tsc in the project: the client is openapi-fetch's Client, and wrong bodies are refused. */
const TYPES = `import type { Client } from "openapi-fetch";
import { createClient, type paths } from "@avt/api-contract";

const api = createClient({ baseUrl: "https://api.example.test", apiKey: "pk_test_types" });
export const asOpenapiFetch: Client<paths> = api;

export function wrongBodies() {
  // @ts-expect-error: media_type is a closed enum
  void api.POST("/v1/analyses", { body: { media_url: "https://media.example.com/a.wav", media_type: "podcast" } });
  // @ts-expect-error: media_url is required
  void api.POST("/v1/analyses", { body: { media_type: "audio" } });
  // @ts-expect-error: a webhook's event types are a list
  void api.POST("/v1/webhooks", { body: { url: "https://hooks.example.com/in", event_types: "analysis.completed" } });
}
`;

/** The lines a tsc run reports as errors, as "file(line): TScode". */
const tscErrors = (out: string) => [...out.matchAll(/^(\S+)\((\d+),\d+\): error (TS\d+)/gm)].map((m) => `${m[1]}(${m[2]}): ${m[3]}`);

let tmp: string;
let project: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "frontend-runtimes-"));
  const [client, mock] = await Promise.all([packClientPackage(REPO_ROOT, tmp), buildMockPackage(path.join(tmp, "mock-build")).then((dir) => packMockPackage(dir, tmp))]);
  const dev = await Promise.all(DEV.map(async (name) => `${name}@${await version(name)}`));
  project = await freshProject(tmp, "frontend-app", [client.file, mock, ...dev]);
  await fs.writeFile(path.join(project, "frontend.test.js"), FRONTEND_TEST);
  const compilerOptions = { strict: true, target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2022", "DOM", "DOM.Iterable"], types: [], noEmit: true };
  await fs.writeFile(path.join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["types.ts"] }));
  await fs.writeFile(path.join(project, "types.ts"), TYPES);
}, 480_000);
afterAll(() => (tmp ? fs.rm(tmp, { recursive: true, force: true }) : undefined));

const npx = (args: string[], env: NodeJS.ProcessEnv = NPM_ENV) =>
  run("npx", ["--no-install", ...args], { cwd: project, env, maxBuffer: 1 << 24 }).catch((e: { stdout: string; stderr: string }) => ({ stdout: e.stdout + e.stderr, failed: true }));

/** The names vitest's verbose reporter marks passed (✓) and failed (×). */
async function vitestUnder(environment: string, userAgent: string): Promise<{ passed: string[]; failed: string[]; out: string }> {
  const { stdout } = await npx(["vitest", "run", "--environment", environment, "--reporter=verbose"], { ...NPM_ENV, DOM_EXPECTED: userAgent });
  const out = stdout.replace(/\x1b\[[0-9;]*m/g, "");
  const names = (mark: string) => [...out.matchAll(new RegExp(`^\\s*${mark} frontend\\.test\\.js > (.+?)(?: \\d+ms)?$`, "gm"))].map((m) => m[1]!);
  return { passed: names("✓"), failed: names("[×✗]"), out };
}

const CASES = [
  "runs in the DOM asked for",
  "typed client: a POST with an Idempotency-Key, and its replay the same analysis",
  "typed client: a fault rule's 429 reaches the client as a 429",
  "typed client: the event stream to the final event while the clock advances",
  "the clock: paused, an analysis stays queued until advanced",
  "TanStack Query: a create refetches the list it changes; an infinite query pages by next_cursor",
  "useAnalysisEvents: the events in order up to the final one, then done",
];

describe("the client and mock packages installed from their tarballs into a fresh project", () => {
  for (const [environment, userAgent] of [["jsdom", "jsdom"], ["happy-dom", "HappyDOM"]] as const) {
    it(`under vitest's ${environment}: the typed client's keyed POST and replay, a fault's 429, the event stream, the clock, TanStack Query and useAnalysisEvents`, { timeout: 240_000 }, async () => {
      const { passed, failed, out } = await vitestUnder(environment, userAgent);
      expect(failed, out).toEqual([]);
      expect(passed.sort(), out).toEqual([...CASES].sort());
    });
  }

  it("tsc: the client is openapi-fetch's Client<paths>, and wrong request bodies are refused", { timeout: 240_000 }, async () => {
    const passed = await npx(["tsc", "-p", "."]);
    expect(passed.stdout).toBe("");
    // Without their expectations, the three wrong bodies are errors, each on its line.
    await fs.writeFile(path.join(project, "types.ts"), TYPES.replace(/ *\/\/ @ts-expect-error.*\n/g, ""));
    const failed = await npx(["tsc", "-p", "."]);
    expect(tscErrors(failed.stdout)).toEqual(["types.ts(8): TS2322", "types.ts(9): TS2322", "types.ts(10): TS2322"]);
  });
});
