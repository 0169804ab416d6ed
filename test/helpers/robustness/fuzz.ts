// The gateway fuzz run, shared by test/scripts/gateway-fuzz.test.ts (10,000 requests; fixed seed in CI) and
// `npm run fuzz` (100,000 by default). A gateway on 127.0.0.1 with an injected clock gets the requests of
// CaseFactory.any() one after another over a keep-alive agent; every answer is checked by ContractOracle; at the
// end the gateway must still answer /health and its log must hold no internal error.
import { DEFAULT_LIMITS } from "../../../src/mock/core/access/limits.js";
import fc from "fast-check";
import { MAX_UPLOAD_BYTES, mintToken } from "../../../src/mock/index.js";
import { contract as defaultContract, ManualClock, startGateway } from "../mock.js";
import { CaseFactory, type FuzzCase, type Limits } from "./cases.js";
import { header, keepAliveAgent, rawExchange, rawRequest, type RawResponse } from "./http.js";
import { ContractOracle, type OpSpec } from "./oracle.js";
import type { Contract } from "../../../src/mock/core/contract/contract-build.js";

export interface FuzzOptions {
  runs: number;
  seed: number;
  /** Replays one case of an earlier run (fast-check's `path`, printed on failure). */
  path?: string;
  /** Fake time that passes per request (keeps the fuzz key within its per-minute limits). */
  msPerRequest?: number;
  /** Largest parsed body the gateway takes in this run: small, so bodies over it are cheap to send. */
  maxBodyBytes?: number;
  progress?: (done: number) => void;
  /** The contract to fuzz (default: generated/); a scratch contract's gateway is started over it. */
  contract?: Contract;
  /** Only the operations this accepts get valid and body cases (default: all). */
  only?: (op: OpSpec) => boolean;
}

export interface FuzzReport {
  seed: number;
  runs: number;
  ms: number;
  byKind: Record<string, number>;
  byStatus: Record<string, number>;
  /** Time spent waiting for the answers, per kind of case. */
  msByKind: Record<string, number>;
  /** The 5xx answers (each one asked for with `Prefer: code=`, or the run fails), by status and kind of case. */
  serverErrors: Record<string, number>;
}

export const FUZZ_JWT_SECRET = "fuzz-jwt-secret-0123456789abcdef";

/** The seed of a run: FUZZ_SEED if given, a fixed one in CI, else a random one (printed, so it can be replayed). */
export function chooseSeed(env: NodeJS.ProcessEnv = process.env): number {
  if (env.FUZZ_SEED) return Number(env.FUZZ_SEED);
  if (env.CI) return 20261121;
  return Math.floor(Math.random() * 2 ** 31);
}

export class FuzzFailure extends Error {}

/** Checks the answer to one case; an empty list when it is what the contract allows. */
export function checkAnswer(oracle: ContractOracle, c: FuzzCase, res: RawResponse | null): string[] {
  if (c.wire) {
    // Not HTTP: no operation to ask the contract about. A 400 (405 for CONNECT) with the contract's error body;
    // counted in the anonymous bucket of the address (decision G26), so with its rate-limit headers, or its 429.
    if (!res) return ["the gateway closed the connection without an answer"];
    const problems = c.expect?.includes(res.status) ? [] : [`status ${res.status}, expected ${c.expect?.join(" or ")}`];
    let body: unknown;
    try {
      body = JSON.parse(res.body.toString("utf8"));
    } catch {
      return [...problems, `body is not JSON: ${JSON.stringify(res.body.toString("latin1").slice(0, 100))}`];
    }
    const schema = res.status === 429 ? oracle.rateLimitSchema : oracle.errorSchema;
    if (!schema(body)) problems.push(`body is not the contract's ${res.status === 429 ? "RateLimitError" : "Error"}: ${JSON.stringify(body)}`);
    if (c.req.method !== "CONNECT") {
      for (const name of oracle.rateHeaders) if (!/^\d+$/.test(header(res, name) ?? "")) problems.push(`${res.status} lacks an integer ${name} header`);
    }
    return problems;
  }
  if (!res) return ["no response"];
  const prefer = (c.req.headers ?? []).some(([k]) => k.toLowerCase() === "prefer");
  return oracle.check(c.req.method, c.req.path, res, { expect: c.expect, preferCode: c.preferCode, preflight: c.preflight, prefer });
}

/** One line describing a case, without its (possibly huge) body. */
export function describeCase(c: FuzzCase): string {
  if (c.wire) return `${c.kind}: ${JSON.stringify(c.wire.toString("latin1").slice(0, 300))}`;
  const headers = (c.req.headers ?? []).map(([k, v]) => `${k}: ${v.length > 80 ? v.slice(0, 80) + `…(${v.length})` : v}`).join(" | ");
  const body = c.req.body ? ` body(${c.req.body.length}${c.req.chunked ? ", chunked" : ""}${c.req.declaredLength !== undefined ? `, declared ${c.req.declaredLength}` : ""}): ${JSON.stringify(c.req.body.subarray(0, 160).toString("utf8"))}` : "";
  return `${c.kind}: ${c.req.method} ${c.req.path.length > 300 ? c.req.path.slice(0, 300) + "…" : c.req.path} [${headers}]${body}`;
}

