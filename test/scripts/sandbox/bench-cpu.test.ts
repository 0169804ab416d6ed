// The sandbox bench's accounting (scripts/bench/sandbox-state.ts, docs/sandbox.md "Measurements"): CPU per request
// sums a process with everything it forked, as PostgreSQL forks a backend per connection, including children that
// have ended; and the balancer's health checks the bench slows down.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { treeCpuMs } from "../../../scripts/bench/sandbox-state.js";
import { haproxyConfig } from "../../../scripts/lib/haproxy.js";

const BURN = "const t = Date.now(); while (Date.now() - t < 400);";

describe.skipIf(!fs.existsSync("/proc/self/stat"))("treeCpuMs", () => {
  it("counts a forked child's CPU while it runs and after it has ended and been reaped", async () => {
    // sh forks node, which burns ~400 ms of CPU, waits for it (reaping it), then sleeps: sh itself spends ~nothing.
    const sh = spawn("sh", ["-c", `"${process.execPath}" -e "${BURN} setTimeout(() => {}, 800)"; sleep 5`], { stdio: "ignore" });
    try {
      await new Promise((r) => setTimeout(r, 700)); // the child has burned, and is still alive
      const live = treeCpuMs([sh.pid!])!;
      expect(live).toBeGreaterThanOrEqual(250);
      await new Promise((r) => setTimeout(r, 1500)); // the child has ended: its time is in sh's cutime
      const reaped = treeCpuMs([sh.pid!])!;
      expect(reaped).toBeGreaterThanOrEqual(live);
    } finally {
      sh.kill("SIGKILL");
    }
  }, 10_000);

  it("is null when a process is gone", () => {
    expect(treeCpuMs([2 ** 22 + 12345])).toBeNull();
  });
});

describe("haproxyConfig checks", () => {
  it("checks every 500 ms, out after 2 failures, unless told otherwise", () => {
    expect(haproxyConfig(["127.0.0.1:1"], 2)).toContain("default-server inter 500ms fall 2 rise 1");
    expect(haproxyConfig(["127.0.0.1:1"], 2, { checks: { interMs: 2000, fall: 5 } })).toContain("default-server inter 2000ms fall 5 rise 1");
  });
});
