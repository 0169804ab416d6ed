// The mock package (scripts/publish/build-packages.ts), as a user meets it: built and packed, installed with
// `npm install <tarball>` into fresh projects outside the repository, then
//   - its runtime tree: no native module, no install script, none of the optional peers;
//   - `npx avt-mock --port P` serves the README's curl flow, and `npx avt-verify` checks it;
//   - `--help` lists npm start's flags; `--state` without better-sqlite3 says what to install;
//   - a vitest project with happy-dom tests against createSimulation() with no port opened, and a keyed POST and
//     its replay, a fault rule's 429, the event stream and the clock under vitest's jsdom, happy-dom and node;
//   - a TypeScript project type-checks against the package's declarations (tsc --noEmit), with docs/frontend.md's
//     Storybook preview (msw-storybook-addon), and a wrong call fails.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildMockPackage, contractVersion, MOCK_BIN, packMockPackage, VERIFY_BIN } from "../../../scripts/publish/build-packages.js";
import { REPO_ROOT } from "../../../src/mock/homes/node/contract-files.js";
import { NPM_START_URL, runnableBlocks } from "../../helpers/doc-blocks.js";
import { runShellBlock } from "../../helpers/doc-shell.js";
import { expectLeanTree, freshProject, NPM_ENV, run } from "../../helpers/packages.js";

let tmp: string;
let tarball: string;
let project: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "mock-package-"));
  const dir = await buildMockPackage(path.join(tmp, "build"));
  tarball = await packMockPackage(dir, tmp);
  project = await freshProject(tmp, "app", [tarball]);
}, 300_000);
afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

const npx = (project: string, args: string[]) => run("npx", ["--no-install", ...args], { cwd: project, env: NPM_ENV, maxBuffer: 1 << 24 });

/** Starts `npx avt-mock` on a free port; resolves with its URL once it says it is ready. */
function startBin(cwd: string, extra = ["--quiet"]): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const child = spawn("npx", ["--no-install", MOCK_BIN, "--port", "0", ...extra], { cwd, env: NPM_ENV, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let out = "";
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (b: Buffer) => {
      out += b.toString();
      const m = /API\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve({ url: m[1]!, child, output: () => out });
    });
    child.stderr!.on("data", (b: Buffer) => (out += b.toString()));
    child.once("exit", (code) => reject(new Error(`${MOCK_BIN} exited ${code}: ${out}`)));
  });
}

const VITEST_VERSION = JSON.parse(await fs.readFile(path.join(REPO_ROOT, "node_modules/vitest/package.json"), "utf8")).version as string;
/** happy-dom's current major (it runs on Node 20). */
const HAPPY_DOM = "happy-dom@20";

/** A component test a frontend team writes: a DOM widget over the simulation's fetch, no server. */
const COMPONENT_TEST = `import net from "node:net";
import { afterEach, expect, it, vi } from "vitest";
import { createSimulation } from "@avt/mock";

/** The component: shows an analysis's status, and its transcript once completed. */
async function renderAnalysis(root, fetch, base, key, id) {
  const res = await fetch(base + "/v1/analyses/" + id, { headers: { "X-API-Key": key } });
  if (!res.ok) return void (root.innerHTML = '<p role="alert">' + res.status + "</p>");
  const analysis = await res.json();
  root.innerHTML = '<p class="status">' + analysis.status + "</p>";
  if (analysis.status !== "completed") return;
  const transcript = await (await fetch(base + "/v1/analyses/" + id + "/transcript", { headers: { "X-API-Key": key } })).json();
  root.insertAdjacentHTML("beforeend", "<ol>" + transcript.segments.map((s) => "<li>" + s.text + "</li>").join("") + "</ol>");
}

const sim = createSimulation();
afterEach(() => sim.reset());

it("shows an analysis as it completes, a fault, and nothing after reset; no port opened", async () => {
  const listen = vi.spyOn(net.Server.prototype, "listen");
  const root = document.createElement("div");
  document.body.append(root);
  const created = await sim.fetch(sim.baseUrl + "/v1/analyses", {
    method: "POST",
    headers: { "X-API-Key": sim.keys.pro, "Content-Type": "application/json" },
    body: JSON.stringify({ media_url: "https://media.example.com/calls/q4-review.mp3", media_type: "audio" }),
  });
  const { id } = await created.json();
  await renderAnalysis(root, sim.fetch, sim.baseUrl, sim.keys.pro, id);
  expect(root.querySelector(".status").textContent).toBe("queued");
  await sim.clock.advance(120000);
  await renderAnalysis(root, sim.fetch, sim.baseUrl, sim.keys.pro, id);
  expect(root.querySelector(".status").textContent).toBe("completed");
  expect(root.querySelectorAll("li").length).toBeGreaterThan(0);
  await sim.faults.add({ operationId: "getAnalysis", status: 503, times: 1 });
  await renderAnalysis(root, sim.fetch, sim.baseUrl, sim.keys.pro, id);
  expect(root.querySelector('[role="alert"]').textContent).toBe("503");
  await sim.reset();
  await renderAnalysis(root, sim.fetch, sim.baseUrl, sim.keys.pro, id);
  expect(root.querySelector('[role="alert"]').textContent).toBe("404");
  expect(listen).not.toHaveBeenCalled();
});
`;

