// The Python generator's naming rules and per-call options, on the real contract and on variations of it.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/paths.js";
import { renderPython } from "../../scripts/lib/python/index.js";

const contract = () => JSON.parse(fs.readFileSync(path.join(ROOT, "generated/openapi.json"), "utf8")) as Record<string, any>;

/** The `def <name>(...)` signature of the sync resource class `cls`. */
function signatureOf(code: string, cls: string, name: string): string {
  const body = code.slice(code.indexOf(`class ${cls}(`));
  const at = body.indexOf(`    def ${name}(`);
  expect(at, `${cls}.${name}`).toBeGreaterThan(0);
  return body.slice(at, body.indexOf(":\n", body.indexOf(")", at)));
}

describe("the Python generator", () => {
  it("names methods by the rules: compound words kept whole, the namespace's noun dropped", () => {
    const code = renderPython(contract())["_operations.py"];
    expect(code).toContain('"createOAuthToken": "oauth.create_token"');
    expect(code).toContain('"getAnalysisTranscript": "analyses.get_transcript"');
    expect(code).not.toMatch(/o_auth|open_api/);
  });

  it("adds idempotency_key to writes, unless the contract declares the Idempotency-Key header itself", () => {
    const plain = renderPython(contract())["_operations.py"];
    expect(signatureOf(plain, "AnalysesResource", "create")).toContain("idempotency_key: Optional[str] = None");
    expect(signatureOf(plain, "AnalysesResource", "get")).not.toContain("idempotency_key");
    const doc = contract();
    doc.paths["/v1/analyses"].post.parameters = [{ name: "Idempotency-Key", in: "header", required: false, schema: { type: "string" } }];
    const declared = signatureOf(renderPython(doc)["_operations.py"], "AnalysesResource", "create");
    expect(declared.match(/idempotency_key/g)).toHaveLength(1);
  });

  it("refuses a contract parameter that takes the name of a per-call option", () => {
    const doc = contract();
    doc.paths["/v1/analyses"].get.parameters.push({ name: "timeout", in: "query", schema: { type: "integer" } });
    expect(() => renderPython(doc)).toThrow(/listAnalyses: two parameters become the same Python argument/);
  });
});
