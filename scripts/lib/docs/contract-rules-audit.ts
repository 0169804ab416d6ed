// The audit of issue 20: every normative statement in the contract's descriptions (a default, "answers 4xx when",
// "always null for", "exactly one of", "needs", a bound, a state change, a role) and where the same rule is
// machine-readable. `statements` finds them by phrase; `classify` says, from the contract itself, which keyword or
// extension carries each one, or that it is still prose (and why). docs/contract-rules.md is this audit, written by
// `tsx scripts/lib/docs/contract-rules-audit.ts` and checked by test/spec/contract-rules.test.ts.
import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { RULES_HEADING } from "./rules-table.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** The phrases that state a rule. */
export const NORMATIVE =
  /\b(defaults? to|\(the default\)|is the default|answers? \**4\d\d|always null|always empty|null unless|null for|null in every|exactly one of|needs? `|only with|not available|set only when|must be|must belong|must not|at most|becomes? `|requires? role|is never|are never)\b/i;

export interface Statement {
  /** JSON pointer of the description in the bundled contract. */
  pointer: string;
  /** The normative phrase, lower case, digits kept. */
  phrase: string;
  sentence: string;
}

const esc = (k: string) => k.replace(/~/g, "~0").replace(/\//g, "~1");

/** Every normative sentence of every description, in document order. */
export function statements(doc: Json): Statement[] {
  const out: Statement[] = [];
  const walk = (n: Json, p: string): void => {
    if (Array.isArray(n)) return n.forEach((x, i) => walk(x, `${p}/${i}`));
    if (!n || typeof n !== "object") return;
    for (const [k, v] of Object.entries<Json>(n)) {
      if (k === "description" && typeof v === "string") {
        // The rules block `generate` renders (rules-table.ts) restates the machine-readable rules: not audited.
        for (const s of v.split(RULES_HEADING)[0]!.split(/(?<=[.;])\s+/)) {
          const m = NORMATIVE.exec(s);
          if (m) out.push({ pointer: `${p}/description`, phrase: m[0].toLowerCase().replace(/\*/g, ""), sentence: s.replace(/\s+/g, " ").trim() });
        }
      } else if (k !== "examples" && k !== "example") walk(v, `${p}/${esc(k)}`);
    }
  };
  walk(doc, "#");
  return out;
}

/** The node at a JSON pointer. */
function at(doc: Json, pointer: string): Json {
  return pointer.split("/").slice(1).reduce((n, k) => n?.[k.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
}

/** The operation a pointer is in, if any (`#/paths/~1v1~1agents~1{agent_id}/delete/...`). */
function operationOf(doc: Json, pointer: string): Json {
  const m = /^#\/paths\/[^/]+\/(get|put|post|patch|delete)/.exec(pointer);
  return m ? at(doc, m[0]) : undefined;
}

/** The request body schema of an operation, its `$ref`s followed one level deep (properties included). */
function bodySchema(doc: Json, op: Json): Json {
  const deref = (n: Json): Json => (typeof n?.$ref === "string" ? at(doc, n.$ref) : n);
  const content = deref(op?.requestBody)?.content ?? {};
  return Object.values<Json>(content).map((c) => {
    const s = deref(c?.schema) ?? {};
    return { ...s, properties: Object.fromEntries(Object.entries<Json>(s.properties ?? {}).map(([k, v]) => [k, deref(v)])) };
  });
}

/** Facts of the contract the classification reads: which operations each extension names. */
function factsOf(doc: Json) {
  const schemas: Record<string, Json> = doc.components?.schemas ?? {};
  const lifecycleOps = new Set<string>();
  const referencedByOps = new Set<string>();
  for (const s of Object.values<Json>(schemas)) {
    const lc = s["x-lifecycle"];
    for (const op of Object.keys(lc?.requires ?? {})) lifecycleOps.add(op);
    for (const t of lc?.transitions ?? []) if (t.operation) lifecycleOps.add(t.operation);
    for (const r of s["x-referenced-by"] ?? []) for (const b of r.blocks ?? []) referencedByOps.add(b.operation);
  }
  return { schemas, lifecycleOps, referencedByOps };
}

export interface Verdict {
  /** Where the rule is machine-readable, or `prose: <why>`. */
  where: string;
  /** Who reads it: mock, verify, docs (the generated reference and state tables). */
  readers: string;
}

const MOCK_DOCS = "mock, docs";

/** Where the rule of one statement is machine-readable (the contract itself is the evidence). */
export function classify(doc: Json, s: Statement): Verdict {
  const f = factsOf(doc);
  const op = operationOf(doc, s.pointer);
  const node = at(doc, s.pointer.replace(/\/description$/, ""));
  const phrase = s.phrase;
  const sentence = s.sentence;
  if (/answers? 409|answer 409/.test(phrase) || (/answers? 4/.test(phrase) && /409/.test(sentence))) {
    if (op && f.referencedByOps.has(op.operationId)) return { where: "`x-referenced-by` (+ `x-lifecycle`)", readers: "mock, verify, docs" };
    if (op && f.lifecycleOps.has(op.operationId)) return { where: "`x-lifecycle` `requires` / transitions", readers: "mock, verify, docs" };
    if (op && JSON.stringify(bodySchema(doc, op)).includes("x-references")) return { where: "`x-references` `states`", readers: "mock, docs" };
    if (/x-references/.test(JSON.stringify(node ?? {}))) return { where: "`x-references` `states`", readers: "mock, docs" };
    return { where: "prose: a uniqueness or count rule (a name in use, a 21st webhook, a reply still generating) no keyword states", readers: "mock (hand-written)" };
  }
  if (scopeRule(doc, op, sentence)) return { where: "`x-scopes` / `x-scope-ceiling`", readers: "mock, lint" };
  if (/answers? 401|answer 401/.test(phrase)) return { where: "`security` + `securitySchemes`", readers: "mock, verify, docs" };
  if (/answers? 403|answer 403/.test(phrase)) return { where: "prose: roles and key environments are not in the contract's data (`x-scopes` covers token scopes)", readers: "mock (keys.ts)" };
  if (/answers? 404|answer 404/.test(phrase)) return { where: "path id pattern + store lookup (generic)", readers: "mock, verify" };
  if (/answers? 422|answer 422/.test(phrase)) return { where: "JSON Schema (`if`/`then`, `required`, bounds)", readers: "mock, verify, docs" };
  if (/answers? 429|answer 429/.test(phrase)) return { where: "`x-rate-limit-policy`", readers: "mock, verify, docs" };
  if (/answers? 400|answer 400/.test(phrase)) {
    if (/x-status/.test(JSON.stringify(node ?? {})) || /features|signals|diarization/.test(sentence)) return { where: "`x-status` on a conditional subschema", readers: "mock, docs" };
    if (/unknown|not in this workspace|an unknown/.test(sentence) && (!op || JSON.stringify(bodySchema(doc, op)).includes("x-references"))) return { where: "`x-references`", readers: "mock, docs" };
    if (/limit|2 GiB|larger|over/.test(sentence)) return { where: "`maxLength`/`maximum` + gateway bounds (bounds.ts)", readers: "mock" };
    return { where: "prose: a rule on another resource's value (plan limit, time in the past, a token's state) no schema sees", readers: "mock (hand-written)" };
  }
  if (/^at most/.test(phrase)) return boundVerdict(doc, node, sentence);
  if (/must be|must not|must belong/.test(phrase)) return { where: "JSON Schema bounds and formats (`maxItems`, `maximum`, `pattern`)", readers: "mock, verify, docs" };
  if (/defaults? to|the default|is the default/.test(phrase)) {
    const d = JSON.stringify(node ?? {});
    if (d.includes("x-derived")) return { where: "`x-derived` (+ `default`)", readers: MOCK_DOCS };
    if (d.includes('"default"')) return { where: "`default`", readers: MOCK_DOCS };
    return { where: "`default` / `x-derived` on the request property", readers: MOCK_DOCS };
  }
  if (/null|always empty|set only when/.test(phrase)) {
    if (/text/.test(sentence) && /duration|start|end|speaker|words|confidence/.test(sentence)) return { where: "`x-completion` `when` (text analyses get no timeline)", readers: MOCK_DOCS };
    if (node?.type === "null" || node?.maxItems === 0) return { where: "JSON Schema (`type: 'null'`, `maxItems: 0`)", readers: "mock, verify, docs" };
    return { where: "`x-lifecycle` `set` (+ `x-completion`)", readers: "mock, verify, docs" };
  }
  if (/becomes?/.test(phrase)) return { where: "`x-lifecycle` transitions", readers: "mock, verify, docs" };
  if (/exactly one of|only with|not available|needs/.test(phrase)) return { where: "`dependentSchemas` / `if`/`then` (+ `x-status`)", readers: MOCK_DOCS };
  if (/requires? role/.test(phrase)) return { where: "prose: workspace roles are not modelled (the mock's credentials carry none)", readers: "-" };
  if (/is never|are never/.test(phrase)) return { where: "`readOnly` / server-set fields (build.ts)", readers: "mock" };
  return { where: "prose", readers: "-" };
}

/**
 * A rule on token scopes: the sentence names the `x-scope-ceiling` extension, or its operation carries one, or it
 * names a scope its operation's `x-scopes` lists (revoke's `keys:write`).
 */
function scopeRule(doc: Json, op: Json, sentence: string): boolean {
  if (/x-scope-ceiling/.test(sentence)) return true;
  if (!/scope/.test(sentence) || !op) return false;
  if (op["x-scope-ceiling"]) return true;
  return (op["x-scopes"] ?? []).some((name: string) => sentence.includes(`\`${name}\``));
}

export const isProse = (v: Verdict) => v.where.startsWith("prose");

/** The keyword that measures a unit: characters are `maxLength`; a count of things `maxItems` or `maximum`; words none. */
function keywordsFor(unit: string): string[] {
  if (/^char/.test(unit)) return ["maxLength"];
  if (/^(words?|sentences?|lines?|paragraphs?)$/.test(unit)) return [];
  return ["maxItems", "maximum"];
}

/** The nodes a described node holds (following `$ref`s), to find the keyword that states its bound. */
function* within(doc: Json, node: Json, depth = 0): Generator<Json> {
  if (!node || typeof node !== "object" || depth > 8) return;
  const n = typeof node.$ref === "string" ? at(doc, node.$ref) : node;
  if (!n || typeof n !== "object") return;
  yield n;
  for (const [k, v] of Object.entries<Json>(n)) if (k !== "examples" && k !== "example" && typeof v === "object") yield* within(doc, v, depth + 1);
}

/**
 * "at most N <unit>": machine-readable only when the keyword that measures that unit holds N on the described node
 * (or inside it); an unrelated bound on the same field (a `maxLength` beside "at most 10 words") does not count.
 */
function boundVerdict(doc: Json, node: Json, sentence: string): Verdict {
  const m = /at most (?:the first )?\**([\d,]+)\**\s*([A-Za-z]+)?/i.exec(sentence);
  if (!m) return { where: "prose: the bound is another value (the plan's limit, what was granted, `top_k`), which no keyword on the field holds", readers: "mock (hand-written)" };
  const n = Number(m[1]!.replace(/,/g, ""));
  const unit = (m[2] ?? "").toLowerCase();
  const keywords = keywordsFor(unit);
  if (!keywords.length) return { where: `prose: no keyword counts ${unit} (\`maxLength\` counts characters)`, readers: "-" };
  for (const x of within(doc, node)) {
    const kw = keywords.find((k) => x[k] === n);
    if (kw) return { where: `\`${kw}\` (JSON Schema bound)`, readers: "mock, verify, docs" };
  }
  return { where: `prose: "at most ${n}${unit ? ` ${unit}` : ""}" has no \`${keywords.join("` or `")}: ${n}\` on the field (a rule on a count the schema does not see)`, readers: "mock (hand-written)" };
}

/** The table of docs/contract-rules.md for a contract. */
export function auditTable(doc: Json, before?: Json): string {
  const rows = statements(doc).map((s) => ({ s, v: classify(doc, s) }));
  const prose = rows.filter((r) => isProse(r.v)).length;
  const lines = [
    `Statements found: **${rows.length}**, machine-readable: **${rows.length - prose}**, prose only (each with its reason): **${prose}**.`,
  ];
  if (before) {
    const old = statements(before).map((s) => classifyBefore(before, s));
    lines.push(`In the released contract (${before.info?.version ?? "unversioned"}), judged by what its keywords and extensions said then: ${old.length} statements, ${old.filter((x) => x).length} machine-readable.`);
  }
  lines.push("", "| # | description at | phrase | machine-readable in | read by |", "|---|---|---|---|---|");
  rows.forEach(({ s, v }, i) => lines.push(`| ${i + 1} | \`${s.pointer.replace(/\|/g, "\\|")}\` | ${s.phrase} | ${v.where} | ${v.readers} |`));
  return lines.join("\n");
}

/** Whether a statement of the released contract was machine-readable then: its extension or keyword existed. */
function classifyBefore(doc: Json, s: Statement): boolean {
  const v = classify(doc, s);
  if (isProse(v)) return false;
  const node = JSON.stringify(at(doc, s.pointer.replace(/\/description$/, "")) ?? {});
  if (/x-derived|x-status|x-referenced-by|x-completion/.test(v.where)) return false;
  if (/`default`/.test(v.where)) return node.includes('"default"');
  return true;
}

const MARK = "<!-- contract-rules-audit -->";

/** Writes the generated part of docs/contract-rules.md (after its marker). */
export function writeAudit(root: string): void {
  const doc = JSON.parse(fs.readFileSync(path.join(root, "generated/openapi.json"), "utf8"));
  const before = parse(fs.readFileSync(path.join(root, "generated/released/openapi.yaml"), "utf8"));
  const file = path.join(root, "docs/contract-rules.md");
  const head = fs.readFileSync(file, "utf8").split(MARK)[0]!;
  fs.writeFileSync(file, `${head}${MARK}\n\n${auditTable(doc, before)}\n`);
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) writeAudit(path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../.."));
