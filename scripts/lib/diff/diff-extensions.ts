// The gate's rules for what a client feels that `redocly diff` rates a patch or does not see at all: this
// contract's own `x-` extensions, schema `default`s, and `readOnly`/`writeOnly`. Found by planting each change on a
// copy of the real bundle (test/scripts/breaking/client-felt.test.ts): redocly reports a changed `default` as a patch,
// an `x-extensible-enum` value renamed as nothing at all, and a removed lifecycle transition only as the
// rendered state table's `description` changing.
//
// Each change names every operation that reaches the changed node (a component schema is reached through
// `$ref`s by many operations), so the report says whom it breaks, not one of them.
import type { Json } from "../contract.js";
import type { Bundle, Change, Impact } from "./diff-types.js";
import { deref, HTTP_METHODS, splitPointer, toPointer } from "./diff-pointer.js";

type Segs = Array<string | number>;
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const code = (v: unknown) => `\`${typeof v === "string" ? v : JSON.stringify(v)}\``;
const list = (xs: string[]) => xs.map(code).join(", ");

/** The extensions a client reads; each has a rule id `contract/<name without x->`. */
export const CLIENT_EXTENSIONS = ["x-lifecycle", "x-extensible-enum", "x-references", "x-status", "x-idempotency", "x-scopes", "x-filter", "x-completion"];
/** Schema keywords whose change a client feels though redocly rates it a patch. */
export const FELT_KEYWORDS = ["default", "readOnly", "writeOnly"];

/** Every node of a document with its segments (objects and arrays, not following $refs). */
function* nodes(v: unknown, segs: Segs = []): Generator<[Segs, Record<string, unknown>]> {
  if (Array.isArray(v)) for (let i = 0; i < v.length; i++) yield* nodes(v[i], [...segs, i]);
  else if (isObject(v)) {
    yield [segs, v];
    for (const [k, x] of Object.entries(v)) yield* nodes(x, [...segs, k]);
  }
}

/**
 * Calls `visit` for every object node both documents have, walking them side by side (`segs` is where the node lives
 * in the head). An item of a `parameters` list is matched by its place and name (`in` + `name`, through a `$ref`
 * too), not by its position, as oasdiff matches them: a reordered list is no change, a renamed parameter is
 * another parameter (decision VG16). Subtrees under `skip` keys are not entered.
 */
function walkBoth(base: Json, head: Json, skip: Set<string>, visit: (segs: Segs, b: Record<string, unknown>, h: Record<string, unknown>) => void): void {
  const identity = (doc: Json, v: unknown, i: number) => {
    const p = deref(doc, v);
    return p && typeof p.name === "string" && typeof p.in === "string" ? `${p.in}:${p.name}` : `#${i}`;
  };
  const walk = (b: unknown, h: unknown, segs: Segs): void => {
    if (b === h) return;
    if (Array.isArray(b) && Array.isArray(h)) {
      if (segs[segs.length - 1] === "parameters") {
        const inHead = new Map(h.map((x, i) => [identity(head, x, i), i]));
        b.forEach((x, i) => {
          const j = inHead.get(identity(base, x, i));
          if (j !== undefined) walk(x, h[j], [...segs, j]);
        });
      } else for (let i = 0; i < Math.min(b.length, h.length); i++) walk(b[i], h[i], [...segs, i]);
    } else if (isObject(b) && isObject(h)) {
      visit(segs, b, h);
      for (const k of Object.keys(b)) if (k in h && !skip.has(k)) walk(b[k], h[k], [...segs, k]);
    }
  };
  walk(base, head, []);
}

/** Operation labels (`operationId (GET /path)`) that reach each component, through `$ref`s, transitively. */
export function reachers(doc: Json): (segs: Segs) => string[] {
  let r = reached.get(doc);
  if (!r) reached.set(doc, (r = reachersOf(doc)));
  return r;
}
const reached = new WeakMap<object, (segs: Segs) => string[]>();

const components = new Map<string, string>();
/** `#/components/schemas/A/properties/b` → `components/schemas/A` (memoized: a bundle repeats its `$ref`s thousands of times). */
function componentOf(ref: string): string {
  let c = components.get(ref);
  if (c === undefined) components.set(ref, (c = splitPointer(ref).slice(0, 3).join("/")));
  return c;
}

