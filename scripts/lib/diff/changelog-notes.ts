// Release notes that read like a person wrote them (issue 32): one entry per operation or resource, grouped as
// Breaking changes, New, Changed and Deprecated. A change to an example, a link or a shared parameter is folded into
// the operations that use it (and dropped when they are all new: the new operation's entry covers it), and so is a new
// component schema (issue 48); each change
// is said in words: a new field optional or required, a new filter with what it matches, the sentence a
// description gained or lost.
import { describeFilter, FILTER_KEY } from "../../../src/contract/filters.js";
import type { Json } from "../contract.js";
import type { Change, Comparison } from "./diff-types.js";
import { HTTP_METHODS, resolvePointer, splitPointer, toPointer } from "./diff-pointer.js";

export type Group = "breaking" | "new" | "changed" | "deprecated";
export const GROUP_HEADINGS: Array<[Group, string]> = [
  ["breaking", "Breaking changes"],
  ["new", "New"],
  ["changed", "Changed"],
  ["deprecated", "Deprecated"],
];

export interface Entry {
  group: Group;
  /** The operation (`listTags` (GET /v1/tags)), resource schema (`Tag`) or "The contract". */
  subject: string;
  /** What changed, in words, one clause each, in the order found (duplicates dropped). */
  parts: string[];
}

const CONTRACT = "The contract";
// Whole sentences, never cut: a cut one reads as a mistake ("…(other statuses may gain.").
const quote = (s: string) => `“${s}”`;
const quotes = (xs: string[]) => xs.map(quote).join(", ");
const opLabel = (doc: Json, p: string, m: string) => {
  const id = doc?.paths?.[p]?.[m]?.operationId;
  return id ? `\`${id}\` (${m.toUpperCase()} ${p})` : `${m.toUpperCase()} ${p}`;
};

/** The operations (labels) whose JSON names a component `$ref`, in a document. */
function usersOf(doc: Json, ref: string): string[] {
  const needle = `"${ref}"`;
  const out: string[] = [];
  for (const [p, item] of Object.entries<Json>(doc.paths ?? {})) {
    const shared = JSON.stringify(item.parameters ?? []).includes(needle);
    for (const m of HTTP_METHODS) if (item[m] && (shared || JSON.stringify(item[m]).includes(needle))) out.push(opLabel(doc, p, m));
  }
  return out;
}

/** The operations (labels) using a component schema, directly or through other component schemas. */
function schemaUsers(doc: Json, name: string): string[] {
  const names = new Set([name]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [other, schema] of Object.entries<Json>(doc.components?.schemas ?? {})) {
      if (names.has(other)) continue;
      const text = JSON.stringify(schema);
      if ([...names].some((n) => text.includes(`"#/components/schemas/${n}"`))) grew = names.add(other).size > 0;
    }
  }
  return [...new Set([...names].flatMap((n) => usersOf(doc, `#/components/schemas/${n}`)))];
}

/** The subjects a change belongs to: its operation, its resource schema, the operations using a component, or the contract. */
function subjectsOf(c: Change, head: Json, base: Json): string[] {
  const seg = splitPointer(c.pointer);
  const doc = c.kind === "removed" ? base : head;
  if (seg[0] === "paths" && seg[1]) {
    if (seg[2] && HTTP_METHODS.includes(seg[2])) return [opLabel(doc, seg[1], seg[2])];
    const item = doc.paths?.[seg[1]] ?? {};
    const ops = HTTP_METHODS.filter((m) => item[m]).map((m) => opLabel(doc, seg[1]!, m));
    return ops.length ? ops : [`\`${seg[1]}\``];
  }
  if (seg[0] === "components" && seg[1] === "schemas" && seg[2]) return [`\`${seg[2]}\``];
  if (seg[0] === "components" && seg[2]) {
    const users = usersOf(doc, toPointer(seg.slice(0, 3)));
    return users.length ? users : [CONTRACT];
  }
  return [CONTRACT];
}

/** Sentences of a description, for saying which one changed. */
const sentences = (text: unknown) => (typeof text === "string" ? text.split(/(?<=[.!?])\s+|\n+/).map((s) => s.trim()).filter(Boolean) : []);

