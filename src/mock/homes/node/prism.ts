// Prism, in-process (@stoplight/prism-http as a library), answers every operation the gateway does not own with
// the contract's examples. It is given generated/openapi.json, never the YAML. The gateway has already routed,
// authenticated, counted and validated the request, so Prism only picks the response (request validation and
// security checks are off), and each operation gets a one-element resource list (no second routing pass).
// Static answers depend only on (operation, code, example, Accept), so they are cached and serialized once.
import fs from "node:fs";
import { createRequire } from "node:module";
import type { Route } from "./contract-files.js";
import { jsonAnswer, type DynamicBounds, type MockAnswer, type PrismAnswerer, type PrismSource, type Preferences } from "../../core/contract/preferences.js";

export * from "../../core/contract/preferences.js";

const require = createRequire(import.meta.url);

// Types of the parts of Prism this module uses (its own typings pull in fp-ts and pino).
type Either<L, R> = { _tag: "Left"; left: L } | { _tag: "Right"; right: R };
interface PrismOperation {
  method: string;
  path: string;
}
interface PrismResponse {
  statusCode: number;
  headers?: Record<string, string | number>;
  body?: unknown;
}
interface PrismInstance {
  request(input: unknown, ops: PrismOperation[], config?: unknown): () => Promise<Either<Error & { status?: number; detail?: string }, { output: PrismResponse }>>;
}
interface PrismHttp {
  getHttpOperationsFromSpec(spec: string): Promise<PrismOperation[]>;
  createInstance(config: unknown, components: { logger: unknown }): PrismInstance;
}

// Prism logs through pino with a custom `success` level; the gateway writes its own request log instead.
const noop = () => {};
const silentLogger: Record<string, unknown> = { level: "silent" };
for (const level of ["trace", "debug", "info", "success", "warn", "error", "fatal"]) silentLogger[level] = noop;
silentLogger.child = () => silentLogger;

const BASE_CONFIG = {
  checkSecurity: false,
  validateRequest: false,
  validateResponse: false,
  errors: false,
  upstreamProxy: undefined,
  isProxy: false,
};


/**
 * Bounds json-schema-faker, the generator Prism uses for dynamic answers, below the schema's own `maxItems` and
 * `maxLength` (its `maxItems` and `maxLength` options take the smaller of the two). Unbounded, it drew up to the
 * contract's bounds: a transcript of 100,000 segments of 50,000 words each ran the heap out of memory (issue 22).
 * The generator is one module-wide instance, so the options are set before each generation.
 */
function boundGenerator(bounds: DynamicBounds): void {
  const prismRequire = createRequire(require.resolve("@stoplight/prism-http"));
  const jsf = (prismRequire("json-schema-faker") as { JSONSchemaFaker: { option(o: Record<string, unknown>): void } }).JSONSchemaFaker;
  jsf.option({ maxItems: bounds.items, maxLength: bounds.length });
}

export class PrismBackend implements PrismAnswerer {
  private readonly cache = new Map<string, MockAnswer>();

  private constructor(
    private readonly prism: PrismInstance,
    private readonly ops: Map<string, PrismOperation>,
  ) {}

  get operations(): number {
    return this.ops.size;
  }

  private static loaded = new Map<string, Promise<PrismBackend>>();

  /**
   * Loads the JSON bundle and creates the Prism instance: once per version of the file in this process (gateways
   * created one after another, as tests do, share it; its answers depend on nothing else).
   */
  static create(jsonPath: string): Promise<PrismBackend> {
    const st = fs.statSync(jsonPath);
    const key = `${jsonPath}\u0000${st.mtimeMs}\u0000${st.size}`;
    let p = PrismBackend.loaded.get(key);
    if (!p) {
      p = PrismBackend.load(jsonPath);
      PrismBackend.loaded.set(key, p);
      p.catch(() => PrismBackend.loaded.delete(key));
    }
    return p;
  }

  private static async load(jsonPath: string): Promise<PrismBackend> {
    await new Promise((resolve) => setImmediate(resolve)); // let the caller start listening first
    const http = require("@stoplight/prism-http") as PrismHttp;
    const operations = await http.getHttpOperationsFromSpec(jsonPath);
    const ops = new Map(operations.map((o) => [`${o.method.toLowerCase()} ${o.path}`, o]));
    return new PrismBackend(http.createInstance({ ...BASE_CONFIG, mock: { dynamic: false } }, { logger: silentLogger }), ops);
  }

