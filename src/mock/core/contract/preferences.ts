// What a request prefers of the contract's examples (`Prefer: code=…, example=…, dynamic=…`), the answers made from
// them, and what the core asks of Prism (prism.ts, the Node adapter that loads @stoplight/prism-http): no Node
// module here, so the core bundles for a browser, where answers Prism alone gives (dynamic ones) are refused.
import type { Route } from "./contract-build.js";
import { quote } from "../pipeline/log.js";

/** What a frontend asked for with `Prefer: code=…, example=…, dynamic=…` (or Prism's `__code` query parameters). */
export interface Preferences {
  code?: number;
  example?: string;
  dynamic?: boolean;
  /** A `code` that is not a 3-digit status, as written (reported by `preferProblem`). */
  badCode?: string;
}

export interface MockAnswer {
  status: number;
  contentType: string | null;
  body: Buffer | null;
  /** The parsed body, for handlers that adapt an example (e.g. webhook creation). */
  value: unknown;
}

/**
 * Parses RFC 7240 `Prefer` (`code=404, example=not_found`; `,` or `;` separated, values optionally quoted).
 * Hand-written: a few lines, and the installed packages offer no public parser for it.
 */
/** What a request without `Prefer` (and without `__code`-style parameters) prefers: nothing. */
const NO_PREFERENCES: Readonly<Preferences> = Object.freeze({});

export function parsePrefer(header: string | undefined, query?: URLSearchParams): Preferences {
  // Most requests ask for nothing: one shared, frozen answer, nothing allocated.
  if (!header && (!query || query.size === 0)) return NO_PREFERENCES;
  // No prototype: a preference named `__proto__` or `constructor` is just an unknown one.
  const raw: Record<string, string> = Object.create(null);
  if (header) {
    for (const part of header.split(/[,;]/)) {
      const m = /^\s*([A-Za-z_-]+)\s*(?:=\s*"?([^"]*)"?)?\s*$/.exec(part);
      if (m) raw[m[1]!.toLowerCase()] = m[2] ?? "true";
    }
  } else if (query) {
    for (const k of ["code", "example", "dynamic"]) {
      const v = query.get(`__${k}`);
      if (v != null) raw[k] = v;
    }
  }
  const out: Preferences = {};
  if (raw.code && /^\d{3}$/.test(raw.code)) out.code = Number(raw.code);
  else if (raw.code) out.badCode = raw.code;
  if (raw.example) out.example = raw.example;
  if (raw.dynamic === "true") out.dynamic = true;
  return out;
}

/**
 * Why a `Prefer` cannot be honoured for this operation, or undefined when it can: an undocumented status, or an
 * example name the chosen response does not have. The message lists what the operation does document, so a
 * frontend developer can correct the header at once (Prism itself would answer a bare 404, which reads like the
 * operation's own "not found").
 */
export function preferProblem(route: Route, prefer: Preferences, deref: (v: unknown) => any): string | undefined {
  const op = `${route.method.toUpperCase()} ${route.template}`;
  const responses: Record<string, unknown> = route.op.responses ?? {};
  const codes = Object.keys(responses).join(", ");
  if (prefer.badCode !== undefined) return `Prefer code=${quote(prefer.badCode)} is not a status code; ${op} documents ${codes}.`;
  if (prefer.code !== undefined && !(String(prefer.code) in responses)) return `Prefer code=${prefer.code}: ${op} documents ${codes}.`;
  if (prefer.example === undefined) return undefined;
  const status = String(prefer.code ?? route.successCode);
  const content: Record<string, { examples?: Record<string, unknown> }> = deref(responses[status])?.content ?? {};
  const names = [...new Set(Object.values(content).flatMap((m) => Object.keys(m.examples ?? {})))];
  if (names.includes(prefer.example)) return undefined;
  return `Prefer example=${quote(prefer.example)}: the ${status} response of ${op} has ${names.length ? `the examples ${names.join(", ")}` : "no named examples"}.`;
}

/** How large a generated (`Prefer: dynamic=true`) value may grow: items per array, characters per string. */
export interface DynamicBounds {
  items: number;
  length: number;
}

export function jsonAnswer(status: number, value: unknown): MockAnswer {
  return { status, contentType: "application/json", body: Buffer.from(JSON.stringify(value)), value };
}

/** Prism's answers for what the contract's examples do not settle (prism.ts `PrismBackend`). */
export interface PrismAnswerer {
  /** How many operations it has loaded. */
  readonly operations: number;
  /** The cached answer, if there is one: without a turn of the event loop. */
  cached(route: Route, req: { accept?: string }, prefer: Preferences): MockAnswer | undefined;
  answer(route: Route, req: { path: string; query: URLSearchParams; accept?: string }, prefer: Preferences, bounds?: DynamicBounds): Promise<MockAnswer>;
}

/** Prism, loaded on first need (prism.ts `PrismOnDemand`). */
export interface PrismSource {
  /** Set once loaded. */
  readonly loaded: PrismAnswerer | null;
  /** Prism, loading it if nothing has yet; a failure to load is every caller's (a 500 for a request). */
  get(why: string): Promise<PrismAnswerer>;
}