/**
 * The writes and controls a component test leans on, run as written under each environment: a keyed POST (its
 * body hashed for the key's fingerprint) and its replay, a fault rule's 429, the event stream and the clock.
 */
const WRITES_TEST = `import { expect, it } from "vitest";
import { createSimulation } from "@avt/mock";

it("writes, replays, a fault rule's 429, the event stream and the clock", async () => {
  const sim = createSimulation();
  const headers = { "X-API-Key": sim.keys.pro, "Content-Type": "application/json", "Idempotency-Key": "k-1" };
  const body = JSON.stringify({ media_url: "https://media.example.com/calls/q4-review.mp3", media_type: "audio" });
  const created = await sim.fetch(sim.baseUrl + "/v1/analyses", { method: "POST", headers, body });
  expect(created.status).toBe(202);
  const { id } = await created.json();
  const again = await sim.fetch(sim.baseUrl + "/v1/analyses", { method: "POST", headers, body });
  expect([again.status, again.headers.get("Idempotent-Replayed"), (await again.json()).id]).toEqual([202, "true", id]);
  await sim.faults.add({ operationId: "createAnalysis", status: 429, times: 1 });
  const limited = await sim.fetch(sim.baseUrl + "/v1/analyses", { method: "POST", headers: { ...headers, "Idempotency-Key": "k-2" }, body });
  expect(limited.status).toBe(429);
  const stream = await sim.fetch(sim.baseUrl + "/v1/analysis/" + id + "/stream", { headers: { "X-API-Key": sim.keys.pro } });
  const reader = stream.body.getReader();
  let text = new TextDecoder().decode((await reader.read()).value);
  await sim.clock.advance(120000);
  for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
  expect(text).toMatch(/^event: completed$/m);
  expect(typeof document).toBe(process.env.DOM_EXPECTED);
  await sim.close();
});
`;
/** jsdom's current major (vitest's "jsdom" environment). */
const JSDOM = "jsdom@26";

const TYPESCRIPT_VERSION = JSON.parse(await fs.readFile(path.join(REPO_ROOT, "node_modules/typescript/package.json"), "utf8")).version as string;
const MSW_VERSION = JSON.parse(await fs.readFile(path.join(REPO_ROOT, "node_modules/msw/package.json"), "utf8")).version as string;

/** A TypeScript user's test set-up: every export, typed. The @ts-expect-error lines fail if the types were `any`. */
const TYPED_APP = `import { createSimulation, type Simulation } from "@avt/mock";
import { createSimulation as createBrowserSimulation } from "@avt/mock/browser";
import { simulationHandlers } from "@avt/mock/msw";
import { createFactories } from "@avt/mock/factories";
import { setupServer } from "msw/node";

const sim: Simulation = createSimulation({ clock: "paused", stepMs: 1000 });
export const server = setupServer(...sim.handlers, ...simulationHandlers(sim));
export const inBrowser: Simulation = createBrowserSimulation({ baseUrl: "http://localhost:4010" });

export async function flow(): Promise<string> {
  const state = await sim.clock.advance(120_000);
  const rule = await sim.faults.add({ operationId: "getAnalysis", status: 503, times: 1 });
  await sim.reset();
  const res: Response = await sim.fetch(sim.baseUrl + "/v1/analyses", { headers: { "X-API-Key": sim.keys.pro ?? "" } });
  const { build } = createFactories({ seed: 7 });
  const analysis = build.analysis({ status: "completed" });
  const three = build.analysisList(3);
  // @ts-expect-error advance takes milliseconds
  await sim.clock.advance("2m");
  // @ts-expect-error not a status an Analysis has
  build.analysis({ status: "finished" });
  return [state, rule, res.status, analysis.id, three.length].join();
}
`;