function reachersOf(doc: Json): (segs: Segs) => string[] {
  const refsOf = new Map<string, Set<string>>(); // component pointer -> components it refers to
  const opRefs = new Map<string, Set<string>>(); // operation label -> components it refers to directly
  const refsIn = (v: unknown) => {
    const out = new Set<string>();
    for (const [, n] of nodes(v)) if (typeof n.$ref === "string" && n.$ref.startsWith("#/components/")) out.add(componentOf(n.$ref));
    return out;
  };
  for (const [kind, map] of Object.entries<Json>(doc.components ?? {})) for (const [name, v] of Object.entries(map ?? {})) refsOf.set(`components/${kind}/${name}`, refsIn(v));
  for (const [p, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const m of HTTP_METHODS) if (item?.[m]) opRefs.set(`${item[m].operationId ?? "?"} (${m.toUpperCase()} ${p})`, refsIn({ ...item[m], parameters: [...(item.parameters ?? []), ...(item[m].parameters ?? [])] }));
  }
  const closure = new Map<string, Set<string>>();
  const reach = (label: string, start: Set<string>) => {
    const seen = new Set<string>();
    const todo = [...start];
    while (todo.length) {
      const c = todo.pop()!;
      if (seen.has(c)) continue;
      seen.add(c);
      todo.push(...(refsOf.get(c) ?? []));
    }
    for (const c of seen) (closure.get(c) ?? closure.set(c, new Set()).get(c)!).add(label);
  };
  for (const [label, start] of opRefs) reach(label, start);
  return (segs) => {
    if (segs[0] === "paths") {
      const item = doc.paths?.[segs[1] as string];
      const m = segs[2] as string;
      return item?.[m] ? [`${item[m].operationId ?? "?"} (${m.toUpperCase()} ${segs[1]})`] : HTTP_METHODS.filter((x) => item?.[x]).map((x) => `${item[x].operationId} (${x.toUpperCase()} ${segs[1]})`);
    }
    if (segs[0] === "components") return [...(closure.get(segs.slice(0, 3).join("/")) ?? [])].sort();
    return ["every operation"];
  };
}

interface Found {
  impact: Impact;
  rule: string;
  kind: Change["kind"];
  segs: Segs;
  property: string;
  message: string;
}

/** Lifecycle transitions as `from → to` pairs, and its states. */
function lifecycleParts(l: Json): { transitions: string[]; states: string[] } {
  const transitions: string[] = [];
  const states = new Set<string>([l?.initial, ...(l?.terminal ?? [])].filter((s) => typeof s === "string"));
  for (const t of l?.transitions ?? []) {
    for (const from of [t.from].flat()) {
      transitions.push(`${from} → ${t.to}`);
      states.add(from).add(t.to);
    }
  }
  return { transitions, states: [...states] };
}

/** Set-like comparison: what was lost breaks clients, what was gained is an addition. */
function setChange(f: Omit<Found, "impact" | "kind" | "message">, what: string, lost: string[], gained: string[], lostMeans: string): Found[] {
  const out: Found[] = [];
  if (lost.length) out.push({ ...f, impact: "major", kind: "removed", message: `${what} lost ${list(lost)}: ${lostMeans}` });
  if (gained.length) out.push({ ...f, impact: "minor", kind: "added", message: `${what} gained ${list(gained)}.` });
  return out;
}

function compareExtension(name: string, b: unknown, h: unknown, segs: Segs): Found[] {
  const f = { rule: `contract/${name.slice(2)}`, segs, property: name };
  if (b === undefined) return [{ ...f, impact: "minor", kind: "added", message: `\`${name}\` was added.` }];
  if (h === undefined) return [{ ...f, impact: "major", kind: "removed", message: `\`${name}\` was removed: clients that rely on it lose it.` }];
  if (name === "x-extensible-enum" && Array.isArray(b) && Array.isArray(h)) {
    return setChange(f, "`x-extensible-enum`", b.filter((x) => !h.includes(x)), h.filter((x) => !b.includes(x)), "clients that handle these values never see them again.");
  }
  if (name === "x-lifecycle") {
    const [bl, hl] = [lifecycleParts(b), lifecycleParts(h)];
    const out = [
      ...setChange(f, "The lifecycle", bl.states.filter((s) => !hl.states.includes(s)), [], "clients that wait for these states wait forever."),
      ...setChange(f, "The lifecycle's transitions", bl.transitions.filter((t) => !hl.transitions.includes(t)), hl.transitions.filter((t) => !bl.transitions.includes(t)), "clients that expect these moves never see them."),
    ];
    if ((b as Json).initial !== (h as Json).initial) out.push({ ...f, impact: "major", kind: "modified", message: `The lifecycle's initial state changed from ${code((b as Json).initial)} to ${code((h as Json).initial)}.` });
    if (out.length || same({ ...(b as Json), transitions: 0 }, { ...(h as Json), transitions: 0 })) return out;
    return [{ ...f, impact: "major", kind: "modified", message: "The lifecycle's effects (`set`, `emits`, `terminal`) changed." }];
  }
  if (name === "x-scopes" && Array.isArray(b) && Array.isArray(h)) {
    const gained = h.filter((x) => !b.includes(x));
    const lost = b.filter((x) => !h.includes(x));
    const out: Found[] = [];
    if (gained.length) out.push({ ...f, impact: "major", kind: "modified", message: `\`x-scopes\` now also requires ${list(gained)}: tokens without it are refused.` });
    if (lost.length) out.push({ ...f, impact: "minor", kind: "modified", message: `\`x-scopes\` no longer requires ${list(lost)}.` });
    return out;
  }
  if (name === "x-completion" && !Array.isArray(b) && !Array.isArray(h) && typeof b === "object" && typeof h === "object") return completionChange(f, b as Json, h as Json);
  if (name === "x-idempotency" && isObject(b) && isObject(h)) return idempotencyChange(f, b as Json, h as Json);
  return [{ ...f, impact: "major", kind: "modified", message: `\`${name}\` changed from ${short(b)} to ${short(h)}.` }];
}