function describeDescription(before: unknown, after: unknown, what: string): string {
  const [b, a] = [sentences(before), sentences(after)];
  const gained = a.filter((s) => !b.includes(s));
  const lost = b.filter((s) => !a.includes(s));
  if (!gained.length && !lost.length) return `${what} reworded`;
  if (gained.length && lost.length) return `${what} now says ${quotes(gained)} instead of ${quotes(lost)}`;
  return gained.length ? `${what} adds ${quotes(gained)}` : `${what} no longer says ${quotes(lost)}`;
}

/** A new property: optional or required, and on which side. */
function describeNewField(c: Change, head: Json): string | undefined {
  const seg = splitPointer(c.pointer);
  if (seg.at(-2) !== "properties") return undefined;
  const name = seg.at(-1)!;
  const parent = resolvePointer(head, toPointer(seg.slice(0, -2)));
  const required = Array.isArray(parent?.required) && parent.required.includes(name);
  const side = seg.includes("requestBody") ? " in the request" : seg.includes("responses") ? " in the response" : "";
  const prop = resolvePointer(head, c.pointer);
  const about = typeof prop?.description === "string" ? `: ${(sentences(prop.description)[0] ?? "").replace(/\.$/, "")}` : "";
  return `new ${required ? "required" : "optional"} field \`${name}\`${side}${about.length > 2 ? about : ""}`;
}

/** A new parameter: a filter says what it matches; any other says where it goes and whether it is required. */
function describeNewParameter(c: Change, head: Json): string | undefined {
  const p = resolvePointer(head, c.pointer);
  if (!p?.name || !p.in) return undefined;
  if (p[FILTER_KEY]) return `new filter \`${p.name}\`: ${describeFilter(p[FILTER_KEY]).replace(/^Filter \(`x-filter`\): /, "").replace(/\.$/, "")}`;
  return `new ${p.required ? "required" : "optional"} ${p.in} parameter \`${p.name}\``;
}

/** A change in words (the gate's message when no better one is known), without its trailing period. */
function describe(c: Change, head: Json): string {
  const words =
    (c.kind === "added" && (describeNewField(c, head) ?? describeNewParameter(c, head))) ||
    (c.kind === "modified" && c.property === "description" && describeDescription(c.before, c.after, "the description")) ||
    (c.kind === "modified" && c.property === "summary" && `summary now ${quote(String(c.after))}`) ||
    c.message.replace(/\.$/, "");
  return words.charAt(0).toLowerCase() + words.slice(1);
}

function groupOf(c: Change): Group {
  if (c.impact === "major") return "breaking";
  if ((c.property === "deprecated" && c.after === true) || c.property === "x-sunset") return "deprecated";
  if (c.kind === "added" && c.added) return "new";
  return "changed";
}

/** What a component change (an example, a link, a shared parameter) says on each operation using it. */
function folded(c: Change, head: Json): string {
  const kind = splitPointer(c.pointer)[1];
  if (kind === "examples") return "examples updated";
  if (kind === "links") return c.kind === "added" ? "new link to what to do next" : "links updated";
  return describe(c, head);
}

