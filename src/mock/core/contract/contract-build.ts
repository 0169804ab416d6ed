// The contract as the core uses it (no file system: the Node adapter contract.ts reads the files, a browser bundle
// imports them): generated/openapi.json's document, the rate-limit policy, and a route table of every operation.
// Nothing here parses the contract per request.
import { categoryOf, readPolicy, scalePolicy, type CategoryRule, type RateLimitPolicy } from "../../../contract/policy.js";

export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export class ContractLoadError extends Error {}

export const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;

export interface Route {
  /** Path template as written in the contract, e.g. `/v1/analyses/{analysis_id}`. */
  template: string;
  method: string; // lower case
  operationId: string;
  op: Json;
  /** Path-level and operation-level parameters, dereferenced, operation ones winning. */
  parameters: Json[];
  /** The policy category named by the operation's `x-rate-limit-category` (the template decides, never the URL). */
  category: CategoryRule;
  /** Responses carry the policy's rate-limit headers: the request is authenticated and counted. */
  rateLimited: boolean;
  /** `security: []`: answered without credentials. */
  public: boolean;
  /** Name of the query parameter that may carry credentials (the `in: query` API-key scheme), if the operation lists it. */
  tokenQuery: string | null;
  /** The documented success status (lowest 1xx/2xx). */
  successCode: number;
}

export interface Contract {
  doc: Json;
  jsonPath: string;
  yamlPath: string;
  /**
   * generated/openapi.yaml, byte for byte, or how to load it when first asked for (the browser's bundle keeps it in a
   * chunk of its own: only `GET /openapi.yaml` needs it).
   */
  yamlBytes: ContractBytes;
  policy: RateLimitPolicy;
  router: Router;
  /** First path segments of rate-limited operations (`/v1`, `/aria`, `/ws`), to classify paths no operation matches. */
  rateLimitedPrefixes: string[];
  /** Resolves a local `$ref` (`#/components/...`); other values pass through. */
  deref<T = Json>(node: Json): T;
}

/** A file's bytes, or a loader of them. */
export type ContractBytes = Buffer | (() => Promise<Buffer>);

export function buildContract(doc: Json, files: { jsonPath: string; yamlPath: string; yamlBytes: ContractBytes }): Contract {
  const policy = readPolicy(doc);
  const deref = makeDeref(doc);
  const router = new Router();
  const prefixes = new Set<string>();
  const schemes: Record<string, Json> = doc.components?.securitySchemes ?? {};

  for (const [template, rawItem] of Object.entries<Json>(doc.paths ?? {})) {
    const item = deref(rawItem);
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const security: Array<Record<string, string[]>> = op.security ?? doc.security ?? [];
      const tokenScheme = security
        .flatMap((req) => Object.keys(req))
        .map((name) => deref(schemes[name]))
        .find((s) => s?.type === "apiKey" && s.in === "query");
      const codes = Object.keys(op.responses ?? {}).filter((c) => /^[12]\d\d$/.test(c)).map(Number);
      const rateLimited = Object.values<Json>(op.responses ?? {}).some((r) => deref(r)?.headers?.[policy.headers.limit]);
      const route: Route = {
        template,
        method,
        operationId: op.operationId ?? `${method} ${template}`,
        op,
        parameters: mergeParameters((item.parameters ?? []).map(deref), (op.parameters ?? []).map(deref)),
        category: categoryNamed(policy, op["x-rate-limit-category"], template),
        rateLimited,
        public: Array.isArray(op.security) && op.security.length === 0,
        tokenQuery: tokenScheme?.name ?? null,
        successCode: codes.length ? Math.min(...codes) : 200,
      };
      router.add(route);
      if (rateLimited) prefixes.add("/" + (template.split("/")[1] ?? ""));
    }
  }
  return { doc, ...files, policy, router, rateLimitedPrefixes: [...prefixes], deref };
}

/** The policy category an operation names; an operation without one falls back to the policy's path rules. */
function categoryNamed(policy: RateLimitPolicy, name: unknown, template: string): CategoryRule {
  if (typeof name === "string") {
    const rule = policy.categories.find((c) => c.name === name);
    if (!rule) throw new ContractLoadError(`${template}: x-rate-limit-category ${name} is not a category of x-rate-limit-policy`);
    return rule;
  }
  return categoryOf(policy, template);
}

function mergeParameters(pathLevel: Json[], opLevel: Json[]): Json[] {
  const key = (p: Json) => `${p.in}:${p.in === "header" ? String(p.name).toLowerCase() : p.name}`;
  const out = new Map<string, Json>();
  for (const p of [...pathLevel, ...opLevel]) out.set(key(p), p);
  return [...out.values()];
}

