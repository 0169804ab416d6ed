// This contract's own breaking-change rules, for what `redocly diff` (2.77, diff-recommended) misses or rates
// too low. Each was found by planting the change on a copy of the real bundle (test/scripts/breaking/own-rules.test.ts
// shows redocly's verdict next to ours):
//   - `x-rate-limit-policy` (root extension): redocly reports no change at all, whatever is removed or lowered.
//   - `x-rate-limit-category` of an operation: redocly rates the change a patch.
//   - a response header that was required becoming optional: redocly rates it a patch.
// They are small structural walks over the two parsed bundles because redocly's diff rules are built in: a
// config can only change a rule's impact, and there is no rule (or plugin hook) for extensions at all.
// Removed headers, fields, operations, webhooks and security schemes are left to redocly, which catches them.
import type { Json } from "../contract.js";
import type { Bundle, Change, Impact, RedoclyChange } from "./diff-types.js";
import { deref, describePointer, HTTP_METHODS, splitPointer, toPointer } from "./diff-pointer.js";

export interface RuleResult {
  changes: Change[];
  /** True for a redocly change that one of our changes replaces (same node, better rating). */
  supersedes(c: RedoclyChange): boolean;
}

const POLICY = "x-rate-limit-policy";
const CATEGORY = "x-rate-limit-category";
/** Policy numbers where a higher value gives clients more: lowering one breaks them, raising one is an addition. */
const ALLOWANCES = new Set(["requests_per_minute", "requests_per_day", "multiplier"]);

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
const named = (v: unknown): v is Array<{ name: string }> => Array.isArray(v) && v.every((e) => isObject(e) && typeof e.name === "string");
const show = (v: unknown) => `\`${JSON.stringify(v)}\``;

function change(
  base: Bundle,
  head: Bundle,
  c: { impact: Impact; rule: string; kind: Change["kind"]; segments: Array<string | number>; message: string; property?: string },
): Change {
  const pointer = toPointer(c.segments);
  // On the changed property's own line when it is there; a removed node is found in the base.
  const file = c.kind === "removed" ? base : head;
  const exact = c.property !== undefined ? file.locate(toPointer([...c.segments, c.property])) : undefined;
  return {
    impact: c.impact,
    rule: c.rule,
    kind: c.kind,
    pointer,
    ...(c.property !== undefined && { property: c.property }),
    where: describePointer(pointer, [head.doc, base.doc]),
    message: c.message,
    location: exact?.line ? exact : file.locate(pointer),
  };
}

/**
 * `x-rate-limit-policy`, compared key by key: anything removed is major, anything added minor; a plan limit or
 * multiplier lowered is major and raised minor; categories are matched by name and their order counts (the first
 * match wins); any other changed value (path rules, windows, header names, error codes) is major.
 */
function policyChanges(base: Bundle, head: Bundle): Change[] {
  const out: Change[] = [];
  const rule = "contract/rate-limit-policy";
  // `segs` points into the head, `bSegs` into the base (they differ inside reordered arrays); `last` names the entry.
  const walk = (b: unknown, h: unknown, segs: Array<string | number>, bSegs = segs, last = String(segs[segs.length - 1])): void => {
    if (same(b, h)) return;
    if (h === undefined) {
      out.push(change(base, head, { impact: "major", rule, kind: "removed", segments: bSegs, message: `\`${last}\` was removed from the rate-limit policy.` }));
    } else if (b === undefined) {
      out.push(change(base, head, { impact: "minor", rule, kind: "added", segments: segs, message: `\`${last}\` was added to the rate-limit policy.` }));
    } else if (named(b) && named(h)) {
      const [bn, hn] = [b.map((e) => e.name), h.map((e) => e.name)];
      const kept = bn.filter((n) => hn.includes(n));
      if (!same(kept, hn.filter((n) => bn.includes(n)))) {
        out.push(
          change(base, head, {
            impact: "major",
            rule,
            kind: "modified",
            segments: segs,
            message: `The order of \`${last}\` changed from ${show(bn)} to ${show(hn)}; the first match wins, so paths can change category.`,
          }),
        );
      }
      bn.forEach((n, i) => walk(b[i], h[hn.indexOf(n)], [...segs, hn.indexOf(n)], [...bSegs, i], `${last}[${n}]`));
      hn.forEach((n, i) => !bn.includes(n) && walk(undefined, h[i], [...segs, i], [...segs, i], `${last}[${n}]`));
    } else if (isObject(b) && isObject(h)) {
      for (const k of new Set([...Object.keys(b), ...Object.keys(h)])) walk(b[k], h[k], [...segs, k], [...bSegs, k]);
    } else if (typeof b === "number" && typeof h === "number" && ALLOWANCES.has(last)) {
      const lowered = h < b;
      out.push(
        change(base, head, {
          impact: lowered ? "major" : "minor",
          rule,
          kind: "modified",
          segments: segs,
          message: `\`${last}\` ${lowered ? "lowered" : "raised"} from ${b} to ${h}.`,
        }),
      );
    } else {
      out.push(change(base, head, { impact: "major", rule, kind: "modified", segments: segs, message: `\`${last}\` changed from ${show(b)} to ${show(h)}.` }));
    }
  };
  walk(base.doc[POLICY], head.doc[POLICY], [POLICY]);
  return out;
}

