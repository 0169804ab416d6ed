// The simulation in a real browser, as a frontend team meets it: the packed @avt/mock tarball installed with msw
// into a fresh project outside the repository, the app's entry (setupWorker(...sim.handlers) from msw/browser and
// createSimulation from @avt/mock/browser) bundled by esbuild from that project, MSW's own service worker
// (mockServiceWorker.js of the installed msw) served beside it from 127.0.0.1, and the page driven in Chromium
// (test/helpers/chromium.ts: Debian's, else the one inside @sparticuz/chromium; never a downloaded browser).
// The page's plain `fetch` calls http://localhost:4010, where nothing listens: every answer comes from the
// simulation through the service worker. It lists, creates (with an Idempotency-Key, then replays it), uploads a File
// (multipart) and follows the analysis's event stream to completion while the simulated clock advances; a fault rule's
// 429 reaches the page as a 429, and the paused clock moves an analysis only when advanced. The packed client
// (@avt/api-contract) is bundled too: its typed calls make the keyed POST, meet the 429 and follow the stream.
import esbuild from "esbuild";
import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildMockPackage, packMockPackage } from "../../../scripts/publish/build-packages.js";
import { REPO_ROOT } from "../../../src/mock/homes/node/contract-files.js";
import { launchChromiumContext } from "../../helpers/chromium.js";
import { freshProject, packClientPackage } from "../../helpers/packages.js";

const MSW_VERSION = JSON.parse(await fs.readFile(path.join(REPO_ROOT, "node_modules/msw/package.json"), "utf8")).version as string;

/** The app: starts MSW's worker on the simulation's handlers, then exposes the simulation to the test. */
const APP = `import { setupWorker } from "msw/browser";
import { createSimulation } from "@avt/mock/browser";
import { ApiError, createClient, isFinalEvent, streamAnalysisEvents, unwrap } from "@avt/api-contract";

const sim = createSimulation();
const worker = setupWorker(...sim.handlers);
await worker.start({ serviceWorker: { url: "/mockServiceWorker.js" }, onUnhandledRequest: "bypass", quiet: true });
window.sim = sim;
window.api = createClient({ baseUrl: "http://localhost:4010", apiKey: sim.keys.pro, retry: false });
window.client = { ApiError, isFinalEvent, streamAnalysisEvents, unwrap };
window.ready = true;
`;

let tmp: string;
let server: http.Server;
let origin: string;
let browser: Awaited<ReturnType<typeof launchChromiumContext>> | undefined;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "mock-browser-"));
  const [tarball, client] = await Promise.all([packMockPackage(await buildMockPackage(path.join(tmp, "build")), tmp), packClientPackage(REPO_ROOT, tmp)]);
  const project = await freshProject(tmp, "browser-app", [tarball, client.file, `msw@${MSW_VERSION}`]);
  await fs.writeFile(path.join(project, "main.js"), APP);
  // The app's bundler resolves @avt/mock/browser and msw/browser from the project's own node_modules.
  const bundle = await esbuild.build({ entryPoints: [path.join(project, "main.js")], absWorkingDir: project, bundle: true, format: "esm", platform: "browser", target: "es2022", write: false, logLevel: "error" });
  const files: Record<string, [string, string | Uint8Array]> = {
    "/": ["text/html", `<!doctype html><meta charset="utf-8"><script type="module" src="/main.js"></script>`],
    "/main.js": ["text/javascript", bundle.outputFiles[0]!.contents],
    "/mockServiceWorker.js": ["text/javascript", await fs.readFile(path.join(project, "node_modules/msw/lib/mockServiceWorker.js"))],
  };
  server = http.createServer((req, res) => {
    const file = files[req.url ?? ""];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { "Content-Type": file[0] }).end(file[1]);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromiumContext();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  if (server) await new Promise((r) => server.close(r));
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

/** A new tab on the app, once its worker has started; the page errors it reports are collected. */
async function openApp() {
  const page = await browser!.context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(origin);
  await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true, undefined, { timeout: 60_000 });
  return { page, errors };
}

