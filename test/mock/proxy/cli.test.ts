// `npm start -- --upstream URL` as a process: the flag in --help and in docs/backend.md, refused upstreams and refused
// combinations (exit 2), and a real start in front of a loopback mock whose violation lines show even with --quiet.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../src/mock/homes/node/contract-files.js";
import { startGateway, type TestGateway } from "../../helpers/mock.js";

const tsx = path.join(REPO_ROOT, "node_modules/.bin/tsx");

/** Runs start.ts; resolves at its exit, or once `until` matches its output (then it is stopped with SIGTERM). */
function run(args: string[], env: Record<string, string> = {}, until?: RegExp, then?: (out: string) => Promise<void>) {
  return new Promise<{ code: number | null; out: string }>((resolve, reject) => {
    const child = spawn(tsx, ["scripts/mock/start.ts", "--no-generate", ...args], { cwd: REPO_ROOT, env: { ...process.env, PORT: "0", MOCK_UPSTREAM: "", MOCK_QUIET: "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let acting = false;
    const onData = (c: Buffer) => {
      out += c;
      if (until && !acting && until.test(out)) {
        acting = true;
        (then ?? (async () => {}))(out).then(() => child.kill("SIGTERM"), (e: Error) => (child.kill("SIGKILL"), reject(e)));
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => resolve({ code, out }));
  });
}

describe.runIf(process.platform === "linux")("npm start -- --upstream", () => {
  let mock: TestGateway;
  beforeAll(async () => {
    mock = await startGateway();
  });
  afterAll(() => mock.close());

  it("--help lists the flag and its variable; README documents it for both teams", async () => {
    const { code, out } = await run(["--help"]);
    expect(code).toBe(0);
    expect(out).toContain("--upstream <url>");
    expect(out).toContain("MOCK_UPSTREAM");
    expect(out).toContain("/__mock/violations");
    const backend = fs.readFileSync(path.join(REPO_ROOT, "docs/backend.md"), "utf8");
    expect(backend).toContain("## Use the proxy");
    for (const text of ["npm start -- --upstream", "MOCK_UPSTREAM", "/__mock/violations", "undocumented-operation", "curl -X DELETE"]) expect(backend, text).toContain(text);
  });

  it("refuses an upstream that is not an http(s) base URL, and the mock's own settings beside it (exit 2)", async () => {
    expect(await run(["--upstream", "ftp://files.example"])).toEqual({ code: 2, out: "--upstream must be an http:// or https:// URL, not ftp://…\n" });
    expect(await run([], { MOCK_UPSTREAM: "localhost:8080" })).toEqual({ code: 2, out: "MOCK_UPSTREAM must be an http:// or https:// URL, not localhost://…\n" });
    expect(await run(["--upstream", "127.0.0.1:8080"])).toMatchObject({ code: 2, out: expect.stringMatching(/^--upstream "127\.0\.0\.1:8080" is not a URL; give the backend's base URL/) });
    expect(await run(["--upstream", "https://ops:pw@staging.example"])).toMatchObject({ code: 2, out: expect.stringMatching(/^--upstream must not carry credentials/) });
    expect(await run(["--upstream", "http://127.0.0.1:9", "--stateless"])).toEqual({
      code: 2,
      out: "--upstream (MOCK_UPSTREAM) forwards every request to the backend, which answers it: --stateless (MOCK_STATELESS) has no meaning then. Use one or the other.\n",
    });
    expect(await run(["--state", "kept.json"], { MOCK_UPSTREAM: "http://127.0.0.1:9" })).toMatchObject({ code: 2, out: expect.stringContaining("--state (MOCK_STATE_FILE) has no meaning then") });
  });

  it("forwards to the upstream, prints where the violations are, and with --quiet still writes each violation on one line", async () => {
    let proxied = "";
    const { code, out } = await run(["--upstream", mock.url, "--quiet"], {}, /API\s+(http:\/\/\S+)\s+→/, async (banner) => {
      const url = /API\s+(http:\/\/\S+)/.exec(banner)![1]!;
      const res = await fetch(`${url}/v1/analyses?limit=1000`, { headers: { "X-API-Key": "pk_test_demo_pro" } });
      proxied = `${res.status} ${await res.text()}`;
      await fetch(`${url}/__mock/violations`);
    });
    expect(code).toBe(0);
    expect(proxied).toMatch(/^422 \{"detail":\[\{"loc":\["query","limit"\]/); // the mock's own answer
    expect(out).toMatch(new RegExp(`API\\s+http://127\\.0\\.0\\.1:\\d+\\s+→\\s+${mock.url.replace(/[.]/g, "\\.")}\\n`));
    expect(out).toMatch(/Violations\s+http:\/\/127\.0\.0\.1:\d+\/__mock\/violations/);
    const violations = out.split("\n").filter((l) => /^\S+ violation /.test(l));
    expect(violations).toEqual([expect.stringMatching(/ violation listAnalyses GET \/v1\/analyses 422 request-schema: the request breaks the contract's schemas: query\.limit must be at most 100 \(GET \/v1\/analyses\?limit=1000\)$/)]);
    expect(out).not.toMatch(/ GET \/v1\/analyses\?limit=1000 422 \d/); // --quiet: no request lines
  });
});