/**
 * `x-idempotency`, field by field. An operation leaving `exempt` now takes the key: a client that sends none sees
 * nothing change (minor); one entering it loses the replay (major). A `fingerprint` that gained a part tells more
 * requests apart: the same request still replays, a key reused for another one answers 422 (minor); one that lost
 * a part replays requests that differ (major). Any other field (the header, the window, the codes) is major.
 */
function idempotencyChange(f: Omit<Found, "impact" | "kind" | "message">, b: Json, h: Json): Found[] {
  const keys = (x: unknown) => (isObject(x) ? Object.keys(x) : []);
  const parts = (x: unknown) => (Array.isArray(x) ? x.map(String) : []);
  const minus = (a: string[], c: string[]) => a.filter((x) => !c.includes(x));
  const [nowKeyed, nowExempt] = [minus(keys(b.exempt), keys(h.exempt)), minus(keys(h.exempt), keys(b.exempt))];
  const [lostParts, gainedParts] = [minus(parts(b.fingerprint), parts(h.fingerprint)), minus(parts(h.fingerprint), parts(b.fingerprint))];
  const out: Found[] = [];
  if (nowKeyed.length) out.push({ ...f, impact: "minor", kind: "added", message: `${list(nowKeyed)} now take \`Idempotency-Key\` (no longer \`exempt\`): a client that sends none sees no change.` });
  if (nowExempt.length) out.push({ ...f, impact: "major", kind: "removed", message: `${list(nowExempt)} no longer take \`Idempotency-Key\` (now \`exempt\`): a retry with a key creates again.` });
  if (lostParts.length) out.push({ ...f, impact: "major", kind: "removed", message: `The idempotency \`fingerprint\` no longer covers ${list(lostParts)}: requests that differ there replay each other's answer.` });
  if (gainedParts.length) out.push({ ...f, impact: "minor", kind: "modified", message: `The idempotency \`fingerprint\` now covers ${list(gainedParts)}: the same request still replays; a key reused for a request that differs there answers 422.` });
  for (const k of new Set([...Object.keys(b), ...Object.keys(h)])) {
    if (k === "exempt" || k === "fingerprint" || same(b[k], h[k])) continue;
    out.push({ ...f, impact: "major", kind: "modified", message: `\`x-idempotency\` \`${k}\` changed from ${short(b[k])} to ${short(h[k])}.` });
  }
  return out;
}

/**
 * `x-completion`, filler by filler (a property or an operation, and what fills it, per state): a filler lost, or one
 * whose `when` narrowed, leaves clients without content they had (major); a filler gained, or a `when` that only
 * gained alternatives (`contains: {const: a}` becoming `contains: {enum: [a, …]}`), fills more (minor).
 */
function completionChange(f: Omit<Found, "impact" | "kind" | "message">, b: Json, h: Json): Found[] {
  type Filler = { property?: string; operation?: string; by: string; when?: Json };
  const key = (x: Filler) => `${x.property ?? x.operation} by ${x.by}`;
  const byKey = (v: Json) => new Map<string, Filler>(Object.entries<Filler[]>(v ?? {}).flatMap(([state, xs]) => (xs ?? []).map((x): [string, Filler] => [`${state}: ${key(x)}`, x])));
  const [bm, hm] = [byKey(b), byKey(h)];
  const out = setChange(f, "`x-completion`", [...bm.keys()].filter((k) => !hm.has(k)), [...hm.keys()].filter((k) => !bm.has(k)), "clients no longer get that content.");
  for (const [k, bx] of bm) {
    const hx = hm.get(k);
    if (!hx || same(bx.when, hx.when)) continue;
    const widened = widenedContains(bx.when, hx.when);
    out.push({ ...f, impact: widened ? "minor" : "major", kind: "modified", message: `\`x-completion\` ${k}: its condition ${widened ? "gained alternatives" : "changed"} (${short(bx.when)} → ${short(hx.when)}).` });
  }
  return out;
}