/** The entries of a comparison, in group order, one per subject within each group. */
export function entries(cmp: Comparison): Entry[] {
  const head = cmp.head.doc;
  const base = cmp.base.doc;
  const newOps = new Set(cmp.changes.filter((c) => c.added?.what === "operations").flatMap((c) => subjectsOf(c, head, base)));
  const byKey = new Map<string, Entry>();
  const add = (group: Group, subject: string, part: string) => {
    const key = `${group}\u0000${subject}`;
    const e = byKey.get(key) ?? byKey.set(key, { group, subject, parts: [] }).get(key)!;
    if (part && !e.parts.includes(part)) e.parts.push(part);
  };
  const addedAt = new Set(cmp.changes.filter((c) => c.kind === "added").map((c) => c.pointer));
  for (const c of cmp.changes) {
    if (saidByNewFields(c, addedAt)) continue;
    if (c.added?.what === "schemas" && foldedSchema(c, head, newOps, add)) continue;
    const group = groupOf(c);
    const component = /^#\/components\/(?!schemas\/)[^/]+\//.test(c.pointer);
    for (const subject of subjectsOf(c, head, base)) {
      if (group !== "breaking" && group !== "new" && newOps.has(subject)) continue; // said by the new operation's entry
      if (group === "new") add("new", subject, newThing(c, subject, head));
      else if (group === "deprecated") add("deprecated", subject, deprecation(c, head));
      else if (group === "breaking") add(group, subject, `${describe(c, head)}${c.rule ? ` (\`${c.rule}\`)` : ""}${c.accepted ? `, accepted: ${c.accepted}` : ""}`);
      else add(group, subject, component ? folded(c, head) : describe(c, head));
    }
  }
  const order = GROUP_HEADINGS.map(([g]) => g);
  return [...byKey.values()].sort((a, b) => order.indexOf(a.group) - order.indexOf(b.group));
}

/**
 * A new component schema is said by the operations using it: nothing more when they are all new (their entry covers
 * it), else "uses the new schema `X`" on each existing one. False when nothing uses it (it keeps its own entry).
 */
function foldedSchema(c: Change, head: Json, newOps: Set<string>, add: (group: Group, subject: string, part: string) => void): boolean {
  const name = splitPointer(c.pointer)[2];
  const users = name ? schemaUsers(head, name) : [];
  for (const op of users) if (!newOps.has(op)) add("new", op, `uses the new schema \`${name}\``);
  return users.length > 0;
}

/** A `required` list that only gained fields this comparison adds: "new required field" already says it. */
function saidByNewFields(c: Change, addedAt: Set<string>): boolean {
  if (c.kind !== "modified" || c.property !== "required" || !Array.isArray(c.after)) return false;
  const before = Array.isArray(c.before) ? c.before : [];
  const after: unknown[] = c.after;
  const gained = after.filter((n) => !before.includes(n));
  return gained.length > 0 && before.every((n) => after.includes(n)) && gained.every((n) => addedAt.has(toPointer([...splitPointer(c.pointer), "properties", String(n)])));
}

/** A new operation's summary, a new schema's fields. */
function newThing(c: Change, subject: string, head: Json): string {
  const node = resolvePointer(head, c.pointer);
  if (c.added?.what === "operations") {
    const m = /\((\w+) (\S+)\)$/.exec(subject);
    const op = m ? head.paths?.[m[2]!]?.[m[1]!.toLowerCase()] : undefined;
    return op?.summary ? `new operation: ${op.summary}` : "new operation";
  }
  if (c.added?.what === "schemas") {
    const fields = Object.keys(node?.properties ?? {});
    return fields.length ? `new schema, with ${fields.map((f) => `\`${f}\``).join(", ")}` : "new schema";
  }
  return c.message.replace(/\.$/, "").replace(/^New/, "new");
}

function deprecation(c: Change, head: Json): string {
  const node = resolvePointer(head, splitPointer(c.pointer).length ? c.pointer : "#");
  const name = node?.name ?? node?.operationId;
  const what = node?.in ? `the ${node.in} parameter \`${name}\` is deprecated` : node?.operationId ? "deprecated" : `\`${splitPointer(c.pointer).at(-1)}\` is deprecated`;
  return node?.["x-sunset"] ? `${what}, to be removed from ${node["x-sunset"]}` : what;
}

/** The notes' lines: per group a heading, then one bullet per entry. */
export function noteLines(cmp: Comparison): string[] {
  const all = entries(cmp);
  const lines: string[] = [];
  for (const [group, heading] of GROUP_HEADINGS) {
    const es = all.filter((e) => e.group === group);
    if (!es.length) continue;
    lines.push(`### ${heading}`, "");
    for (const e of es) {
      const text = e.parts.join("; ");
      const end = /[.!?]”?$/.test(text) ? "" : ".";
      lines.push(`- **${e.subject.replace(/\*/g, "\\*")}**: ${text.charAt(0).toUpperCase()}${text.slice(1)}${end}`);
    }
    lines.push("");
  }
  return lines;
}
