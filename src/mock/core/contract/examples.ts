// The contract's examples as Prism would serve them, read straight from the contract, so that the gateway answers
// without loading Prism (which takes a second or two and blocks the event loop meanwhile). For a request that
// asks for no dynamic example, the answer is the same one Prism picks, by the same rules:
//   - the response: the one `Prefer: code` names, else the lowest 2xx (compared as strings, as Prism does);
//   - the media type: for an Accept header, the one the `accepts` package (Prism's own negotiator) chooses, by way
//     of the `negotiator` package it calls (accepts itself needs node:path, and the core runs in a browser); without
//     one, `application/json` if the response has it, else the first;
//   - the example: the one `Prefer: example` names, else the first (an `example` beside `examples` comes first,
//     named `default`);
//   - the body: the example's value as JSON (a string as it is); none for 204, for null, or a response without content.
// Anything these rules do not settle — `Prefer: dynamic=true`, an Accept none of the media types satisfies, an
// example without a value, a status range such as `2XX`, a HEAD operation — is left to Prism (`undefined`).
// test/mock/core/contract/examples.test.ts compares every answer of every operation with Prism's.
import NegotiatorModule from "negotiator";
import type { Contract, Json, Route } from "./contract-build.js";
import type { MockAnswer, Preferences } from "./preferences.js";


/**
 * What `accepts(req).type(types)` answers (accepts 1.3.8, Prism's negotiator): the first of `types` the Accept
 * header prefers, or false. The contract's media types are full types (`a/b`), so accepts' extension lookup never
 * applies; test/mock/core/contract/examples.test.ts compares the answers with Prism's.
 */
function accepts(accept: string): { type(types: string[]): string | false } {
  const negotiator = new NegotiatorModule({ headers: { accept } });
  return { type: (types) => (accept ? (negotiator.mediaTypes(types)[0] ?? false) : (types[0] ?? false)) };
}

/** Accept headers remembered per operation (a client sends the same one again and again); more are not kept. */
const ACCEPTS_KEPT = 16;

interface Example {
  key: string;
  value: unknown;
  /** An `externalValue`: Prism generates from the schema instead. */
  external: boolean;
}

export class ContractExamples {
  /** The answer of each operation to a request without Prefer, by Accept header ("" for none): most requests. */
  private readonly plain = new Map<Route, Map<string, MockAnswer | null>>();
  private readonly answers = new Map<string, MockAnswer | null>();

  constructor(private readonly contract: Contract) {}

  /** The answer Prism would give, or undefined when only Prism can tell. */
  answer(route: Route, prefer: Preferences, accept: string | undefined): MockAnswer | undefined {
    if (prefer.dynamic || route.method === "head") return undefined;
    if (prefer.code !== undefined || prefer.example !== undefined) return this.find(route, prefer.code, prefer.example, accept || undefined);
    let byAccept = this.plain.get(route);
    if (!byAccept) this.plain.set(route, (byAccept = new Map()));
    let a = byAccept.get(accept ?? "");
    if (a === undefined) {
      a = this.find(route, undefined, undefined, accept || undefined) ?? null;
      if (byAccept.size < ACCEPTS_KEPT) byAccept.set(accept ?? "", a);
    }
    return a ?? undefined;
  }

  private find(route: Route, code: number | undefined, exampleKey: string | undefined, accept: string | undefined): MockAnswer | undefined {
    const status = code === undefined ? lowest2xx(route.op.responses ?? {}) : String(code);
    if (status === undefined || !/^\d{3}$/.test(status)) return undefined;
    const response = this.contract.deref(route.op.responses?.[status]);
    if (!response) return undefined;
    const content: Record<string, Json> = response.content ?? {};
    const types = Object.keys(content);
    if (types.length === 0) return { status: Number(status), contentType: null, body: null, value: undefined };
    const mediaType = accept === undefined ? defaultMediaType(types) : accepts(accept).type(types);
    // `*/*` as a documented media type: Prism answers it as text/plain, or not at all; left to Prism.
    if (!mediaType || mediaType === "*/*") return undefined;
    const key = `${route.method} ${route.template}\u0000${status}\u0000${mediaType}\u0000${exampleKey ?? ""}`;
    let a = this.answers.get(key);
    if (a === undefined) this.answers.set(key, (a = this.build(Number(status), mediaType, content[mediaType], exampleKey) ?? null));
    return a ?? undefined;
  }

  private build(status: number, mediaType: string, media: Json, exampleKey: string | undefined): MockAnswer | undefined {
    const examples = this.examplesOf(media);
    const ex = exampleKey === undefined ? examples[0] : examples.find((e) => e.key === exampleKey);
    if (!ex || ex.external || ex.value === undefined) return undefined;
    const value = ex.value;
    const body = status === 204 || value === null ? null : Buffer.from(typeof value === "string" ? value : JSON.stringify(value));
    return { status, contentType: body ? mediaType : null, body, value };
  }

  /** A media type's examples in Prism's order: `example` (or else the schema's first `examples`) as `default`, then `examples`. */
  private examplesOf(media: Json): Example[] {
    const d = this.contract.deref;
    const out: Example[] = [];
    const first = media && "example" in media ? media.example : d(media?.schema)?.examples?.[0];
    if (first !== undefined) out.push({ key: "default", value: d(first), external: false });
    for (const [key, raw] of Object.entries<Json>(media?.examples ?? {})) {
      const ex = d(raw);
      if (!ex || typeof ex !== "object" || Array.isArray(ex)) continue;
      // (A reference that does not resolve stays in the list, without a value, as in Prism's.)
      out.push({ key, value: typeof ex.$ref === "string" ? undefined : ex.value, external: typeof ex.externalValue === "string" });
    }
    return out;
  }
}

/** The lowest 2xx status (`2XX` included), compared as strings as Prism does; undefined when there is none. */
function lowest2xx(responses: Record<string, unknown>): string | undefined {
  const codes = Object.keys(responses)
    .filter((c) => /^2(\d\d|XX)$/.test(c))
    .sort();
  return codes[0];
}

// Without an Accept header Prism prefers a media type written `*/*`, then JSON, then the first.
function defaultMediaType(types: string[]): string | false {
  if (types.includes("*/*")) return "*/*";
  if (types.length === 1) return types[0]!; // the "*/*" Prism adds accepts any one type
  return accepts("application/json,*/*").type(types);
}
