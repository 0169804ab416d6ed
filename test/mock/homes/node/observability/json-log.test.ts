// `--log-format json` (decision SB27): the gateway's log as JSON objects through pino, one per line, each request
// with its operation, status, workspace and X-Request-Id, credentials redacted, the replica named from MOCK_REPLICA.
// A real gateway process; its stdout parsed line by line.
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../../../../scripts/lib/paths.js";
import { startReplica, type Replica } from "../../../../../scripts/lib/replicas.js";

describe("--log-format json", () => {
  let r: Replica;
  beforeAll(async () => {
    r = await startReplica(["--log-format", "json"], { MOCK_REPLICA: "r9" });
  }, 60_000);
  afterAll(() => r?.stop());

  const entries = () =>
    r
      .output()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  it("writes each request as one JSON object with its operation, status, workspace and request id", async () => {
    const res = await fetch(`${r.url}/v1/analyses?limit=1`, { headers: { "X-API-Key": "pk_test_demo_pro", "X-Request-Id": "trace-json-1" } });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    await expect.poll(() => entries().find((e) => e.request_id === "trace-json-1"), { timeout: 5_000 }).toBeTruthy();
    const e = entries().find((x) => x.request_id === "trace-json-1")!;
    expect(e).toMatchObject({ msg: "request", method: "GET", path: "/v1/analyses?limit=1", operation: "listAnalyses", status: 200, replica: "r9", level: 30 });
    expect(e.workspace).toMatch(/^ws_/);
    expect(typeof e.ms).toBe("number");
    expect(typeof e.time).toBe("string");
  });

  it("redacts credentials in the logged path", async () => {
    const res = await fetch(`${r.url}/v1/analyses?token=pk_test_demo_pro`, { headers: { "X-Request-Id": "trace-json-2" } });
    await res.arrayBuffer();
    await expect.poll(() => entries().find((e) => e.request_id === "trace-json-2"), { timeout: 5_000 }).toBeTruthy();
    expect(entries().find((e) => e.request_id === "trace-json-2")!.path).toBe("/v1/analyses?token=[redacted]");
    expect(JSON.stringify(entries())).not.toContain("token=pk_test_demo_pro");
  });

  it("refuses another format, naming the flag (exit 2)", () => {
    const run = spawnSync(process.execPath, ["scripts/mock/run-bundled.mjs", "scripts/mock/start.ts", "--no-generate", "--log-format", "yaml"], { cwd: ROOT, encoding: "utf8", env: { ...process.env, PORT: "0" } });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--log-format must be text or json; got "yaml"');
  }, 60_000);
});