  /** The cached answer, if there is one: without a turn of the event loop. */
  cached(route: Route, req: { accept?: string }, prefer: Preferences): MockAnswer | undefined {
    return prefer.dynamic ? undefined : this.cache.get(cacheKey(route, req, prefer));
  }

  async answer(route: Route, req: { path: string; query: URLSearchParams; accept?: string }, prefer: Preferences, bounds?: DynamicBounds): Promise<MockAnswer> {
    const key = cacheKey(route, req, prefer);
    if (prefer.dynamic && bounds) boundGenerator(bounds);
    if (!prefer.dynamic) {
      const hit = this.cache.get(key);
      if (hit) return hit;
    }
    const op = this.ops.get(`${route.method} ${route.template}`);
    if (!op) return jsonAnswer(500, { detail: `Prism has no operation ${route.method.toUpperCase()} ${route.template}.` });
    const input = {
      method: route.method,
      url: { path: req.path, query: Object.fromEntries(req.query) },
      headers: req.accept ? { accept: req.accept } : {},
      body: undefined,
    };
    const config = { ...BASE_CONFIG, mock: { dynamic: prefer.dynamic ?? false, code: prefer.code, exampleKey: prefer.example } };
    const result = await this.prism.request(input, [op], config)().catch((e: unknown) => {
      if (!req.accept) throw e;
      return notAcceptable(); // Prism's negotiator throws on an Accept header it cannot parse
    });
    if (req.accept && result._tag === "Left" && result.left.status === 406) {
      // An Accept no documented response satisfies: answer the documented representation (RFC 9110 §12.5.1 lets a
      // server ignore Accept) instead of a 406 or 500 the contract never declares.
      return this.answer(route, { ...req, accept: undefined }, prefer, bounds);
    }
    let answer: MockAnswer;
    if (result._tag === "Left") {
      const e = result.left;
      answer = jsonAnswer(e.status ?? 500, { detail: e.detail || e.message });
    } else {
      const out = result.right.output;
      const contentType = headerOf(out.headers, "content-type");
      const body =
        out.body === undefined || out.body === null || out.statusCode === 204
          ? null
          : Buffer.from(typeof out.body === "string" ? out.body : JSON.stringify(out.body));
      answer = { status: out.statusCode, contentType: body ? contentType ?? "application/json" : null, body, value: out.body };
    }
    if (!prefer.dynamic && answer.status < 500) this.cache.set(key, answer);
    return answer;
  }
}

/**
 * Prism, loaded on first need rather than at start-up: loading takes a second or two and blocks the event loop,
 * and most answers need no Prism (examples.ts).
 */
export class PrismOnDemand implements PrismSource {
  private pending: Promise<PrismBackend> | null = null;
  /** Set once loaded: a request with a cached answer then needs no turn of the event loop. */
  loaded: PrismBackend | null = null;

  /** `loading(why)` is told when loading starts (the request log says why a request waits). */
  constructor(
    private readonly jsonPath: string,
    private readonly loading: (why: string) => void = () => {},
  ) {}

  /** Prism, loading it if nothing has yet; a failure to load is every caller's (a 500 for a request). */
  get(why: string): Promise<PrismBackend> {
    if (!this.pending) {
      this.loading(why);
      try {
        this.pending = PrismBackend.create(this.jsonPath);
      } catch (e) {
        this.pending = Promise.reject(e as Error);
      }
      this.pending.then((p) => (this.loaded = p), () => {});
    }
    return this.pending;
  }
}

function notAcceptable(): Either<Error & { status?: number; detail?: string }, never> {
  return { _tag: "Left", left: Object.assign(new Error("Accept header cannot be parsed"), { status: 406 }) };
}

function cacheKey(route: Route, req: { accept?: string }, prefer: Preferences): string {
  return `${route.method} ${route.template}\u0000${prefer.code ?? ""}\u0000${prefer.example ?? ""}\u0000${req.accept ?? ""}`;
}


function headerOf(headers: Record<string, string | number> | undefined, name: string): string | null {
  for (const [k, v] of Object.entries(headers ?? {})) if (k.toLowerCase() === name) return String(v);
  return null;
}
