// Every guide is tested as written: each block marked `<!-- runnable -->` in README.md and docs/*.md runs against
// one stateful mock on a free port (sh blocks through test/helpers/doc-shell.ts, ts blocks with tsx, python blocks
// with python3 and the package's src/ on the path). A block that stops working fails here, naming its file and line.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MOCK_EXPORTS } from "../../scripts/publish/build-packages.js";
import { REPO_ROOT } from "../../src/mock/homes/node/contract-files.js";
import { guideFiles, NPM_START_URL, runnableBlocks, type DocBlock } from "../helpers/doc-blocks.js";
import { runShellBlock } from "../helpers/doc-shell.js";
import { startGateway, type TestGateway } from "../helpers/mock.js";

const DEMO_KEY = "pk_test_demo_pro";

/** The packages' entry points (the client's and the mock's), as a consumer imports them, mapped to their sources (no build needed). */
function packageImports(): Array<[string, string]> {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8"));
  const client = Object.entries(pkg.exports as Record<string, { import?: string }>)
    .filter(([, v]) => typeof v === "object" && v.import?.endsWith(".js"))
    .map(([sub, v]): [string, string] => [
      sub === "." ? pkg.name : `${pkg.name}/${sub.slice(2)}`,
      path.join(REPO_ROOT, v.import!.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts")),
    ]);
  const mock = Object.entries(MOCK_EXPORTS).map(([name, src]): [string, string] => [name, path.join(REPO_ROOT, src)]);
  return [...client, ...mock];
}

function run(cmd: string, args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

let g: TestGateway;
let tmp: string;
beforeAll(async () => {
  // Real timers at a fast pace: streams and lifecycles end on their own, as with `npm start`.
  g = await startGateway({ stepMs: 60 });
  // Inside the repository's node_modules, so a block's other imports (msw/node, as a reader installs it) resolve.
  const cache = path.join(REPO_ROOT, "node_modules/.cache");
  fs.mkdirSync(cache, { recursive: true });
  tmp = fs.mkdtempSync(path.join(cache, "guides-"));
});
afterAll(async () => {
  await g?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function runBlock(b: DocBlock): Promise<void> {
  const code = b.code.split(NPM_START_URL).join(g.url);
  const env = { BASE: g.url, API_KEY: DEMO_KEY, ANALYSIS_API_KEY: DEMO_KEY, ANALYSIS_API_BASE_URL: g.url, PYTHONPATH: path.join(REPO_ROOT, "python", "src"), PYTHONDONTWRITEBYTECODE: "1" };
  const where = `${b.file}:${b.line}`;
  if (b.lang === "sh" || b.lang === "bash") {
    await runShellBlock(code, { cwd: REPO_ROOT, env });
    return;
  }
  if (b.lang === "ts" || b.lang === "typescript") {
    let source = code;
    for (const [name, file] of packageImports()) source = source.split(`"${name}"`).join(JSON.stringify(file));
    // .mts: an ES module wherever it is written, so top-level await works as in the package's own (type: module) code
    const file = path.join(tmp, `block-${path.basename(b.file, ".md")}-${b.line}.mts`);
    fs.writeFileSync(file, source);
    const r = await run(path.join(REPO_ROOT, "node_modules", ".bin", "tsx"), [file], env);
    expect(r.code, `${where} exited ${r.code}:\n${r.output.slice(-2000)}`).toBe(0);
    return;
  }
  if (b.lang === "python") {
    // A guide shows no deprecated call (issue 49: README's `page["data"]` warned): a DeprecationWarning fails it.
    const r = await run(process.env.PYTHON ?? "python3", ["-W", "error::DeprecationWarning", "-c", code], env);
    expect(r.code, `${where} exited ${r.code}:\n${r.output.slice(-2000)}`).toBe(0);
    return;
  }
  throw new Error(`${where}: no runner for \`${b.lang}\` blocks (sh, ts, python)`);
}

const blocks = guideFiles(REPO_ROOT).flatMap((f) => runnableBlocks(REPO_ROOT, f));

describe("every guide's runnable blocks, as written", () => {
  it("the guides mark blocks to run (README and each reader's guide)", () => {
    const files = new Set(blocks.map((b) => b.file));
    for (const guide of ["docs/frontend.md", "docs/backend.md", "docs/typescript.md", "docs/python.md", "docs/contract.md"]) {
      expect(files.has(guide), `${guide} has a <!-- runnable --> block`).toBe(true);
    }
  });
  for (const b of blocks) {
    it(`${b.file}:${b.line} (${b.lang})`, () => runBlock(b), 180_000);
  }
});

describe("the guide runner itself", () => {
  it("fails a block that drifted from the mock, naming the line", async () => {
    const drifted = `KEY="X-API-Key: ${DEMO_KEY}"\ncurl -s ${g.url}/v1/analyzes -H "$KEY"`;
    await expect(runShellBlock(drifted, { cwd: REPO_ROOT })).rejects.toThrow(/v1\/analyzes.*answered 404/);
  });
  it("holds a line to the status its `# expect` comment states", async () => {
    const block = `curl -s ${g.url}/v1/analyses # expect 401`;
    await expect(runShellBlock(block, { cwd: REPO_ROOT })).resolves.toHaveLength(1);
    await expect(runShellBlock(`curl -s ${g.url}/v1/analyses # expect 200`, { cwd: REPO_ROOT })).rejects.toThrow(/answered 401, the guide says 200/);
  });
  it("refuses a command it cannot run faithfully", async () => {
    await expect(runShellBlock("rm -rf /tmp/x", { cwd: REPO_ROOT })).rejects.toThrow(/runs only variables, curl and npm run/);
  });
});
