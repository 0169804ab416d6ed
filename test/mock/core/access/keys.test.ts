// Demo keys and the keys file (MOCK_KEYS_FILE): what is built in, and clear errors with file and position.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { demoKeys, KeysFileError, loadKeysFile } from "../../../../src/mock/core/access/keys.js";
import { REPO_ROOT } from "../../../../src/mock/homes/node/contract-files.js";
import { policy } from "../../../helpers/mock.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mock-keys-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
}

describe("demo keys", () => {
  it("has one workspace per plan, a limited Pro key (rate_limit_rpm 10) and a frozen workspace", () => {
    const keys = demoKeys(policy);
    for (const plan of Object.keys(policy.plans)) expect(keys).toContainEqual(expect.objectContaining({ key: `pk_test_demo_${plan}`, plan }));
    expect(keys.find((k) => k.key === "pk_test_demo_limited")).toMatchObject({ plan: "pro", rate_limit_rpm: 10 });
    expect(keys.find((k) => k.key === "pk_test_demo_frozen")).toMatchObject({ frozen: true });
    expect(new Set(keys.map((k) => k.workspace_id)).size).toBe(keys.length);
    for (const k of keys) expect(k.workspace_id).toMatch(/^ws_[0-9A-Za-z]{8,40}$/);
  });
});

describe("keys file", () => {
  it("loads valid keys, as an object with keys or a bare array", () => {
    const rec = { key: "pk_live_acme_frontend", workspace_id: "ws_AcmeCorp01", plan: "starter", rate_limit_rpm: 20, label: "Acme" };
    expect(loadKeysFile(write("ok.json", JSON.stringify({ keys: [rec] })), policy)).toEqual([rec]);
    expect(loadKeysFile(write("arr.json", JSON.stringify([rec])), policy)).toEqual([rec]);
  });

  it("the example file in the repository is valid", () => {
    const keys = loadKeysFile(path.join(REPO_ROOT, "docs/mock-keys.example.json"), policy);
    expect(keys.length).toBeGreaterThan(0);
  });

  it("names the file, line and column of a JSON syntax error", () => {
    const f = write("bad.json", '{\n  "keys": [\n    {"key": "pk_test_abcd" "plan": "pro"}\n  ]\n}\n');
    expect(() => loadKeysFile(f, policy)).toThrow(KeysFileError);
    expect(() => loadKeysFile(f, policy)).toThrow(`${f}:3:28: invalid JSON`);
  });

  it("names the file, position and field of a value that is wrong", () => {
    const f = write("plan.json", '{\n  "keys": [\n    {"key": "pk_test_abcd", "workspace_id": "ws_Abcdefgh", "plan": "gold"}\n  ]\n}\n');
    expect(() => loadKeysFile(f, policy)).toThrow(`${f}:3:68: keys.0.plan: must be one of ${Object.keys(policy.plans).join(", ")}`);
    const g = write("prefix.json", '{"keys": [{"key": "sk_live_abcd", "workspace_id": "ws_Abcdefgh", "plan": "pro"}]}');
    expect(() => loadKeysFile(g, policy)).toThrow(/prefix\.json:1:19: keys\.0\.key: must be a string starting with pk_live_ or pk_test_/);
    const h = write("rpm.json", '[{"key": "pk_test_abcd", "workspace_id": "ws_Abcdefgh", "plan": "pro", "rate_limit_rpm": 0}]');
    expect(() => loadKeysFile(h, policy)).toThrow(/rpm\.json:1:\d+: 0\.rate_limit_rpm: must be a positive integer/);
    const i = write("dup.json", '[{"key": "pk_test_abcd", "workspace_id": "ws_Abcdefgh", "plan": "pro"}, {"key": "pk_test_abcd", "workspace_id": "ws_Abcdefgh", "plan": "pro"}]');
    expect(() => loadKeysFile(i, policy)).toThrow(/dup\.json:1:\d+: 1\.key: duplicate key/);
    const j = write("extra.json", '[{"key": "pk_test_abcd", "workspace_id": "ws_Abcdefgh", "plan": "pro", "colour": "red"}]');
    expect(() => loadKeysFile(j, policy)).toThrow(/0\.colour: unknown field/);
  });

  it("says when the file is missing", () => {
    expect(() => loadKeysFile(path.join(dir, "nope.json"), policy)).toThrow(`${path.join(dir, "nope.json")}: cannot read the keys file (no such file)`);
  });

  it("never repeats a key value in an error", () => {
    const f = write("secret.json", '[{"key": "pk_test_supersecretvalue", "workspace_id": "bad", "plan": "pro"}]');
    expect(() => loadKeysFile(f, policy)).toThrow(/workspace_id/);
    try {
      loadKeysFile(f, policy);
    } catch (e) {
      expect((e as Error).message).not.toContain("supersecretvalue");
    }
  });
});