describe("@avt/mock/browser through MSW's service worker in Chromium", () => {
  it("lists, creates, uploads a File and follows the event stream to completion", { timeout: 120_000 }, async () => {
    const { page, errors } = await openApp();

    const result = await page.evaluate(async () => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const sim = (window as any).sim;
      const base = "http://localhost:4010";
      const key = { "X-API-Key": sim.keys.pro as string };
      const list = await fetch(`${base}/v1/analyses?limit=3`, { headers: key });
      const listed = (await list.json()) as { data: unknown[] };
      // Keyed: the body is hashed for the key's fingerprint, and the same request again is the remembered answer.
      const create = () =>
        fetch(`${base}/v1/analyses`, {
          method: "POST",
          headers: { ...key, "Content-Type": "application/json", "Idempotency-Key": "browser-create-1" },
          body: JSON.stringify({ media_url: "https://media.example.com/calls/q4-review.mp3", media_type: "audio" }),
        });
      const created = await create();
      const analysis = (await created.json()) as { id: string; status: string };
      const again = await create();
      const replayed = [again.status, again.headers.get("Idempotent-Replayed"), ((await again.json()) as { id: string }).id === analysis.id];
      const form = new FormData();
      form.append("file", new File([new Uint8Array([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 0])], "call.mp3", { type: "audio/mpeg" }));
      form.append("title", "Uploaded from the browser");
      const uploaded = await fetch(`${base}/v1/analyses/upload`, { method: "POST", headers: key, body: form });
      const upload = (await uploaded.json()) as { id: string; title: string; media_type: string };

      const stream = await fetch(`${base}/v1/analysis/${upload.id}/stream`, { headers: key });
      const reader = stream.body!.getReader();
      const decoder = new TextDecoder();
      let text = "";
      let advanced = false;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        // The stream is open and has said where the analysis is: now the clock moves it on to completion.
        if (!advanced && /\nevent: /.test(`\n${text}`)) {
          advanced = true;
          await sim.clock.advance(300_000);
        }
      }
      const events = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
      const statuses = [...text.matchAll(/^data: (.+)$/gm)].map((m) => (JSON.parse(m[1]!) as { status?: string }).status).filter(Boolean);
      return {
        list: [list.status, list.headers.get("X-RateLimit-Limit"), Array.isArray(listed.data)],
        created: [created.status, analysis.status],
        replayed,
        upload: [uploaded.status, upload.title, upload.media_type],
        stream: [stream.status, stream.headers.get("Content-Type")],
        events,
        statuses,
        controlled: navigator.serviceWorker.controller !== null,
      };
    });

    expect(errors).toEqual([]);
    expect(result.controlled).toBe(true);
    expect(result.list).toEqual([200, expect.stringMatching(/^\d+$/), true]);
    expect(result.created).toEqual([202, "queued"]);
    expect(result.replayed).toEqual([202, "true", true]);
    expect(result.upload).toEqual([202, "Uploaded from the browser", "audio"]);
    expect(result.stream[0]).toBe(200);
    expect(result.stream[1]).toMatch(/^text\/event-stream/);
    expect(result.events.length).toBeGreaterThan(1);
    expect(result.statuses.at(-1)).toBe("completed");
  });
  it("a fault rule's 429 reaches the page as a 429, once; the paused clock moves an analysis only when advanced", { timeout: 120_000 }, async () => {
    const { page, errors } = await openApp();
    const result = await page.evaluate(async () => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const sim = (window as any).sim;
      const base = "http://localhost:4010";
      const key = { "X-API-Key": sim.keys.pro as string };
      const create = (idempotencyKey: string) =>
        fetch(`${base}/v1/analyses`, {
          method: "POST",
          headers: { ...key, "Content-Type": "application/json", "Idempotency-Key": idempotencyKey },
          body: JSON.stringify({ media_url: "https://media.example.com/calls/q4-review.mp3", media_type: "audio" }),
        });
      await sim.faults.add({ operationId: "createAnalysis", status: 429, times: 1 });
      const limited = await create("browser-limited-1");
      const limitedBody = (await limited.json()) as { error?: string };
      const after = await create("browser-limited-2");
      const { id } = (await after.json()) as { id: string };
      const status = async () => ((await (await fetch(`${base}/v1/analyses/${id}`, { headers: key })).json()) as { status: string }).status;
      const paused = ((await sim.clock.pause()) as { paused: boolean }).paused;
      const before = await status();
      await sim.clock.advance(120_000);
      return { limited: [limited.status, limitedBody.error, limited.headers.get("Retry-After") !== null], after: after.status, paused, statuses: [before, await status()] };
    });
    expect(errors).toEqual([]);
    expect(result.limited).toEqual([429, expect.stringMatching(/^(rate|daily)_limit_exceeded$/), true]);
    expect(result.after).toBe(202);
    expect(result.paused).toBe(true);
    expect(result.statuses).toEqual(["queued", "completed"]);
  });
  it("the typed client (@avt/api-contract) on the page's fetch: a keyed POST and its replay, a fault's 429, the event stream", { timeout: 120_000 }, async () => {
    const { page, errors } = await openApp();
    const result = await page.evaluate(async () => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const { sim, api, client } = window as any;
      const body = { media_url: "https://media.example.com/calls/q4-review.mp3", media_type: "audio" };
      const create = () => api.POST("/v1/analyses", { body, headers: { "Idempotency-Key": "browser-typed-1" } });
      const first = await create();
      const again = await create();
      await sim.faults.add({ operationId: "createAnalysis", status: 429, times: 1 });
      const limited = await client.unwrap(api.POST("/v1/analyses", { body })).then(() => null, (e: { name: string; status: number; kind: string }) => e);
      const kinds: string[] = [];
      let final = false;
      for await (const event of client.streamAnalysisEvents(api, first.data.id)) {
        if (kinds.length === 0) await sim.clock.advance(120_000);
        kinds.push(event.event);
        final = client.isFinalEvent(event);
      }
      return {
        created: [first.response.status, again.response.status, again.response.headers.get("Idempotent-Replayed"), again.data.id === first.data.id],
        limited: [limited instanceof client.ApiError, limited?.name, limited?.status, limited?.kind],
        stream: [kinds.length > 1, kinds.at(-1), final],
      };
    });
    expect(errors).toEqual([]);
    expect(result.created).toEqual([202, 202, "true", true]);
    expect(result.limited).toEqual([true, "RateLimitError", 429, "rate_limited"]);
    expect(result.stream).toEqual([true, "completed", true]);
  });
});
