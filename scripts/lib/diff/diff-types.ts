// The versioning gate's shared types: a change and its impact, a loaded bundle, redocly's raw report entry and a
// comparison. Below diff.ts and its rule modules (diff-rules, diff-extensions, diff-narrowing, diff-policy,
// diff-sunset), which all take them from here, so none of them has to import diff.ts back.
import type { Json } from "../contract.js";

export type Impact = "major" | "minor" | "patch";

export interface Location {
  file: string; // relative to the repository root when inside it
  line?: number;
  col?: number;
  pointer: string; // where the node really is (a component, when the change was found through a $ref)
}

export interface Change {
  impact: Impact;
  /** redocly's diff rule id, or `contract/...` for this project's own rules; empty for unrated additions/edits. */
  rule: string;
  kind: "added" | "removed" | "modified";
  /** Logical pointer: through the operation that uses the node, as redocly reports it. */
  pointer: string;
  property?: string;
  /** Readable place: operation, response/request, field. */
  where: string;
  message: string;
  location?: Location;
  /** A new operation, schema or tag, named (release notes list these together: "New operations: `listTags` …"). */
  added?: { what: "operations" | "schemas" | "tags"; names: string[] };
  /** Every operation the changed node reaches (`operationId (METHOD /path)`), when a rule worked them out. */
  operations?: string[];
  /** From scripts/breaking/checks.yaml (diff-policy.ts); without it, a major change is an error. */
  severity?: "error" | "warning" | "info";
  /** The reason scripts/breaking/ignore.yaml gives for accepting this break. */
  accepted?: string;
  /** Accepted as a security fix (`security: true` in ignore.yaml): no major version needed (decision B14). */
  security?: boolean;
  /** The changed property's value before and after (redocly's), for saying what changed in words. */
  before?: unknown;
  after?: unknown;
}

export interface Bundle {
  file: string;
  version: string;
  doc: Json;
  /** Line and column of a (physical) pointer, when the file is YAML. */
  locate(pointer: string): Location;
}

export interface Comparison {
  base: Bundle;
  head: Bundle;
  changes: Change[];
  /** The highest impact among the changes; undefined when nothing changed. */
  impact: Impact | undefined;
  /** redocly's own report, before our rules replaced entries (tests show its misses with it). */
  redocly: RedoclyChange[];
  /** Entries of scripts/breaking/ignore.yaml that matched no change (reported; with --strict they fail the gate). */
  unusedAccepted?: AcceptedEntry[];
}

/** An accepted break (scripts/breaking/ignore.yaml): a rule, and the change's pointer (either the gate prints) or an operation. */
export interface AcceptedEntry {
  rule: string;
  pointer?: string;
  operation?: string;
  reason: string;
  /**
   * A security fix (decision B14): it ships within the version, as security fixes do at Stripe and GitHub, and the
   * changelog lists it under its own heading; any other accepted break needs the next major.
   */
  security?: boolean;
}

/** One change as `redocly diff --format=json` reports it (reportVersion 1). */
export interface RedoclyChange {
  path: string;
  typeName: string;
  kind: "added" | "removed" | "modified";
  impact: Impact;
  property?: string;
  verdicts: Array<{ ruleId: string; message: string }>;
  base?: { file: string; pointer: string; line: number; col: number; value?: unknown };
  revision?: { file: string; pointer: string; line: number; col: number; value?: unknown };
}
