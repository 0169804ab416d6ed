// Decision B12 (docs/decisions/contract.md), adopted with release 1.1.0, in a module of its own: how the gate rates
// request narrowings that break no documented use.
//   - An upper bound *added* where the baseline had none (`maxLength`, `maxItems`, `maxProperties`, `maximum`,
//     `exclusiveMaximum`) is minor when every example of that schema in the baseline satisfies it: values beyond
//     it answered 200 or 400 before and answer 422 now. Changing an existing bound, or adding a `pattern` or a
//     lower bound, stays major.
//   - Any other narrowing is minor only when it is listed, with its reason and decision, in
//     scripts/redocly/accepted-narrowings.yaml: a human accepted it, and the entry pins the new value.
// redocly rates all of these major (schema-constraint-changed, schema-combinator-changed); each one we re-rate is
// still listed, under our rule's name, so nothing is hidden from the changelog.
import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import type { Json } from "../contract.js";
import { resolvePointer } from "./diff-pointer.js";
import type { Bundle, Impact, RedoclyChange } from "./diff-types.js";
import { ROOT } from "../paths.js";

export const ACCEPTED_NARROWINGS = path.join(ROOT, "scripts/redocly/accepted-narrowings.yaml");

export interface AcceptedNarrowing {
  /** Where the changed node is in the current bundle (a component, as redocly's `revision.pointer` starts). */
  pointer: string;
  /** The changed keyword, when redocly names one (`pattern`); absent for an added `oneOf` subschema. */
  property?: string;
  /** The new value, exactly: an entry never accepts a later, different change at the same place. */
  to: unknown;
  decision: string;
  reason: string;
}

export interface Rerating {
  impact: Impact;
  rule: string;
  message: string;
}

const UPPER_BOUNDS = new Set(["maxLength", "maxItems", "maxProperties", "maximum", "exclusiveMaximum"]);

/** Does a documented example value stay within the new bound? */
function within(value: unknown, keyword: string, bound: number): boolean {
  if (keyword === "maxLength") return typeof value !== "string" || [...value].length <= bound;
  if (keyword === "maxItems") return !Array.isArray(value) || value.length <= bound;
  if (keyword === "maxProperties") return !value || typeof value !== "object" || Object.keys(value).length <= bound;
  if (keyword === "maximum") return typeof value !== "number" || value <= bound;
  return typeof value !== "number" || value < bound; // exclusiveMaximum
}

function boundAdded(c: RedoclyChange, base: Json): Rerating | undefined {
  const bound = c.revision?.value;
  if (!c.property || !UPPER_BOUNDS.has(c.property) || typeof bound !== "number" || !c.base) return undefined;
  if (!c.verdicts.some((v) => v.ruleId === "schema-constraint-changed")) return undefined;
  const node = resolvePointer(base, c.base.pointer);
  if (!node || typeof node !== "object" || node[c.property] !== undefined) return undefined;
  const examples = [...(Array.isArray(node.examples) ? node.examples : []), ...("example" in node ? [node.example] : [])];
  if (!examples.every((e) => within(e, c.property!, bound))) return undefined;
  return {
    impact: "minor",
    rule: "contract/bound-added",
    message: `\`${c.property}\` ${bound} added where the released contract had none: values beyond it now answer 422 (no example of the released contract exceeds it).`,
  };
}

function accepted(c: RedoclyChange, list: AcceptedNarrowing[]): Rerating | undefined {
  const at = c.revision?.pointer ?? c.base?.pointer ?? "";
  const entry = list.find(
    (e) =>
      (at === e.pointer || at.startsWith(`${e.pointer}/`)) &&
      (e.property ?? null) === (c.property ?? null) &&
      JSON.stringify(e.to) === JSON.stringify(c.revision?.value),
  );
  if (!entry) return undefined;
  const said = c.verdicts.map((v) => v.message).join(" ");
  return { impact: "minor", rule: "contract/accepted-narrowing", message: `${said} Accepted on purpose (decision ${entry.decision}): ${entry.reason}` };
}

export function readAcceptedNarrowings(file = ACCEPTED_NARROWINGS): AcceptedNarrowing[] {
  if (!fs.existsSync(file)) return [];
  const list = parse(fs.readFileSync(file, "utf8")) ?? [];
  if (!Array.isArray(list)) throw new Error(`${file}: expected a list of accepted narrowings`);
  for (const [i, e] of list.entries()) {
    for (const k of ["pointer", "to", "decision", "reason"]) if (!e || e[k] === undefined) throw new Error(`${file}: entry ${i + 1} lacks \`${k}\``);
  }
  return list as AcceptedNarrowing[];
}

/** The major redocly changes this proposal re-rates, each with its new rating. */
export function reviewedNarrowings(base: Bundle, raw: RedoclyChange[], list = readAcceptedNarrowings()): Map<RedoclyChange, Rerating> {
  const out = new Map<RedoclyChange, Rerating>();
  for (const c of raw) {
    if (c.impact !== "major") continue;
    const r = boundAdded(c, base.doc) ?? accepted(c, list);
    if (r) out.set(c, r);
  }
  return out;
}
