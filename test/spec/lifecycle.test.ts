// The lifecycles of the contract (x-lifecycle) against what docs/decisions/contract.md documents, and against the
// other views of the same states: the schema descriptions, the webhooks, the event stream and every example.
import { describe, expect, it } from "vitest";
import { createAjv } from "../../scripts/lib/contract.js";
import { renderLifecycles, renderLifecycleTable } from "../../scripts/lib/docs/lifecycle-table.js";
import { edges, LIFECYCLE_MARKER, NOW, readLifecycles, type Machine } from "../../src/contract/lifecycle.js";
import { deref, doc, operations } from "../helpers/contract.js";
import { decisionsText, section } from "../helpers/spec-doc.js";

const ajv = createAjv();
const validate = (schema: object, value: unknown) => {
  const check = ajv.compile(schema);
  return check(value) ? undefined : ajv.errorsText(check.errors);
};
const machines = readLifecycles(doc, { validate });
const byName = new Map(Object.values(machines).map((m) => [`${m.schema}.${m.property}`, m]));

/**
 * The transitions documented in a text: in each bullet, a backticked `Schema.property` (or several joined by
 * "and") followed by backticked chains in arrow notation. `a → b → c | d` is a→b, b→c, b→d; `a | b → c` is a→c,
 * b→c; `a ⇄ b` is both ways. Returns `Schema.property` → the set of "from → to" edges.
 */
export function documentedTransitions(text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const bullet of text.split("\n").filter((l) => l.startsWith("- "))) {
    let group: string[] = [];
    let lastEnd = 0;
    let lastWasSubject = false;
    for (const m of bullet.matchAll(/`([^`]+)`/g)) {
      const token = m[1]!;
      const between = bullet.slice(lastEnd, m.index);
      lastEnd = m.index! + m[0].length;
      if (/^[A-Z][A-Za-z]*\.[a-z_]+$/.test(token)) {
        group = lastWasSubject && /^\s*(,|and|, and)\s*$/.test(between) ? [...group, token] : [token];
        lastWasSubject = true;
        continue;
      }
      lastWasSubject = false;
      if (!/[→⇄]/.test(token)) continue;
      if (!group.length) throw new Error(`a documented transition names no Schema.property before it: ${token} in "${bullet}"`);
      for (const subject of group) {
        const set = out.get(subject) ?? new Set<string>();
        for (const e of chainEdges(token)) set.add(e);
        out.set(subject, set);
      }
    }
  }
  return out;
}

function chainEdges(chain: string): string[] {
  const parts = chain.split(/\s*(→|⇄)\s*/);
  const states = (i: number) => parts[i]!.split("|").map((s) => s.trim());
  const out: string[] = [];
  for (let i = 1; i < parts.length; i += 2) {
    for (const a of states(i - 1)) {
      for (const b of states(i + 1)) {
        out.push(`${a} → ${b}`);
        if (parts[i] === "⇄") out.push(`${b} → ${a}`);
      }
    }
  }
  return out;
}

/** What a machine has that the documentation lacks, and the reverse. */
export function edgeDiff(documented: Set<string>, m: Machine): { undocumented: string[]; missing: string[] } {
  const actual = new Set(edges(m).map(([a, b]) => `${a} → ${b}`));
  return { undocumented: [...actual].filter((e) => !documented.has(e)), missing: [...documented].filter((e) => !actual.has(e)) };
}

const documented = documentedTransitions(section("Resources", decisionsText("contract")));

describe("lifecycles: the contract agrees with docs/decisions/contract.md", () => {
  // The decisions record the lifecycles the specification's resources were designed with; a resource added later is
  // documented by its own x-lifecycle and the state table generate renders from it (tested below), so it needs no
  // arrow notation here. What is documented must still be in the contract, exactly.
  it("every documented lifecycle is in the contract", () => {
    expect(documented.size).toBeGreaterThan(0);
    expect([...documented.keys()].filter((k) => !byName.has(k))).toEqual([]);
  });
  for (const [name, m] of byName) {
    if (!documented.has(name)) continue;
    it(`${name}: the transitions are exactly the documented ones`, () => {
      expect(edgeDiff(documented.get(name)!, m)).toEqual({ undocumented: [], missing: [] });
    });
  }
  it("the comparison catches a removed and an added transition", () => {
    const run = structuredClone(byName.get("Run.status")!);
    run.transitions = run.transitions.filter((t) => t.to !== "awaiting_approval");
    run.transitions.push({ from: ["failed"], to: "queued", trigger: "external", set: {} });
    expect(edgeDiff(documented.get("Run.status")!, run)).toEqual({ undocumented: ["failed → queued"], missing: ["running → awaiting_approval"] });
  });
  it("the arrow notation is read as documented", () => {
    expect([...documentedTransitions("- `A.s`: `a | b → c ⇄ d`; `c → e | f`.\n- `B.s` and `C.t`: `x → y`").entries()]).toEqual([
      ["A.s", new Set(["a → c", "b → c", "c → d", "d → c", "c → e", "c → f"])],
      ["B.s", new Set(["x → y"])],
      ["C.t", new Set(["x → y"])],
    ]);
    expect(() => documentedTransitions("- Runs: `a → b`")).toThrow(/names no Schema.property/);
  });
});

describe("lifecycles: the docs show them", () => {
  for (const m of Object.values(machines)) {
    it(`${m.schema}'s description carries its state table, rendered from x-lifecycle`, () => {
      const description: string = doc.components.schemas[m.schema].description;
      expect(description).not.toContain(LIFECYCLE_MARKER);
      expect(description).toContain(renderLifecycleTable(m));
      for (const [a, b] of edges(m)) expect(description).toMatch(new RegExp(`\\| [^\\n]*\`${a}\`[^\\n]*\\| \`${b}\` \\|`));
    });
  }
});

