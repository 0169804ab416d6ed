// The settings table (src/mock/homes/node/settings.ts, decision MC1): every flag and variable of npm start read and checked in
// one place, before anything starts. npm start's own refusals are in start.test.ts.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../../src/mock/homes/node/contract-files.js";
import { readSettings, SETTINGS, SettingsError } from "../../../../src/mock/homes/node/settings.js";

describe("settings: every flag and variable checked at start (src/mock/homes/node/settings.ts)", () => {
  it("reads each row from its flag or variable, the flag first, and refuses a bad value naming it", () => {
    expect(readSettings([], {}).stepMs).toBe(2000);
    expect(readSettings([], { MOCK_STEP_MS: "250" }).stepMs).toBe(250);
    expect(readSettings(["--port", "0"], { PORT: "9" }).port).toBe(0);
    expect(readSettings([], { MOCK_STATELESS: "1" }).stateless).toBe(true);
    for (const host of ["0.0.0.0", "::", "::1", "localhost", "mock.test"]) expect(readSettings(["--host", host], {}).host).toBe(host);
    for (const [env, name] of [
      [{ MOCK_STEP_MS: "abc" }, 'MOCK_STEP_MS must be a whole number of milliseconds from 1 to 86400000; got "abc".'],
      [{ MOCK_STREAM_INTERVAL_MS: "-1" }, "MOCK_STREAM_INTERVAL_MS must be a whole number"],
      [{ MOCK_WEBHOOK_DELAY_MS: "1.5" }, "MOCK_WEBHOOK_DELAY_MS must be a whole number"],
      [{ PORT: "70000" }, 'PORT must be a whole number from 0 to 65535; got "70000".'],
      [{ HOST: "127.0.0.1:4010" }, 'HOST must be an IP address or a host name such as 127.0.0.1, ::1 or localhost; got "127.0.0.1:4010".'],
      [{ MOCK_STATELESS: "yes" }, 'MOCK_STATELESS takes 1 (or true) to turn it on, 0 (or false) to leave it off; got "yes".'],
      [{ MOCK_UPSTREAM: "ftp://x" }, "MOCK_UPSTREAM must be an http:// or https:// URL"],
      [{ MOCK_LATENCY_MS: "slow" }, "MOCK_LATENCY_MS must be a delay in milliseconds"],
    ] as const) {
      expect(() => readSettings([], env), name).toThrow(name);
    }
    expect(() => readSettings(["--bogus"], {})).toThrow(SettingsError);
  });

  it("every variable the mock's code reads is a row of the table", () => {
    const rows = new Set(Object.values(SETTINGS).flatMap((s) => ("env" in s && s.env ? [s.env] : [])));
    const read = new Set<string>();
    for (const dir of ["src/mock", "scripts"]) {
      for (const f of fs.readdirSync(path.join(REPO_ROOT, dir), { recursive: true }) as string[]) {
        if (!f.endsWith(".ts")) continue;
        for (const m of fs.readFileSync(path.join(REPO_ROOT, dir, f), "utf8").matchAll(/\benv\.(MOCK_[A-Z_]+|PORT|HOST)\b/g)) read.add(m[1]!);
      }
    }
    for (const v of read) expect(rows, v).toContain(v);
  });
});
