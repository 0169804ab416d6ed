// The Python client's own tests (python/tests, unittest from the standard library), run by `npm test` against
// the mock gateway on a free port: python3 is started asynchronously, so the in-process gateway keeps answering.
// The run fails when Python fails, and also when any Python test was skipped (the integration tests skip without
// the mock's URL, which only this runner gives them); Python's output is shown on failure.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/paths.js";
import { freshKey, startGateway, type TestGateway } from "../helpers/mock.js";

interface Run {
  code: number | null;
  output: string;
}

/** Runs python3 (or `$PYTHON`) with `args`, the package's src/ on the path and `env` added; resolves with its exit code and output. */
function python(args: string[], env: Record<string, string> = {}, timeoutMs = 240_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.env.PYTHON ?? "python3", args, {
      cwd: ROOT,
      env: { ...process.env, PYTHONPATH: path.join(ROOT, "python", "src"), PYTHONDONTWRITEBYTECODE: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c));
    child.stderr.on("data", (c: Buffer) => (output += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

let g: TestGateway;
// Keys of their own: the suite's requests are not counted against the demo keys, and one allows 1 request per minute.
const key = freshKey("business");
const limited = freshKey("pro", { rate_limit_rpm: 1 });
beforeAll(async () => {
  g = await startGateway({ extraKeys: [key, limited] });
});
afterAll(() => g.close());

describe("the Python client (python/tests)", () => {
  it("passes its unittest suite against the mock, nothing skipped", async () => {
    const run = await python(["-m", "unittest", "discover", "-s", "python/tests", "-t", "python/tests", "-v"], {
      ANALYSIS_API_TEST_URL: g.url,
      ANALYSIS_API_TEST_KEY: key.key,
      ANALYSIS_API_TEST_LIMITED_KEY: limited.key,
    });
    expect(run.code, run.output).toBe(0);
    expect(run.output, "a Python test was skipped").not.toMatch(/\.\.\. skipped|skipped=\d/);
    expect(run.output).toMatch(/^Ran [1-9]\d+ tests/m);
  }, 300_000);
});

describe("the package's public types (pyright --verifytypes)", () => {
  it("are complete: every exported symbol has a known type (issue 34: 99.3%, ApiStatusError.body unknown)", async () => {
    const src = path.join(ROOT, "python", "src");
    const run = await new Promise<Run>((resolve, reject) => {
      const child = spawn(path.join(ROOT, "node_modules", ".bin", "pyright"), ["--verifytypes", "analysis_api", "--ignoreexternal", "--outputjson"], {
        cwd: src,
        env: { ...process.env, PYTHONPATH: src },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (c: Buffer) => (output += c));
      child.stderr.on("data", (c: Buffer) => (output += c));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, output }));
    });
    const report = JSON.parse(run.output) as { typeCompleteness: { completenessScore: number; exportedSymbolCounts: { withKnownType: number } }; generalDiagnostics: { message: string }[] };
    expect(report.generalDiagnostics.map((d) => d.message)).toEqual([]);
    expect(report.typeCompleteness.exportedSymbolCounts.withKnownType).toBeGreaterThan(100);
    expect(report.typeCompleteness.completenessScore, run.output.slice(0, 4000)).toBe(1);
  }, 120_000);
});

/** Every ```python block of a Markdown file. */
function pythonBlocks(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  return [...text.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** Runs `command` with `args` in `cwd`; resolves with its exit code and output. */
function run(command: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1", MYPYPATH: path.join(ROOT, "python", "src") }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c));
    child.stderr.on("data", (c: Buffer) => (output += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("user scripts type-check under pyright --strict and mypy --strict (issue 34)", () => {
  it("docs/python.md's and python/README.md's examples, python/examples and tests/typing/user_script.py: no error; a planted mistake is one", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "py-strict-"));
    try {
      const scripts: Record<string, string> = {};
      for (const file of ["docs/python.md", "python/README.md"]) {
        pythonBlocks(file).forEach((code, i) => (scripts[`${path.basename(file, ".md").toLowerCase()}_${i}.py`] = code));
      }
      expect(Object.keys(scripts).length).toBeGreaterThan(5);
      scripts["consumer.py"] = fs.readFileSync(path.join(ROOT, "python/examples/consumer.py"), "utf8");
      scripts["user_script.py"] = fs.readFileSync(path.join(ROOT, "python/tests/typing/user_script.py"), "utf8");
      // The checkers must be strict and see the package: this line is exactly one error for each.
      scripts["planted.py"] = 'from analysis_api import Client\n\nClient("https://api.example.com", api_key=42)\n';
      // Issue 49: answers are models; a misspelt attribute (line 4) and a nested Optional model used unchecked (line 5) are errors.
      scripts["planted_models.py"] = 'from analysis_api import Client\n\nanalysis = Client("https://api.example.com", api_key="pk_test_x").analyses.get("anl_1")\nstatus: str = analysis.stauts\ncode: str = analysis.error.code\nright: str = analysis.status\n';
      // Issue 49: with_streaming_response's parse() is the model, sync and async; a misspelt attribute on it (lines 5, 9) is an error.
      scripts["planted_streaming.py"] = [
        "from analysis_api import AsyncClient, Client",
        "",
        'with Client("https://api.example.com", api_key="pk_test_x").with_streaming_response.analyses.get("anl_1") as response:',
        "    right: str = response.parse().status",
        "    wrong: str = response.parse().stauts",
        "",
        "async def main(client: AsyncClient) -> str:",
        '    async with client.with_streaming_response.analyses.get("anl_1") as streamed:',
        "        return (await streamed.parse()).stauts",
        "",
      ].join("\n");
      for (const [name, code] of Object.entries(scripts)) fs.writeFileSync(path.join(dir, name), code);
      const src = path.join(ROOT, "python", "src");
      fs.writeFileSync(path.join(dir, "pyrightconfig.json"), JSON.stringify({ typeCheckingMode: "strict", pythonVersion: "3.9", extraPaths: [src], include: ["."] }));
      const pyright = await run(path.join(ROOT, "node_modules", ".bin", "pyright"), ["--outputjson", "-p", "pyrightconfig.json"], dir);
      const report = JSON.parse(pyright.output) as { generalDiagnostics: { file: string; severity: string; message: string; range: { start: { line: number } } }[] };
      const errors = report.generalDiagnostics.filter((d) => d.severity === "error").map((d) => `${path.basename(d.file)}:${d.range.start.line + 1} ${d.message}`);
      expect(errors.filter((e) => !e.startsWith("planted.py:3 ") && !/^planted_models\.py:[45] /.test(e) && !/^planted_streaming\.py:[59] /.test(e)), "pyright --strict").toEqual([]);
      for (const line of [5, 9]) {
        expect(errors.filter((e) => e.startsWith(`planted_streaming.py:${line} `) && e.includes('"stauts"')), `pyright --strict misses a misspelt attribute of a streamed parse() (line ${line})`).not.toHaveLength(0);
      }
      expect(errors.filter((e) => e.startsWith("planted.py:3 ")), "pyright --strict misses the planted mistake").toHaveLength(1);
      expect(errors.filter((e) => e.startsWith("planted_models.py:4 ") && e.includes('"stauts"')), "pyright --strict misses a misspelt attribute").not.toHaveLength(0);
      expect(errors.filter((e) => e.startsWith("planted_models.py:5 ") && e.includes('"None"')), "pyright --strict misses an unchecked Optional model").not.toHaveLength(0);
      const mypy = await run("mypy", ["--strict", "--python-version", "3.9", "--no-incremental", "--cache-dir", path.join(dir, ".mypy"), ...Object.keys(scripts)], dir);
      const mypyErrors = mypy.output.split("\n").filter((l) => /: error:/.test(l));
      expect(mypyErrors.filter((l) => !l.startsWith("planted.py:3:") && !/^planted_models\.py:[45]:/.test(l) && !/^planted_streaming\.py:[59]:/.test(l)), "mypy --strict").toEqual([]);
      for (const line of [5, 9]) {
        expect(mypyErrors.filter((l) => l.startsWith(`planted_streaming.py:${line}:`) && l.includes('"stauts"')), `mypy --strict misses a misspelt attribute of a streamed parse() (line ${line})`).toHaveLength(1);
      }
      expect(mypyErrors.filter((l) => l.startsWith("planted.py:3:")), "mypy --strict misses the planted mistake").toHaveLength(1);
      expect(mypyErrors.filter((l) => l.startsWith("planted_models.py:4:") && l.includes('"stauts"')), "mypy --strict misses a misspelt attribute").toHaveLength(1);
      expect(mypyErrors.filter((l) => l.startsWith("planted_models.py:5:") && l.includes('"None"')), "mypy --strict misses an unchecked Optional model").toHaveLength(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});

/** The first ```python block under `## <heading>` of a Markdown file. */
function example(file: string, heading: string): string {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  const section = text.split(/^## /m).find((s) => s.startsWith(heading));
  const code = section && /```python\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error(`${file} has no \`\`\`python block under "## ${heading}"`);
  return code;
}

/** The address `npm start` listens on, which the examples use. */
const NPM_START_URL = "http://127.0.0.1:4010";

/** Runs an example as written against the mock, its npm start URL swapped for the test's. */
async function runExample(code: string): Promise<Run> {
  // Exactly one URL, npm start's: nothing else may be contacted, and a changed URL must not go unnoticed.
  expect(code.match(/https?:\/\/(127\.0\.0\.1|localhost)[^"\s]*/g)).toEqual([NPM_START_URL]);
  return python(["-c", code.replace(NPM_START_URL, g.url)], { ANALYSIS_API_KEY: "", ANALYSIS_API_BASE_URL: "" });
}

describe("the Python guide's examples (docs/python.md, python/README.md)", () => {
  it("docs/python.md's quick start runs as written against the mock", async () => {
    const run = await runExample(example("docs/python.md", "Quick start"));
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/^anl_\w+ (completed|processing|queued|failed|canceled) /m);
    expect(run.output).toMatch(/^(SPEAKER_\d+|None) \S/m);
    expect(run.output).toMatch(/\['path', 'analysis_id'\] is not in the expected format/);
    expect(run.output).toMatch(/^RateLimit\(limit=\d+, remaining=\d+/m);
  }, 120_000);

  it("python/README.md's quick start runs as written against the mock", async () => {
    const run = await runExample(example("python/README.md", "Quick start"));
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/^anl_\w+ (completed|processing|queued|failed|canceled)$/m);
    expect(run.output).toMatch(/^(completed|error|status)$/m);
    expect(run.output).toMatch(/^404 \S/m);
  }, 120_000);
});
