// Valid values generated from the contract's schemas, for requests beyond the named examples. json-schema-faker
// (seeded, JSON Schema 2020-12) proposes a value; ajv, with the same schemas the gateway validates against, has the
// last word: a proposal that does not validate is dropped and another seed tried, so every "valid" request the
// verifier sends is valid by the contract, and a 422 to it is a real departure.
//
// Nothing generated points anywhere real: URLs and e-mail addresses use the reserved `.invalid` top-level domain
// (RFC 2606), so a service that fetches a media URL, calls a webhook or mails an invitation reaches no one.
import { generateSync, type JsonSchema } from "json-schema-faker";
import type { Json } from "../../mock/core/contract/contract-build.js";
import type { ContractView } from "./contract-view.js";

const ATTEMPTS = 6;
/** Longest string and array the generator proposes (a contract bound may allow 2 GiB; the sample stays small). */
const SAMPLE_MAX_LENGTH = 40;
const SAMPLE_MAX_ITEMS = 3;
/**
 * Values already generated, by seed, request number and schema: json-schema-faker needs up to half a second for a
 * schema with `dependentSchemas` (AnalysisCreate), and a process that verifies twice (tests) asks the same again.
 */
const memo = new Map<string, unknown>();
export const RESERVED_DOMAIN = "verify.invalid";

export class ValueGenerator {
  private readonly schemas: Record<string, Json>;

  private readonly small = new Map<string, JsonSchema>();

  constructor(
    private readonly view: ContractView,
    private readonly seed: number,
  ) {
    this.schemas = view.contract.doc.components?.schemas ?? {};
  }

  /**
   * A value valid against `schema`, different for each `n` (and each seed of the run), or undefined when no
   * attempt validates (the caller then keeps to the examples).
   */
  value(schema: Json, n: number): unknown {
    const key = `${this.seed}:${n}:${JSON.stringify(schema)}`;
    if (!memo.has(key)) memo.set(key, this.fresh(schema, n));
    return structuredClone(memo.get(key));
  }

  private fresh(schema: Json, n: number): unknown {
    const validate = this.view.bodyValidator(schema ?? {});
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const seed = this.seed * 7919 + n * 131 + attempt;
      let value: unknown;
      try {
        value = generateSync(small(schema) as JsonSchema, {
          seed,
          refResolver: (ref) => this.resolve(ref),
          maxItems: SAMPLE_MAX_ITEMS,
          maxLength: SAMPLE_MAX_LENGTH,
          optionalsProbability: 0.5,
          formats: {
            uri: (r) => `https://host-${r.int(1, 9999)}.${RESERVED_DOMAIN}/media/${r.int(1, 99999)}`,
            email: (r) => `user${r.int(1, 99999)}@${RESERVED_DOMAIN}`,
            hostname: (r) => `host-${r.int(1, 9999)}.${RESERVED_DOMAIN}`,
          },
        });
      } catch {
        continue; // a schema the generator cannot satisfy this time (e.g. a `false` branch): next seed
      }
      value = toReservedHosts(value);
      if (validate(value)) return value;
    }
    return undefined;
  }

  private resolve(ref: string): JsonSchema {
    const name = /^#\/components\/schemas\/(.+)$/.exec(ref)?.[1];
    const schema = name ? this.schemas[name] : undefined;
    if (schema === undefined) throw new Error(`cannot resolve ${ref}`);
    if (!this.small.has(name!)) this.small.set(name!, small(schema) as JsonSchema);
    return this.small.get(name!)!;
  }
}

/**
 * A copy of `schema` whose `maxLength` and `maxItems` are lowered to the sample sizes (never below the schema's own
 * minimum). json-schema-faker's `maxLength`/`maxItems` options do not cap a bound the schema states itself, so a
 * contract bound of 2 GiB (raw uploads) made it build a 2 GiB string. The value is still checked against the
 * unchanged schema by ajv.
 */
function small(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(small);
  if (!schema || typeof schema !== "object") return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries<Json>(schema)) out[k] = k === "enum" || k === "const" || k === "examples" || k === "default" ? v : small(v);
  if (typeof out.maxLength === "number") out.maxLength = Math.max(out.minLength ?? 0, Math.min(out.maxLength, SAMPLE_MAX_LENGTH));
  if (typeof out.maxItems === "number") out.maxItems = Math.max(out.minItems ?? 0, Math.min(out.maxItems, SAMPLE_MAX_ITEMS));
  return out;
}

/** Every absolute http(s) URL and e-mail address in a value, moved to the reserved domain. */
export function toReservedHosts(value: unknown): unknown {
  if (typeof value === "string") {
    if (/^https?:\/\//i.test(value)) {
      try {
        const u = new URL(value);
        if (!u.hostname.endsWith(RESERVED_DOMAIN)) u.hostname = `host.${RESERVED_DOMAIN}`;
        return u.toString();
      } catch {
        return value;
      }
    }
    const at = /^([^@\s]+)@[^@\s]+$/.exec(value);
    return at ? `${at[1]}@${RESERVED_DOMAIN}` : value;
  }
  if (Array.isArray(value)) return value.map(toReservedHosts);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toReservedHosts(v)]));
  return value;
}
