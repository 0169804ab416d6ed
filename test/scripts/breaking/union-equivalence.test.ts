// Decision RM14: AnalysisCreate's "exactly one of `media_url` and `text`" and "text without the media-only
// features" became a `oneOf` of two variants (so the TypeScript and Python types are a union). The gate rates that
// `oneOf` an accepted narrowing because it is a restatement: the released contract's `if`/`then` and
// `dependentSchemas` refused exactly the same bodies. This test holds the claim on random bodies, and the gate's
// verdict on the real change.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import fc from "fast-check";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { compare } from "../../../scripts/lib/diff/diff.js";
import { GENERATED } from "../../../scripts/lib/paths.js";

const RELEASED = path.join(GENERATED, "released/openapi.yaml");
const CURRENT = path.join(GENERATED, "openapi.json");

function validator(doc: Record<string, unknown>) {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  (addFormatsModule as unknown as (a: Ajv2020) => Ajv2020)(ajv); // CommonJS: under ESM its function is the default
  ajv.addSchema({ ...doc, $id: "doc" } as never);
  return ajv.compile({ $ref: "doc#/components/schemas/AnalysisCreate" });
}

const body = fc.record(
  {
    media_url: fc.constantFrom("https://media.example.com/a.mp3", "http://media.example.com/a.mp3"),
    text: fc.constantFrom("Hi there.", ""),
    media_type: fc.constantFrom("audio", "video", "text", "podcast"),
    features: fc.subarray(["transcription", "diarization", "speaker_identification", "signals", "summary"], { minLength: 1 }),
    use_case_id: fc.constant("uc_01HZX1C4S8E2K6M0P3R7T9V5W1"),
    title: fc.constantFrom("Call", ""),
  },
  { requiredKeys: [] },
);

describe("AnalysisCreate as a union (RM14)", () => {
  it("refuses exactly the bodies the released contract refused (2,000 random bodies)", () => {
    const before = validator(parse(fs.readFileSync(RELEASED, "utf8")));
    const after = validator(JSON.parse(fs.readFileSync(CURRENT, "utf8")));
    let accepted = 0;
    fc.assert(
      fc.property(body, (b) => {
        const was = before(b);
        accepted += was ? 1 : 0;
        expect(after(b), JSON.stringify(b)).toBe(was);
      }),
      { numRuns: 2000 },
    );
    expect(accepted).toBeGreaterThan(20); // the property also covers bodies both accept
  });

  it("so the gate rates the added oneOf an accepted narrowing (minor), not a breaking change", async () => {
    const c = await compare({ base: RELEASED, head: CURRENT });
    const union = c.changes.filter((x) => /^POST \/v1\/analyses request body `oneOf`$/.test(x.where));
    expect(union.map((x) => `${x.impact} ${x.rule}`)).toEqual(["minor contract/accepted-narrowing"]);
    // The one major change since the release is revoke's scope, accepted as a security fix (B14).
    expect(c.changes.filter((x) => x.impact === "major" && !x.rule.startsWith("contract/completion") && !x.security)).toEqual([]);
  }, 120_000);
});
