// ajv's errors as the contract's 422 items `{loc, msg, type}` (decision E1): `loc` is where the value was
// (`body`, `query`, `path`, `header`) and the path to the field, `type` the JSON Schema keyword that failed, and
// `msg` words a form can show next to that field ("is required", "must be at most 200 characters"), made from
// the keyword and its schema, never per field. At most MAX_REPORTED_ISSUES are listed, then one item saying how
// many more there were, so a body with 100,000 unknown fields gets a short answer.
import type { ErrorObject } from "ajv/dist/2020.js";
import { truncate } from "../pipeline/log.js";

export interface ValidationIssue {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

/**
 * Longest string in a 422 item's `loc` (the contract's `ValidationErrorItem.loc` bound): a field name the client
 * chose (an unknown property) is cut there, ending in "…" (decision G22).
 */
export const MAX_LOC_CHARACTERS = 256;

/** How many violations a 422 lists before its final "… more" item. */
export const MAX_REPORTED_ISSUES = 100;

/** `type` of the final item of a 422 that lists only the first MAX_REPORTED_ISSUES violations. */
export const TRUNCATED_TYPE = "truncated";

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "true or false",
  object: "an object",
  array: "a list",
  null: "null",
};

const FORMAT_NAMES: Record<string, string> = {
  uri: "a valid URL",
  "uri-reference": "a valid URL",
  url: "a valid URL",
  email: "a valid email address",
  "date-time": "a date and time such as 2026-11-21T12:00:00Z",
  date: "a date such as 2026-11-21",
  time: "a time such as 12:00:00Z",
  uuid: "a UUID",
  ipv4: "an IPv4 address",
  ipv6: "an IPv6 address",
  hostname: "a host name",
};

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const listOf = (values: unknown[]) => values.map((v) => JSON.stringify(v)).join(", ");

/** Own properties only: a keyword or format named like an Object.prototype member finds nothing. */
function own(table: Record<string, string>, key: unknown): string | undefined {
  return typeof key === "string" && Object.hasOwn(table, key) ? table[key] : undefined;
}

/** The property a `dependentSchemas` branch depends on, when the error comes from inside one. */
function dependency(e: ErrorObject): string | undefined {
  if (typeof e.params.given === "string") return e.params.given; // a variant of an "exactly one of" (validation.ts)
  const m = /\/dependentSchemas\/([^/]+)\//.exec(e.schemaPath);
  return m ? m[1]!.replace(/~1/g, "/").replace(/~0/g, "~") : undefined;
}