/** docs/frontend.md's Storybook preview, as written (the ts block after its type-checked marker). */
async function storybookPreview(): Promise<string> {
  const doc = await fs.readFile(path.join(REPO_ROOT, "docs/frontend.md"), "utf8");
  const block = /<!-- type-checked: test\/scripts\/packages\/mock-package\.test\.ts -->\n```ts\n([\s\S]*?)```/.exec(doc);
  expect(block, "docs/frontend.md has the Storybook preview block").not.toBeNull();
  return block![1]!;
}
const MSW_STORYBOOK_ADDON = "msw-storybook-addon@2.0.7";

describe("the mock package", () => {
  it("installs with what its code loads: no native module, no install script; version is the contract's", async () => {
    const names = await expectLeanTree(project, "@avt/mock", ["better-sqlite3", "msw", "@stoplight/prism-http", "ws", "@scarf/scarf"]);
    expect(names).toContain("swagger-ui-dist");
    const manifest = JSON.parse(await fs.readFile(path.join(project, "node_modules/@avt/mock/package.json"), "utf8")) as { version: string };
    expect(manifest.version).toBe(await contractVersion());
  });

  it("npx avt-mock serves the README's curl flow, and npx avt-verify checks it", { timeout: 120_000 }, async () => {
    const { url, child } = await startBin(project);
    try {
      const [flow] = runnableBlocks(REPO_ROOT, "README.md").filter((b) => b.lang === "sh" && b.code.includes("/v1/analyses"));
      const steps = await runShellBlock(flow!.code.split(NPM_START_URL).join(url), { cwd: project });
      expect(steps.map((s) => `${s.method} ${s.status}`)).toEqual(["POST 202", "GET 200", "GET 200", "GET 401"]);
      const verified = await npx(project, [VERIFY_BIN, "--target", url, "--api-key", "pk_test_demo_pro", "--operations", "listAnalyses"]);
      expect(verified.stdout).toMatch(/0 distinct violation/);
      expect((await fetch(`${url}/swagger-ui/swagger-ui.css`)).status).toBe(200);
    } finally {
      process.kill(-child.pid!, "SIGTERM");
    }
  });

  it("speaks as installed: --help, the banner and `npx avt-mock token` name npx avt-mock, and every doc they name is in the package", { timeout: 120_000 }, async () => {
    const help = (await npx(project, [MOCK_BIN, "--help"])).stdout;
    const { url, child, output } = await startBin(project, []);
    try {
      await expect.poll(output, { timeout: 30_000 }).toMatch(/Ctrl-C stops it[^\n]*\n/);
    } finally {
      process.kill(-child.pid!, "SIGTERM");
    }
    const banner = output();
    expect(help).toMatch(/^npx avt-mock \[options\]/);
    expect(help).toContain("npx avt-mock token");
    expect(banner).toContain("npx avt-mock token --plan pro");
    expect(banner).toContain("npx avt-mock --help");
    for (const text of [help, banner]) {
      expect(text).not.toMatch(/npm (start|run)/);
      const docs = [...text.matchAll(/(?:^|[\s(])((?:node_modules\/@avt\/mock\/)?docs\/[\w./-]+\w)/g)].map((m) => m[1]!);
      expect(docs.length).toBeGreaterThan(0);
      for (const doc of docs) {
        expect(doc).toMatch(/^node_modules\/@avt\/mock\/docs\//);
        await fs.stat(path.join(project, doc)); // shipped: the path works from the project
      }
    }
    const token = await npx(project, [MOCK_BIN, "token", "--plan", "free"]);
    expect(token.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const res = await fetch(`${url}/v1/analyses`, { headers: { Authorization: `Bearer ${token.stdout.trim()}` } }).catch(() => null);
    expect(res).toBeNull(); // the server is stopped: the token was minted offline, by the package alone
    expect((await npx(project, [MOCK_BIN, "token", "--help"])).stdout).toMatch(/^npx avt-mock token \[options\]/);
    // docs/frontend.md's install block, as written.
    const doc = await fs.readFile(path.join(REPO_ROOT, "docs/frontend.md"), "utf8");
    const line = /^npx (avt-mock token [^#\n]*?)\s+#/m.exec(doc);
    expect(line, "docs/frontend.md names npx avt-mock token").not.toBeNull();
    expect((await npx(project, line![1]!.split(/\s+/))).stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
  });

  it("--help lists npm start's flags; --state without better-sqlite3 says what to install", { timeout: 60_000 }, async () => {
    const help = await npx(project, [MOCK_BIN, "--help"]);
    for (const flag of ["--port", "--host", "--state", "--fixtures", "--stateless", "--upstream", "--latency"]) expect(help.stdout).toContain(flag);
    const state = await npx(project, [MOCK_BIN, "--port", "0", "--state", path.join(tmp, "state.db")]).then(
      () => ({ stderr: "started" }),
      (e: { stderr: string }) => e,
    );
    expect(state.stderr).toContain("npm install better-sqlite3");
    await expect(fs.stat(path.join(tmp, "state.db"))).rejects.toThrow();
  });

  it("runs in a vitest + happy-dom project against createSimulation()", { timeout: 240_000 }, async () => {
    const app = await freshProject(tmp, "component-tests", [tarball, `vitest@${VITEST_VERSION}`, HAPPY_DOM]);
    await fs.writeFile(path.join(app, "vitest.config.js"), `export default { test: { environment: "happy-dom" } };\n`);
    await fs.writeFile(path.join(app, "analysis.test.js"), COMPONENT_TEST);
    const stdout = (await npx(app, ["vitest", "run", "--reporter=verbose"])).stdout.replace(/\x1b\[[0-9;]*m/g, "");
    expect(stdout).toMatch(/✓ .*shows an analysis as it completes/);
    expect(stdout).toMatch(/1 passed/);
    expect(stdout).not.toMatch(/fail/i);
  });

  it("answers writes, a fault rule, the event stream and the clock under vitest's jsdom, happy-dom and node environments", { timeout: 300_000 }, async () => {
    const app = await freshProject(tmp, "environments", [tarball, `vitest@${VITEST_VERSION}`, HAPPY_DOM, JSDOM]);
    await fs.writeFile(path.join(app, "writes.test.js"), WRITES_TEST);
    for (const environment of ["jsdom", "happy-dom", "node"]) {
      const env = { ...NPM_ENV, DOM_EXPECTED: environment === "node" ? "undefined" : "object" };
      const out = await run("npx", ["--no-install", "vitest", "run", "--environment", environment, "--reporter=verbose"], { cwd: app, env, maxBuffer: 1 << 24 }).catch(
        (e: { stdout: string; stderr: string }) => ({ stdout: e.stdout + e.stderr }),
      );
      const stdout = out.stdout.replace(/\x1b\[[0-9;]*m/g, "");
      expect(stdout, environment).toMatch(/✓ .*writes, replays, a fault rule's 429/);
      expect(stdout, environment).toMatch(/1 passed/);
    }
  });

  it("type-checks a TypeScript project against its declarations (tsc --noEmit), docs/frontend.md's Storybook preview included, and refuses a wrong call", { timeout: 240_000 }, async () => {
    const app = await freshProject(tmp, "typed-app", [tarball, `typescript@${TYPESCRIPT_VERSION}`, `msw@${MSW_VERSION}`, MSW_STORYBOOK_ADDON]);
    const compilerOptions = { strict: true, target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2022", "DOM", "DOM.Iterable"], skipLibCheck: true, noEmit: true };
    await fs.writeFile(path.join(app, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["app.ts", ".storybook/preview.ts"] }));
    await fs.writeFile(path.join(app, "app.ts"), TYPED_APP);
    await fs.mkdir(path.join(app, ".storybook"));
    await fs.writeFile(path.join(app, ".storybook/preview.ts"), await storybookPreview());
    await npx(app, ["tsc", "-p", "."]);
    // Without its expectation, the wrong call is an error: the declarations type the controls and the factories.
    await fs.writeFile(path.join(app, "app.ts"), TYPED_APP.replace("// @ts-expect-error advance takes milliseconds\n", ""));
    const failed = await npx(app, ["tsc", "-p", "."]).then(
      () => ({ stdout: "passed" }),
      (e: { stdout: string }) => e,
    );
    expect(failed.stdout).toMatch(/app\.ts\(\d+,\d+\): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'/);
  });
});
