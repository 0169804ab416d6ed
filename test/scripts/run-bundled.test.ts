// `npm start` runs scripts/mock/start.ts as one esbuild bundle with plain node (scripts/mock/run-bundled.mjs), and regenerates
// a stale generated/ through scripts/contract/generate.ts in a child process. Checked in a copy of the repository (its own
// node_modules/.cache, the packages linked), so nothing here touches this checkout: the bundle is made once and
// reused, made again when a source changes, and paths the sources compute from `import.meta.url` are theirs.
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/mock/homes/node/contract-files.js";

const run = promisify(execFile);
let copy: string;

beforeAll(() => {
  copy = fs.mkdtempSync(path.join(os.tmpdir(), "run-bundled-"));
  for (const entry of ["package.json", "package-lock.json", "tsconfig.json", "redocly.yaml", "scripts", "src", "spec", "generated"]) {
    fs.cpSync(path.join(REPO_ROOT, entry), path.join(copy, entry), { recursive: true });
  }
  // Every package linked, but a node_modules/.cache of its own.
  fs.mkdirSync(path.join(copy, "node_modules"));
  for (const name of fs.readdirSync(path.join(REPO_ROOT, "node_modules"))) {
    if (name !== ".cache") fs.symlinkSync(path.join(REPO_ROOT, "node_modules", name), path.join(copy, "node_modules", name));
  }
});
afterAll(() => fs.rmSync(copy, { recursive: true, force: true }));

const bundles = () => path.join(copy, "node_modules/.cache/avt-bundles");
const help = () => run(process.execPath, ["scripts/mock/run-bundled.mjs", "scripts/mock/start.ts", "--help"], { cwd: copy }).then((r) => r.stdout);
const bundleFiles = () => fs.readdirSync(bundles()).filter((f) => f.endsWith(".mjs"));

/** Starts the copy's mock the way `npm start` does; resolves with its URL, its output so far and a stop function. */
async function start(args: string[]) {
  const child = spawn(process.execPath, ["scripts/mock/run-bundled.mjs", "scripts/mock/start.ts", "--quiet", ...args], {
    cwd: copy,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c));
  child.stderr.on("data", (c: Buffer) => (out += c));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", () => {
      const m = /API\s+(http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then(() => reject(new Error(`exited before listening:\n${out}`)));
  });
  return { url, output: () => out, stop: () => (child.kill("SIGTERM"), exited) };
}

describe("scripts/mock/run-bundled.mjs", () => {
  it("bundles once, reuses the bundle while nothing changes, and bundles again when a source changes", async () => {
    expect(await help()).toContain("npm start [-- options]");
    const first = bundleFiles();
    expect(first).toHaveLength(1);
    const made = fs.statSync(path.join(bundles(), first[0]!)).mtimeMs;
    expect(await help()).toContain("npm start [-- options]");
    expect(bundleFiles()).toEqual(first);
    expect(fs.statSync(path.join(bundles(), first[0]!)).mtimeMs).toBe(made);

    const script = path.join(copy, "scripts/mock/start.ts");
    fs.writeFileSync(script, fs.readFileSync(script, "utf8").replace("Start the mock gateway.", "Start the edited mock gateway."));
    expect(await help()).toContain("Start the edited mock gateway.");
    expect(bundleFiles()).not.toEqual(first); // and the old bundle is gone
    expect(bundleFiles()).toHaveLength(1);
  }, 60_000);

  it("runs the sources' own paths: the copy serves the copy's generated/openapi.yaml", async () => {
    const yaml = path.join(copy, "generated/openapi.yaml");
    const original = fs.readFileSync(yaml);
    fs.appendFileSync(yaml, "# this copy\n");
    const s = await start(["--no-generate"]);
    try {
      const served = Buffer.from(await (await fetch(`${s.url}/openapi.yaml`)).arrayBuffer());
      expect(served.equals(fs.readFileSync(yaml))).toBe(true);
    } finally {
      await s.stop();
      fs.writeFileSync(yaml, original);
    }
  }, 60_000);
});

describe("npm start with a stale generated/", () => {
  it("regenerates it through scripts/contract/generate.ts in a child process, then serves it", async () => {
    const json = path.join(copy, "generated/openapi.json");
    const fresh = fs.readFileSync(json);
    fs.writeFileSync(json, fresh.toString("utf8").replace('"openapi"', '"openapi" ')); // same JSON, other bytes
    const s = await start([]);
    try {
      expect(s.output()).toMatch(/Regenerated generated\/openapi\.json from spec\/\./);
      expect(fs.readFileSync(json).equals(fresh)).toBe(true);
    } finally {
      await s.stop();
    }
  }, 120_000);

  it("keeps serving the existing generated/ when generating fails, saying where the contract is broken", async () => {
    const file = path.join(copy, "spec/paths/v1_speakers.yaml");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("schemas/SpeakerList.yaml", "schemas/SpeakerLsit.yaml"));
    const s = await start([]);
    try {
      expect(s.output()).toContain("generate failed, so the mock serves the existing generated/");
      expect(s.output()).toMatch(/spec\/paths\/v1_speakers\.yaml:\d+/);
      expect((await fetch(`${s.url}/health`)).status).toBe(200);
    } finally {
      await s.stop();
    }
  }, 120_000);
});