/** A `when` whose only change is `contains: {const: a}` → `contains: {enum: [a, …]}` at one property: it holds in more cases. */
function widenedContains(b: Json, h: Json): boolean {
  const bp = b?.properties ?? {};
  const hp = h?.properties ?? {};
  const names = Object.keys(bp);
  if (!same(names.sort(), Object.keys(hp).sort())) return false;
  const changed = names.filter((n) => !same(bp[n], hp[n]));
  if (changed.length !== 1 || !same({ ...b, properties: 0 }, { ...h, properties: 0 })) return false;
  const [bc, hc] = [bp[changed[0]!]?.contains, hp[changed[0]!]?.contains];
  return bc && hc && "const" in bc && Array.isArray(hc.enum) && hc.enum.some((v: unknown) => same(v, bc.const)) && Object.keys(bc).length === 1 && Object.keys(hc).length === 1;
}

const short = (v: unknown) => {
  const s = JSON.stringify(v);
  return s.length <= 80 ? `\`${s}\`` : "another value";
};

function compareKeyword(name: string, b: unknown, h: unknown, segs: Segs): Found[] {
  const f = { rule: `contract/schema-${name.toLowerCase()}`, segs, property: name };
  if (name === "default") {
    const message =
      b === undefined
        ? `A \`default\` ${short(h)} was added: a request that leaves the field out now means that value.`
        : h === undefined
          ? `The \`default\` ${short(b)} was removed: a request that leaves the field out no longer means it.`
          : `The \`default\` changed from ${short(b)} to ${short(h)}: a request that leaves the field out now means something else.`;
    return [{ ...f, impact: "major", kind: "modified", message }];
  }
  // readOnly/writeOnly: a field that now exists on one side only disappears from the other.
  const side = name === "readOnly" ? "requests" : "responses";
  if (h === true) return [{ ...f, impact: "major", kind: "modified", message: `The field became \`${name}\`: it is no longer part of ${side}.` }];
  return [{ ...f, impact: "minor", kind: "modified", message: `The field is no longer \`${name}\`: it is now part of ${side} too.` }];
}

/** Not entered: their changes are judged as a whole by their own rules, and examples are no contract. */
const FELT_SKIP = new Set(["x-lifecycle", "x-rate-limit-policy", "examples", "example"]);

/** Every changed client-felt extension and keyword, with the operations that reach it. */
export function clientFeltChanges(base: Bundle, head: Bundle): Change[] {
  const found: Found[] = [];
  // Reported where the node lives in the head (a parameter may have moved in its list); a removed or added node is
  // redocly's to report.
  walkBoth(base.doc, head.doc, FELT_SKIP, (segs, b, h) => {
    for (const name of CLIENT_EXTENSIONS) if (!same(b[name], h[name])) found.push(...compareExtension(name, b[name], h[name], segs));
    const isSchema = segs.includes("schemas") || segs.includes("schema") || segs.includes("properties");
    if (isSchema) for (const k of FELT_KEYWORDS) if (!same(b[k], h[k])) found.push(...compareKeyword(k, b[k], h[k], segs));
  });
  const reachB = reachers(base.doc);
  const reachH = reachers(head.doc);
  return found.map((f) => {
    const pointer = toPointer(f.segs);
    const ops = [...new Set([...reachH(f.segs), ...reachB(f.segs)])];
    const file = f.kind === "removed" ? base : head;
    const exact = file.locate(toPointer([...f.segs, f.property]));
    return {
      impact: f.impact,
      rule: f.rule,
      kind: f.kind,
      pointer,
      property: f.property,
      where: `${describeSegs(f.segs)}`,
      message: f.message,
      location: exact.line ? exact : file.locate(pointer),
      operations: ops,
    };
  });
}

/** `Alert` field `status`, `BoardCreate` field `shared`, `createAlert (POST /v1/alerts)`. */
function describeSegs(segs: Segs): string {
  if (segs[0] === "components") {
    const fields = segs.slice(3).filter((s, i, a) => a[i - 1] === "properties").map(String);
    return `\`${segs[2]}\`${fields.length ? ` field \`${fields.join(".")}\`` : ""}`;
  }
  if (segs[0] === "paths") return `${String(segs[2] ?? "").toUpperCase()} ${segs[1]}${segs.length > 3 ? ` ${segs.slice(3).join("/")}` : ""}`;
  return segs.join("/") || "root";
}

/** True for a redocly change that `clientFeltChanges` reports better (same keyword). */
export const feltSupersedes = (property: string | undefined, path: string): boolean =>
  (property !== undefined && (FELT_KEYWORDS.includes(property) || CLIENT_EXTENSIONS.includes(property))) || CLIENT_EXTENSIONS.some((x) => path.includes(`/${x}`));
