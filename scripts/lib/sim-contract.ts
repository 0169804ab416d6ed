// The contract as the browser simulation embeds it (generated/openapi.sim.json, written by `npm run generate` from the
// same bundle as generated/openapi.json, so it stays one source): the document without the prose the simulation
// never reads, compact (no indentation). Decision MC11.
//   - dropped: every `description` and `summary` string (operations, parameters, responses, schemas, tags,
//     examples, info), `externalDocs`, and the top-level `tags` list (names only group operations in viewers);
//   - kept: everything else, and what the simulation reads from prose: the `description` of a schema carrying
//     `x-status` (rule-status.ts answers with it), and every value (`example`, `examples`, `value`, `default`,
//     `const`, `enum`, `x-*` extensions are copied as they are: a field named `description` in an example is data).
// /openapi.yaml still serves the whole contract, from generated/openapi.yaml (a chunk loaded on demand).
import { STATUS_KEY } from "../../src/contract/contract-rules.js";

type Json = unknown;

/** Keys whose value is data, not part of the document's structure: copied untouched. */
const VALUES = new Set(["example", "examples", "value", "default", "const", "enum"]);
const PROSE = new Set(["description", "summary"]);

function trim(node: Json, top: boolean): Json {
  if (Array.isArray(node)) return node.map((n) => trim(n, false));
  if (!node || typeof node !== "object") return node;
  const obj = node as Record<string, Json>;
  const out: Record<string, Json> = {};
  const keepsProse = typeof obj[STATUS_KEY] === "number";
  for (const [k, v] of Object.entries(obj)) {
    if (PROSE.has(k) && typeof v === "string" && !keepsProse) continue;
    if (k === "externalDocs" || (top && k === "tags")) continue;
    // `examples` is a map of Example Objects in media types (their `summary` is prose) and a list of values in schemas.
    out[k] = k.startsWith("x-") || (VALUES.has(k) && !(k === "examples" && !Array.isArray(v))) ? v : trim(v, false);
  }
  return out;
}

/** The simulation's compact contract: `doc` (the bundled document) without the prose it never reads. */
export function simulationDocument(doc: Json): Json {
  return trim(doc, true);
}

/** generated/openapi.sim.json's text. */
export function renderSimulationDocument(doc: Json): string {
  return JSON.stringify(simulationDocument(doc)) + "\n";
}