/** A resolver of local `#/...` references of a bundled document (also used by the conformance tests). */
export function makeDeref(doc: Json) {
  return function deref<T = Json>(node: Json): T {
    let n = node;
    for (let i = 0; n && typeof n === "object" && typeof n.$ref === "string" && n.$ref.startsWith("#/") && i < 20; i++) {
      n = n.$ref
        .slice(2)
        .split("/")
        .map((s: string) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
        .reduce((acc: Json, k: string) => acc?.[k], doc);
    }
    return n as T;
  };
}

interface RouteNode {
  literal: Map<string, RouteNode>;
  param: { name: string; node: RouteNode } | null;
  methods: Map<string, Route>;
  /** The match of each request method seen on this node's path when it has no parameters: made once, shared. */
  fixed: Map<string, RouteMatch>;
}

export type RouteMatch =
  | { kind: "ok"; route: Route; params: Record<string, string> }
  | { kind: "method"; allow: string[] }
  | { kind: "none" };

/**
 * Matches request paths to operations. A segment trie where literal segments win over `{param}` segments, so
 * `/v1/analyses/upload` is never taken for `/v1/analyses/{analysis_id}`. Hand-written because the route table
 * is the contract's (no framework's router reads OpenAPI templates) and it must be cheap per request.
 */
export class Router {
  private root: RouteNode = newNode();
  readonly routes: Route[] = [];
  /**
   * The nodes of templates without parameters, by path: such a path is found by one lookup (the trie would reach the
   * same node, literal segments winning) and its matches are shared, frozen, rather than made per request.
   */
  private readonly literal = new Map<string, RouteNode>();

  add(route: Route): void {
    let node = this.root;
    let literal = true;
    for (const seg of route.template.split("/").slice(1)) {
      const param = /^\{(.+)\}$/.exec(seg);
      if (param) {
        literal = false;
        node.param ??= { name: param[1]!, node: newNode() };
        node = node.param.node;
      } else {
        let next = node.literal.get(seg);
        if (!next) node.literal.set(seg, (next = newNode()));
        node = next;
      }
    }
    node.methods.set(route.method, route);
    node.fixed.clear();
    if (literal) this.literal.set(route.template, node);
    this.routes.push(route);
  }

  match(method: string, pathname: string): RouteMatch {
    const fixed = this.literal.get(pathname);
    if (fixed) {
      let m = fixed.fixed.get(method);
      // One entry per method node:http parses (a fixed set), so the map stays small whatever clients send.
      if (!m) fixed.fixed.set(method, (m = Object.freeze(matchAt(fixed, method, NO_PARAMS))));
      return m;
    }
    const params: Record<string, string> = {};
    const node = walk(this.root, pathname.split("/"), 1, params);
    return node ? matchAt(node, method, params) : NO_ROUTE;
  }
}

const NO_ROUTE: RouteMatch = Object.freeze({ kind: "none" });
const NO_PARAMS: Record<string, string> = Object.freeze({});

/** The match of `method` at a node the path reached. */
function matchAt(node: RouteNode, method: string, params: Record<string, string>): RouteMatch {
  if (node.methods.size === 0) return NO_ROUTE;
  const route = node.methods.get(method.toLowerCase());
  if (!route) return { kind: "method", allow: Object.freeze([...node.methods.keys()].map((m) => m.toUpperCase())) as string[] };
  return { kind: "ok", route, params };
}

function newNode(): RouteNode {
  return { literal: new Map(), param: null, methods: new Map(), fixed: new Map() };
}

function walk(node: RouteNode, segs: string[], i: number, params: Record<string, string>): RouteNode | null {
  if (i === segs.length) return node.methods.size ? node : null;
  const seg = segs[i]!;
  const lit = node.literal.get(seg);
  if (lit) {
    const found = walk(lit, segs, i + 1, params);
    if (found) return found;
  }
  if (node.param && seg !== "") {
    let value: string;
    try {
      value = decodeURIComponent(seg);
    } catch {
      value = seg;
    }
    const found = walk(node.param.node, segs, i + 1, params);
    if (found) {
      params[node.param.name] = value;
      return found;
    }
  }
  return null;
}

/** The contract with every plan's limits multiplied by `scale` (--limit-scale; the same contract at 1). */
export function withLimitScale(contract: Contract, scale: number): Contract {
  if (scale === 1) return contract;
  const policy = scalePolicy(contract.policy, scale);
  return { ...contract, doc: { ...contract.doc, "x-rate-limit-policy": policy }, policy };
}