describe("lifecycles: the state table", () => {
  it("reads as the machine says: creation, triggers in words, webhooks, and the 409s", () => {
    const table = renderLifecycleTable(machines.Approval!);
    expect(table.split("\n")).toEqual(
      expect.arrayContaining([
        "**Lifecycle of `status`**: starts `pending`; `approved`, `rejected` and `expired` are final.",
        "| — | `pending` | created | `approval.requested` |",
        "| `pending` | `approved` | `approveApproval` |  |",
        "| `pending` | `expired` | 72 hours pass (at `expires_at`) |  |",
        "| `pending` | `expired` | the Run in `run_id` becomes `canceled` |  |",
        "- `rejectApproval` answers 409 unless `status` is `pending`.",
      ]),
    );
    expect(renderLifecycleTable(machines.Run!)).toContain("| `running` | `failed` | the service's processing (outcome `fail`) | `run.finished` |");
    expect(renderLifecycleTable(machines.Agent!)).toContain("| `active`, `paused` | `archived` | `updateAgent` sets `status` |  |");
  });
  it("a marker on a schema without a lifecycle stops generate", () => {
    const copy = { components: { schemas: { Board: { description: `Boards.\n\n${LIFECYCLE_MARKER}` } } } };
    expect(() => renderLifecycles(copy, machines)).toThrow(/Board holds <!-- x-lifecycle --> but Board has no x-lifecycle/);
  });
});

/** Every lifecycle resource inside a value, found by walking it with its schema (oneOf variants by their consts). */
function* resourcesIn(schema: unknown, value: unknown, depth = 0): Generator<[Machine, Record<string, unknown>]> {
  if (depth > 20 || !schema || typeof schema !== "object" || value === null || typeof value !== "object") return;
  const ref = (schema as { $ref?: string }).$ref;
  const named = ref?.startsWith("#/components/schemas/") ? machines[ref.slice("#/components/schemas/".length)] : undefined;
  if (named) yield [named, value as Record<string, unknown>];
  const s = deref<{ properties?: Record<string, unknown>; items?: unknown; oneOf?: unknown[] }>(schema);
  if (Array.isArray(value)) {
    for (const v of value) yield* resourcesIn(s.items, v, depth + 1);
    return;
  }
  for (const [k, sub] of Object.entries(s.properties ?? {})) yield* resourcesIn(sub, (value as Record<string, unknown>)[k], depth + 1);
  for (const variant of s.oneOf ?? []) {
    const props = deref<{ properties?: Record<string, { const?: unknown }> }>(variant).properties ?? {};
    const consts = Object.entries(props).filter(([, p]) => p?.const !== undefined);
    if (consts.length && consts.every(([k, p]) => (value as Record<string, unknown>)[k] === p.const)) yield* resourcesIn(variant, value, depth + 1);
  }
}

