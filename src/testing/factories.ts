// Typed test data from the contract's schemas: `build.analysis({ status: "completed" })`, `build.analysisList(3)`,
// for every schema of components/schemas (the method is the schema's name with a lower-case first letter). Valid
// by construction: the verifier's generator (src/verify/requests/generate.ts: json-schema-faker proposes, ajv with the
// gateway's schemas decides) makes each value from a seed and a counter, so the same seed gives the same values;
// overrides are merged in (objects deeply, arrays and scalars replaced), type-checked against the schema's type,
// and the result is validated again: an override the contract does not allow throws FactoryError naming the field.
import type { components } from "../../generated/schema.js";
import { readLifecycles, stateFields, type Machine } from "../contract/lifecycle.js";
import { DEFAULT_GENERATED_DIR, loadContract, type Contract } from "../mock/homes/node/contract-files.js";
import { ContractView } from "../verify/requests/contract-view.js";
import { ValueGenerator } from "../verify/requests/generate.js";

type Schemas = components["schemas"];
/** Every field optional, at every depth (arrays are replaced whole). */
export type Overrides<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]?: Overrides<T[K]> } : T;

export type Build = {
  [K in keyof Schemas & string as Uncapitalize<K>]: (overrides?: Overrides<Schemas[K]>) => Schemas[K];
} & {
  [K in keyof Schemas & string as `${Uncapitalize<K>}List`]: (count: number, overrides?: Overrides<Schemas[K]>) => Array<Schemas[K]>;
};

export interface Factories {
  /** One value of the schema `name`. */
  one<N extends keyof Schemas & string>(name: N, overrides?: Overrides<Schemas[N]>): Schemas[N];
  list<N extends keyof Schemas & string>(name: N, count: number, overrides?: Overrides<Schemas[N]>): Array<Schemas[N]>;
  readonly build: Build;
}

export class FactoryError extends Error {}

function merge(base: unknown, over: unknown): unknown {
  if (over === undefined) return base;
  if (!over || typeof over !== "object" || Array.isArray(over) || !base || typeof base !== "object" || Array.isArray(base)) return structuredClone(over);
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(over)) out[k] = merge(out[k], v);
  return out;
}

/**
 * The fields a value's lifecycle state decides, made to agree with it (decision RM17: a `completed` analysis has
 * `progress: 100` and a `completed_at`, a `processing` one none), except those the overrides give.
 */
function settle(m: Machine | undefined, value: unknown, overrides: unknown): unknown {
  const v = value as Record<string, unknown>;
  const state = m && v && typeof v === "object" ? v[m.property] : undefined;
  if (!m || typeof state !== "string") return value;
  const given = overrides && typeof overrides === "object" ? (overrides as Record<string, unknown>) : {};
  for (const { field, must } of stateFields(m, state)) {
    if (field in given) continue;
    if (must === "null") v[field] = null;
    else if (must === "set") v[field] ??= typeof v.updated_at === "string" ? v.updated_at : (v.created_at ?? new Date(0).toISOString());
    else v[field] = structuredClone(must.value);
  }
  return value;
}

export function createFactories(options: { seed?: number; contract?: Contract } = {}): Factories {
  const contract = options.contract ?? loadContract(DEFAULT_GENERATED_DIR);
  const view = new ContractView(contract);
  const generator = new ValueGenerator(view, options.seed ?? 1);
  const schemas = contract.doc.components?.schemas ?? {};
  const counters = new Map<string, number>();
  const machines = readLifecycles(contract.doc);
  function one(name: string, overrides?: unknown): never {
    if (!(name in schemas)) throw new FactoryError(`no schema ${name} in the contract's components/schemas`);
    const ref = { $ref: `#/components/schemas/${name}` };
    const n = counters.get(name) ?? 0;
    counters.set(name, n + 1);
    const value = settle(machines[name], merge(generator.value(ref, n), overrides), overrides);
    if (value === undefined) throw new FactoryError(`${name}: no valid value could be generated`);
    const validate = view.bodyValidator(ref);
    if (!validate(value)) {
      const e = validate.errors?.[0];
      throw new FactoryError(`${name}${e?.instancePath ?? ""}: ${e?.message ?? "invalid"} (the contract's schema; check the overrides)`);
    }
    return value as never;
  }
  const list = (name: string, count: number, overrides?: unknown) => Array.from({ length: count }, () => one(name, overrides));
  const build = new Proxy({} as Build, {
    get(_, prop) {
      if (typeof prop !== "string") return undefined;
      const m = /^(.*?)(List)?$/.exec(prop)!;
      const name = m[1]!.charAt(0).toUpperCase() + m[1]!.slice(1);
      return m[2] ? (count: number, o?: unknown) => list(name, count, o) : (o?: unknown) => one(name, o);
    },
  });
  return { one: one as Factories["one"], list: list as Factories["list"], build };
}
