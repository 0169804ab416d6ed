// Renders each schema's machine-readable rules into its description, after the state table, so the generated docs
// (Redoc, Swagger UI, the generated types) show them beside the schema: defaults, values derived from the request,
// conditional defaults, cross-field rules with their status, what the resource carries once finished
// (`x-completion`), and the references that block an operation (`x-referenced-by`). Written once in the contract
// (spec/README.md, "Rules in machine-readable form"); `generate` calls `renderRules` on the bundle.
import { COMPLETION_KEY, DERIVED_KEY, REFERENCED_BY_KEY, STATUS_KEY } from "../../../src/contract/contract-rules.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** The heading the rendered block starts with (the audit of docs/contract-rules.md reads descriptions before it). */
export const RULES_HEADING = "**Rules**";

const code = (s: unknown) => `\`${typeof s === "string" ? s : JSON.stringify(s)}\``;
const DERIVED_WORDS: Record<string, string> = {
  "last-path-segment": "the last path segment of",
  "file-name": "the file name of",
  "content-type": "the content type of",
  "byte-length": "the size in bytes of",
  "media-kind": "the kind of media (audio, video, text) of",
  referenced: "a property of the resource named by",
};

function derivedLine(name: string, sources: Json[]): string {
  const ways = sources.map((d) => (d.by === "referenced" ? `the ${code(d.property)} of the ${d.schema} named by ${code(d.from)}` : `${DERIVED_WORDS[d.by] ?? d.by} ${d.from === "$body" ? "the request body" : code(d.from)}`));
  return `- ${code(name)}: when not sent, ${ways.join(", else ")}.`;
}

/** Conditional subschemas: top-level `if`/`then`, `allOf` members, `dependentSchemas` values. */
function conditionals(s: Json): Json[] {
  // A top-level `if` says what it is about in its own description (the schema's is the schema's).
  const top = s.if && s.then ? [{ ...s, description: s.if.description }] : [];
  return [...top, ...(s.allOf ?? []).filter((m: Json) => m?.if && m?.then), ...Object.values<Json>(s.dependentSchemas ?? {}).filter((m) => m?.if && m?.then)];
}

/** A `when` schema in words where it has a usual shape (`features` contains `summary`), else as JSON. */
function whenWords(w: Json): string {
  const parts = Object.entries<Json>(w?.properties ?? {}).map(([k, p]) => {
    if (p?.contains?.const !== undefined) return `${code(k)} contains ${code(p.contains.const)}`;
    if (p?.const !== undefined) return `${code(k)} is ${code(p.const)}`;
    if (p?.not?.const !== undefined) return `${code(k)} is not ${code(p.not.const)}`;
    return null;
  });
  return parts.length && parts.every(Boolean) && Object.keys(w).length === 1 ? parts.join(" and ") : code(w);
}

/** The rule lines of one schema (none when it has no rules). */
export function ruleLines(s: Json): string[] {
  const lines: string[] = [];
  for (const [name, p] of Object.entries<Json>(s.properties ?? {})) {
    if (p?.default !== undefined) lines.push(`- ${code(name)} defaults to ${code(p.default)}.`);
    if (p?.[DERIVED_KEY]) lines.push(derivedLine(name, p[DERIVED_KEY]));
  }
  for (const c of conditionals(s)) {
    const defaults = Object.entries<Json>(c.then?.properties ?? {}).filter(([, p]) => p?.default !== undefined);
    const what = c.description ?? "A conditional rule.";
    lines.push(`- ${what}${c[STATUS_KEY] ? ` (${c[STATUS_KEY]})` : ""}${defaults.length ? ` Then ${defaults.map(([n, p]) => `${code(n)} defaults to ${code(p.default)}`).join(", ")}.` : ""}`);
  }
  for (const [state, entries] of Object.entries<Json[]>(s[COMPLETION_KEY] ?? {})) {
    for (const e of entries) {
      const when = e.when ? ` when ${whenWords(e.when)}` : "";
      lines.push(e.property ? `- On entering ${code(state)}: ${code(e.property)} is filled (${e.by})${when}.` : `- On entering ${code(state)}: ${code(e.operation)} has content (${e.by})${when}.`);
    }
  }
  for (const r of s[REFERENCED_BY_KEY] ?? []) {
    for (const b of r.blocks ?? []) {
      const states = r.states ? ` in ${r.states.map(code).join(", ")}` : "";
      lines.push(`- ${code(b.operation)}${b.to ? ` to ${code(b.to)}` : ""}: 409 while a ${r.schema}${states} names it in ${code(r.property)}.`);
    }
  }
  return lines;
}

/** Appends the rules block to the description of every component schema that has rules. */
export function renderRules(doc: { components?: { schemas?: Record<string, Json> } }): void {
  for (const s of Object.values(doc.components?.schemas ?? {})) {
    const lines = ruleLines(s);
    if (lines.length) s.description = `${s.description ? `${s.description.trimEnd()}\n\n` : ""}${RULES_HEADING}\n\n${lines.join("\n")}`;
  }
}