describe("lifecycles: every other view shows the same states", () => {
  // Every named example of every request and response body (webhooks included), with the body's schema.
  const bodies = [...operations(), ...operations("webhooks")].flatMap(({ path, method, op }) =>
    [["request", op.requestBody], ...Object.entries(op.responses ?? {})].flatMap(([code, r]) =>
      Object.entries<{ schema: unknown; examples?: Record<string, unknown> }>(deref(r)?.content ?? {}).map(([, media]) => ({ where: `${method} ${path} ${code}`, media })),
    ),
  );
  const sites = bodies.flatMap(({ where, media }) =>
    Object.entries(media.examples ?? {}).flatMap(([name, ex]) =>
      [...resourcesIn(media.schema, deref<{ value: unknown }>(ex).value)].map(([m, v]) => ({ where: `${where} example ${name}`, m, v })),
    ),
  );

  it("every example of a resource is in one of its states, with the fields its state sets to null or a time", () => {
    expect(new Set(sites.map((s) => s.m.schema)).size).toBe(Object.keys(machines).length);
    for (const { where, m, v } of sites) {
      const state = v[m.property] as string;
      expect(m.states, `${where}: ${m.schema}.${m.property}`).toContain(state);
      for (const [field, value] of Object.entries(m.set[state] ?? {})) {
        if (value === null) expect(v[field], `${where}: ${m.schema} ${state} has ${field} null`).toBeNull();
        if (value === NOW) expect(v[field], `${where}: ${m.schema} ${state} has a time in ${field}`).toMatch(/^\d{4}-\d\d-\d\dT/);
      }
    }
  });

  it("each webhook is sent on entering the states its examples show, and every webhook belongs to a lifecycle", () => {
    for (const [type, item] of Object.entries<{ post: { requestBody: unknown } }>(doc.webhooks)) {
      const emitters = Object.values(machines).flatMap((m) => Object.entries(m.emits).filter(([, e]) => e.includes(type)).map(([s]) => `${m.schema}.${s}`));
      expect(emitters.length, `${type} is emitted by no lifecycle`).toBeGreaterThan(0);
      const body = deref<{ content: Record<string, { schema: unknown; examples: Record<string, unknown> }> }>(item.post.requestBody).content["application/json"]!;
      const shown = Object.values(body.examples).flatMap((ex) => [...resourcesIn(body.schema, deref<{ value: unknown }>(ex).value)]);
      expect(shown.length, `${type}'s examples carry a resource`).toBeGreaterThan(0);
      for (const [m, v] of shown) expect(emitters, `${type} example`).toContain(`${m.schema}.${v[m.property]}`);
    }
  });

  it("the event stream's status events (SSE and /ws/analyses) use the Analysis status enum itself", () => {
    const statusEvent = deref<{ properties: { status: unknown } }>(doc.components.schemas.AnalysisStreamStatusEvent.properties.data).properties.status;
    expect(statusEvent).toEqual(doc.components.schemas.Analysis.properties.status);
    expect(deref<{ enum: string[] }>(statusEvent).enum).toEqual(machines.Analysis!.states);
  });

  it("an operation that requires a state documents its 409 in words too", () => {
    for (const m of Object.values(machines)) {
      for (const [id, states] of Object.entries(m.requires)) {
        const op = Object.values<Record<string, { operationId?: string; description?: string }>>(doc.paths)
          .flatMap((item) => Object.values(item))
          .find((o) => o?.operationId === id)!;
        expect(op.description, id).toMatch(/409/);
        for (const s of states) expect(op.description, `${id} names ${s}`).toContain(s.replace(/_/g, " ").split(" ")[0]);
      }
    }
  });
});
