// Section 1 (base address) and section 9 (versioning) of the interface specification.
import { describe, expect, it } from "vitest";
import { section } from "../helpers/spec-doc.js";
import { doc, operations, PUBLIC_PATHS } from "../helpers/contract.js";

describe("section 9: versioning", () => {
  it("the current version is the /v1 URL prefix; /aria and /ws follow their own; the gateway's paths stand alone", () => {
    expect(section("9. Versioning")).toContain("The current version is `/v1`.");
    for (const { path } of operations()) {
      const ok = /^\/(v1|aria|ws)\//.test(path) || PUBLIC_PATHS.includes(path);
      expect(ok, path).toBe(true);
    }
    expect(operations().filter((o) => o.path.startsWith("/v1/")).length).toBeGreaterThan(80);
  });

  it("info.version is semver", () => {
    expect(doc.info.version).toMatch(/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$/);
  });

  it("/aria and /ws operations say they follow the assistant's own versioning", () => {
    const tags = Object.fromEntries(doc.tags.map((t: { name: string; description: string }) => [t.name, t.description]));
    const aria = operations().filter((o) => o.path.startsWith("/aria/"));
    const ws = operations().filter((o) => o.path.startsWith("/ws/"));
    expect(aria.length).toBeGreaterThan(0);
    expect(ws.length).toBeGreaterThan(0);
    for (const o of [...aria, ...ws]) {
      const text = `${o.op.description ?? ""} ${tags[o.op.tags[0]] ?? ""}`;
      expect(text, o.op.operationId).toMatch(/own\s+versioning/i);
    }
  });
});

describe("section 1: base address", () => {
  it("servers list the TLS base URL and the local mock", () => {
    expect(doc.servers[0].url).toMatch(/^https:\/\//);
    expect(doc.servers.map((s: { url: string }) => s.url)).toContain("http://127.0.0.1:4010");
  });
  it("WebSocket endpoints are described as wss:// on the same host", () => {
    expect(JSON.stringify(doc.servers)).toContain("wss://");
  });
});