type Visit = (path: string, method: string, bOp: Json, hOp: Json) => void;
/** Calls `visit` for every operation under `paths` that both bundles have. */
function commonOperations(base: Bundle, head: Bundle, visit: Visit): void {
  for (const [p, bItem] of Object.entries<Json>(base.doc.paths ?? {})) {
    const hItem = head.doc.paths?.[p];
    if (!hItem) continue;
    for (const m of HTTP_METHODS) if (bItem[m] && hItem[m]) visit(p, m, bItem[m], hItem[m]);
  }
}

/** An operation's rate-limit category moving (or disappearing) moves its requests to another bucket and limit. */
function categoryChanges(base: Bundle, head: Bundle): { changes: Change[]; pointers: Set<string> } {
  const changes: Change[] = [];
  commonOperations(base, head, (p, m, bOp, hOp) => {
    const [b, h] = [bOp[CATEGORY], hOp[CATEGORY]];
    if (b === undefined || b === h) return;
    changes.push(
      change(base, head, {
        impact: "major",
        rule: "contract/rate-limit-category",
        kind: "modified",
        segments: ["paths", p, m],
        property: CATEGORY,
        message:
          h === undefined
            ? `\`${CATEGORY}\` \`${b}\` was removed.`
            : `\`${CATEGORY}\` changed from \`${b}\` to \`${h}\`: its requests now draw from another per-minute bucket, with another limit.`,
      }),
    );
  });
  return { changes, pointers: new Set(changes.map((c) => c.pointer)) };
}

/**
 * A response header that every response of a kind promised (`required: true`) and that may now be missing.
 * Reported once per header definition (a shared component is used by hundreds of responses), with a count.
 */
function optionalHeaderChanges(base: Bundle, head: Bundle): { changes: Change[]; names: Set<string> } {
  const found = new Map<string, { name: string; segs: Array<string | number>; uses: string[] }>();
  commonOperations(base, head, (p, m, bOp, hOp) => {
    for (const [status, bRes] of Object.entries<Json>(bOp.responses ?? {})) {
      const hRaw = hOp.responses?.[status];
      const hRes = deref(head.doc, hRaw);
      for (const [name, bHeader] of Object.entries<Json>(deref(base.doc, bRes)?.headers ?? {})) {
        const hHeaderRaw = hRes?.headers?.[name];
        const hHeader = deref(head.doc, hHeaderRaw);
        if (deref(base.doc, bHeader)?.required !== true || !hHeader || hHeader.required === true) continue;
        // Where the head defines it: a header component, a shared response, or inline in the operation.
        const segs: Array<string | number> =
          typeof hHeaderRaw?.$ref === "string"
            ? splitPointer(hHeaderRaw.$ref)
            : typeof hRaw?.$ref === "string"
              ? [...splitPointer(hRaw.$ref), "headers", name]
              : ["paths", p, m, "responses", status, "headers", name];
        const key = toPointer(segs);
        const entry = found.get(key) ?? { name, segs, uses: [] };
        entry.uses.push(`${m.toUpperCase()} ${p} ${status}`);
        found.set(key, entry);
      }
    }
  });
  const changes = [...found.values()].map(({ name, segs, uses }) =>
    change(base, head, {
      impact: "major",
      rule: "contract/response-header-optional",
      kind: "modified",
      segments: segs,
      property: "required",
      message: `Response header \`${name}\` is no longer required in ${uses.length} response${uses.length === 1 ? "" : "s"} (first: ${uses[0]}); clients that read it can find it missing.`,
    }),
  );
  return { changes, names: new Set([...found.values()].map((f) => f.name)) };
}

const RESPONSE_HEADER = /\/responses\/[^/]+\/headers\/[^/]+$/;

export function contractRules(base: Bundle, head: Bundle): RuleResult {
  const category = categoryChanges(base, head);
  const headers = optionalHeaderChanges(base, head);
  return {
    changes: [...policyChanges(base, head), ...category.changes, ...headers.changes],
    supersedes: (c) =>
      (c.property === CATEGORY && category.pointers.has(c.path)) ||
      (c.property === "required" && RESPONSE_HEADER.test(c.path) && headers.names.has(splitPointer(c.path).pop()!)),
  };
}