export async function fuzzGateway(o: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const contract = o.contract ?? defaultContract;
  const clock = new ManualClock();
  const internalErrors: string[] = [];
  const keys = {
    fuzz: { key: "pk_test_fuzz_business_0001", workspace_id: "ws_Fuzz0000001", plan: "business" },
    tight: { key: "pk_test_fuzz_tight_0001", workspace_id: "ws_Fuzz0000002", plan: "business", rate_limit_rpm: 2 },
  };
  const limits: Limits = { maxBodyBytes: o.maxBodyBytes ?? 256 * 1024, maxUploadBytes: MAX_UPLOAD_BYTES, maxJsonMembers: DEFAULT_LIMITS.jsonMembers };
  const g = await startGateway({
    contract,
    clock,
    extraKeys: Object.values(keys),
    jwtSecret: FUZZ_JWT_SECRET,
    webhookDelayMs: 1_000_000_000, // registered webhooks (example URLs) are never called during the run
    log: (line) => {
      if (/internal error/i.test(line)) internalErrors.push(line);
    },
    maxBodyBytes: limits.maxBodyBytes,
  });
  const agent = keepAliveAgent();
  const base = new URL(g.url);
  const byKind: Record<string, number> = {};
  const byStatus: Record<string, number> = {};
  const msByKind: Record<string, number> = {};
  const serverErrors: Record<string, number> = {};
  try {
    await g.gateway.ready;
    const now = clock.now();
    // Tokens live at most a day (auth.ts): the valid one is minted afresh whenever the run moves to a new day.
    const dayToken = () => mintToken({ secret: FUZZ_JWT_SECRET, workspaceId: "ws_Fuzz0000003", plan: "business", expiresInSeconds: 86_400, now: clock.now() });
    const creds = {
      key: keys.fuzz.key,
      tightKey: keys.tight.key,
      validJwt: await dayToken(),
      expiredJwt: await mintToken({ secret: FUZZ_JWT_SECRET, workspaceId: "ws_Fuzz0000003", plan: "business", expiresInSeconds: -60, now }),
      forgedJwt: await mintToken({ secret: "not-the-gateway-secret", workspaceId: "ws_Fuzz0000003", plan: "business", expiresInSeconds: 86_400, now }),
    };
    const oracle = new ContractOracle(contract);
    const factory = new CaseFactory(contract, oracle, creds, limits, await CaseFactory.multipartBodies(contract), o.only);
    let done = 0;
    const recent: string[] = []; // what went before a failure on the same keep-alive connections
    let first: string | null = null;
    let last: string | null = null;
    const details = await fc.check(
      fc.asyncProperty(factory.any(), async (c) => {
        let res: RawResponse | null;
        let failure = "";
        const t0 = performance.now();
        try {
          res = c.wire ? await rawExchange(base, c.wire) : await rawRequest(base, c.req, agent);
        } catch (e) {
          res = null;
          failure = (e as Error).message;
        }
        clock.advance(o.msPerRequest ?? 250);
        // The fuzz key's daily limit (business: 50,000) must not dominate long runs: a new UTC day now and then.
        if (done > 0 && done % 30_000 === 0) {
          clock.advance(86_400_000);
          creds.validJwt = await dayToken();
        }
        if (++done % 1000 === 0) o.progress?.(done);
        const kind = c.kind.split(":")[0]!;
        byKind[kind] = (byKind[kind] ?? 0) + 1;
        msByKind[kind] = (msByKind[kind] ?? 0) + performance.now() - t0;
        if (res) byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
        if (res && res.status >= 500) {
          const k = `${res.status} ${kind}${c.preferCode === res.status ? " (asked with Prefer)" : ""}`;
          serverErrors[k] = (serverErrors[k] ?? 0) + 1;
        }
        const problems = checkAnswer(oracle, c, res);
        recent.push(`${describeCase(c).slice(0, 400)} → ${res?.status ?? "no answer"}`);
        if (recent.length > 6) recent.shift();
        if (problems.length) last = `${recent.slice(0, -1).map((r) => `\n  (before: ${r})`).join("")}\n  ${describeCase(c)}\n    → ${res ? `${res.status} ${res.body.toString("utf8").slice(0, 300)}` : `no answer${failure ? `: ${failure}` : ""}`}\n    ${problems.join("\n    ")}`;
        if (problems.length) {
          first ??= last;
          return false;
        }
        return true;
      }),
      { numRuns: o.runs, seed: o.seed, ...(o.path ? { path: o.path } : {}) },
    );
    if (details.failed) {
      throw new FuzzFailure(
        [
          `fuzz failed after ${details.numRuns} request(s) (seed ${details.seed}); replay the failing request with ` +
            `npm run fuzz -- --seed ${details.seed} --path ${details.counterexamplePath} --runs 1 ` +
            `(or FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath} FUZZ_RUNS=1 vitest run test/scripts/gateway-fuzz.test.ts)`,
          `first failing request: ${first}`,
          `smallest failing request after shrinking: ${last}`,
        ].join("\n"),
      );
    }
    const health = await rawRequest(base, { method: "GET", path: "/health" }, agent);
    if (health.status !== 200 || !g.gateway.server.listening) throw new FuzzFailure(`after the run /health answered ${health.status}`);
    if (internalErrors.length) throw new FuzzFailure(`the gateway logged ${internalErrors.length} internal error(s) (seed ${o.seed}):\n${internalErrors.slice(0, 5).join("\n")}`);
    return { seed: o.seed, runs: details.numRuns, ms: performance.now() - started, byKind, byStatus, msByKind, serverErrors };
  } finally {
    agent.destroy();
    await g.close();
  }
}