/** What is wrong, in words for the field `loc` points at. */
function message(e: ErrorObject): string {
  const p = e.params as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const dep = dependency(e);
  switch (e.keyword) {
    case "required":
      return "is required";
    case "dependentRequired":
      return `is required when \`${p.property}\` is given`;
    case "additionalProperties":
    case "unevaluatedProperties":
      return "is not a known field";
    case "false schema":
      return dep ? `cannot be combined with \`${dep}\`` : "is not allowed here";
    case "type":
      return `must be ${String(p.type).split(",").map((t) => own(TYPE_NAMES, t) ?? t).join(" or ")}`;
    case "enum":
      return `must be one of ${listOf(p.allowedValues)}`;
    case "const":
      return `must be ${JSON.stringify(p.allowedValue)}${dep ? ` when \`${dep}\` is given` : ""}`;
    case "maxLength":
      return `must be at most ${plural(p.limit, "character", "characters")}`;
    case "minLength":
      return p.limit === 1 ? "must not be empty" : `must be at least ${plural(p.limit, "character", "characters")}`;
    case "maximum":
      return `must be at most ${p.limit}`;
    case "minimum":
      return `must be at least ${p.limit}`;
    case "exclusiveMaximum":
      return `must be less than ${p.limit}`;
    case "exclusiveMinimum":
      return `must be greater than ${p.limit}`;
    case "multipleOf":
      return `must be a multiple of ${p.multipleOf}`;
    case "maxItems":
      return `must have at most ${plural(p.limit, "item", "items")}`;
    case "minItems":
      return `must have at least ${plural(p.limit, "item", "items")}`;
    case "uniqueItems":
      return `must not list the same value twice (items ${p.j} and ${p.i} are the same)`;
    case "maxProperties":
      return `must have at most ${plural(p.limit, "field", "fields")}`;
    case "minProperties":
      return `must have at least ${plural(p.limit, "field", "fields")}`;
    case "pattern":
      return `is not in the expected format (pattern ${p.pattern})`;
    case "format":
      return `must be ${own(FORMAT_NAMES, p.format) ?? `a valid ${p.format}`}`;
    case "oneOf":
      if (Array.isArray(p.exclusive)) return `must have one of ${p.exclusive.map((n: string) => `\`${n}\``).join(" or ")}`;
      return p.passingSchemas ? "matches more than one of the allowed forms" : "does not match any of the allowed forms";
    case "anyOf":
      return "does not match any of the allowed forms";
    case "not":
      return "is not allowed";
    case "contains":
      return `must contain at least ${plural(p.minContains ?? 1, "matching item", "matching items")}`;
    case "propertyNames":
      return "is not a valid field name";
    default:
      return e.message ?? e.keyword;
  }
}

/** The keyword named in `type`: ajv's, except the boolean schema `false`, named after what holds it. */
function typeOf(e: ErrorObject): string {
  if (e.keyword === "false schema") return dependency(e) ? "dependentSchemas" : "false";
  return e.keyword;
}

/**
 * Collects ajv errors (of one or more locations) as 422 items, in ajv's order, without duplicates, keeping the
 * first MAX_REPORTED_ISSUES and only counting the rest: a body with 100,000 unknown fields costs one counter,
 * not 100,000 items. `if` errors are left out: each only repeats that its `then` branch failed, whose own
 * errors are listed. Why a field name failed `propertyNames` (ajv reports it first, as an error of its own)
 * becomes part of the `propertyNames` item of that name.
 */
export class IssueCollector {
  private readonly issues: ValidationIssue[] = [];
  private readonly seen = new Set<string>();
  private readonly nameReasons = new Map<string, string>();
  private omitted = 0;
  private omittedAt: string | null = null;

  add(where: string, errors: ErrorObject[]): this {
    for (const e of errors) {
      if (e.keyword === "if") continue;
      if (e.propertyName !== undefined && e.keyword !== "propertyNames") {
        if (this.issues.length < MAX_REPORTED_ISSUES) this.nameReasons.set(`${e.instancePath}\u0000${e.propertyName}`, message(e));
        continue;
      }
      if (this.issues.length >= MAX_REPORTED_ISSUES) {
        this.omitted++;
        this.omittedAt ??= where;
        continue;
      }
      this.push(where, e);
    }
    return this;
  }

  private push(where: string, e: ErrorObject): void {
    const loc: Array<string | number> = [where, ...pointer(e.instancePath)];
    if (e.keyword === "required" || e.keyword === "dependentRequired") loc.push(e.params.missingProperty);
    if (e.keyword === "additionalProperties") loc.push(e.params.additionalProperty);
    if (e.keyword === "unevaluatedProperties") loc.push(e.params.unevaluatedProperty);
    let msg = message(e);
    if (e.keyword === "propertyNames") {
      loc.push(e.params.propertyName);
      const reason = this.nameReasons.get(`${e.instancePath}\u0000${e.params.propertyName}`);
      if (reason) msg += `: it ${reason}`;
    }
    const type = typeOf(e);
    // Told apart by their whole names, so two long names alike in their first 255 characters stay two items.
    const key = JSON.stringify([loc, type, msg]);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    for (let i = 1; i < loc.length; i++) if (typeof loc[i] === "string") loc[i] = truncate(loc[i] as string, MAX_LOC_CHARACTERS);
    this.issues.push({ loc, msg, type });
  }

  /** The issues kept, then, if some were only counted, one item saying how many (located where the first was). */
  result(): ValidationIssue[] {
    if (!this.omitted) return [...this.issues];
    const msg = `${this.omitted.toLocaleString("en-US")} more violations are not listed (only the first ${MAX_REPORTED_ISSUES} are).`;
    return [...this.issues, { loc: [this.omittedAt!], msg, type: TRUNCATED_TYPE }];
  }
}

/** ajv errors of one location as 422 items (see IssueCollector). */
export function toIssues(where: string, errors: ErrorObject[]): ValidationIssue[] {
  return new IssueCollector().add(where, errors).result();
}

export function pointer(instancePath: string): Array<string | number> {
  if (!instancePath) return [];
  return instancePath
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}
