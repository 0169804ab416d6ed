// One verification run's connection to the target: it adds credentials, paces requests (at most `rps` a second),
// counts them against the request budget, sends, runs every check on the exchange and records the results. It also
// works out how long a 429 asks to wait. Nothing here decides what to send (cases.ts, crud.ts) or in which order
// (runner.ts).
import type { RequestCase } from "../requests/cases.js";
import { randomBytes } from "node:crypto";
import { checkExchange, MALFORMED_RULES, UNSUPPORTED_METHOD_RULES, type CheckResult } from "../checks/index.js";
import type { HarRecorder } from "./har.js";
import { rawReproduction, sendRaw } from "./raw-http.js";
import { reproduction } from "./reproduce.js";
import type { ContractView } from "../requests/contract-view.js";
import { redact } from "../../mock/core/pipeline/log.js";
import { send, TransportError, type SendOptions } from "./http.js";
import type { ReportBuilder } from "../report.js";
import { runKey } from "./replay.js";
import { tokenQueryParam } from "../requests/request-facts.js";
import { VerifyUsageError, type Target } from "../target.js";
import type { Check, Exchange, ExchangeRequest, ExchangeResponse, MalformedStep, Operation, Probe, ScenarioStep } from "../types.js";

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

export interface Credential {
  /** `X-API-Key: <key>` or `Authorization: Bearer <jwt>`. */
  header: [string, string];
  /** The bare secret, for `?token=` and for redaction. */
  secret: string;
}

/** What a raw exchange is (Session.exchangeRaw): a malformed request, or a probe such as a WebSocket upgrade by the second key (with its secret and the shell variable that stands for it). */
export interface RawTag {
  malformed?: MalformedStep;
  probe?: Probe;
  secret?: [string, string];
}

/**
 * An answered case. `results`: what the checks said. A held case (`exchange(c, scenario, { hold: true })`) is not
 * recorded yet: `commit` records it (probes/inputs.ts keeps only the minimal failing request of a shrink).
 */
export type Sent = { kind: "answered"; exchange: Exchange; retryAfterMs: number | null; results?: CheckResult[]; commit?: () => void } | { kind: "skipped"; reason: string };

export interface SessionOptions {
  view: ContractView;
  target: Target;
  credential: Credential;
  checks: Check[];
  report: ReportBuilder;
  clock: Clock;
  /** Requests per second at most; null for no pacing (tests against a local mock). */
  rps: number | null;
  maxRequests: number;
  send: SendOptions;
  /** Told each exchange, for progress output. */
  onExchange?: (line: string) => void;
  /** Every exchange goes into this HTTP Archive too (`--har`). */
  har?: HarRecorder;
}

export class Session {
  private lastSent = -Infinity;
  private credentialsAccepted = false;
  private reachable = false;
  private sentIds = 0;

  constructor(readonly o: SessionOptions) {}

  /**
   * Sends one case (or one round-trip step), checks and records it; with `hold`, records it only when the caller
   * says (`commit`). A case marked `raw` goes over a socket as written (header values no fetch sends).
   */
  async exchange(c: RequestCase, scenario?: ScenarioStep, o: { hold?: boolean } = {}): Promise<Sent> {
    const { report } = this.o;
    if (report.requests >= this.o.maxRequests) return { kind: "skipped", reason: `the request budget (--max-requests ${this.o.maxRequests}) is used up` };
    await this.pace();
    const request = this.request(c);
    const shown = `${c.method} ${this.redact(c.path)}${c.label ? ` (${c.label})` : ""}`;
    const at = { case: c.label };
    report.requests++;
    let response;
    const started = this.o.clock.now();
    const t0 = performance.now();
    try {
      const raw = c.raw ? await this.sendRawCase(request) : await send(request, this.o.send);
      this.o.har?.add(request, raw, started, performance.now() - t0, this.o.credential.secret, c.label);
      if (!raw) return { kind: "skipped", reason: "the connection was closed without an answer" };
      response = raw;
    } catch (e) {
      if (!(e instanceof TransportError)) throw e;
      if (!this.reachable) throw new VerifyUsageError(`cannot reach ${this.o.target.base}: ${e.message}`);
      report.record(c.operation, shown, 0, [{ rule: "transport", violations: [`no answer: ${e.message}`] }], at);
      return { kind: "skipped", reason: `no answer: ${e.message}` };
    }
    this.reachable = true;
    const tags = { ...(scenario ? { scenario } : {}), ...(c.probe ? { probe: c.probe } : {}), ...(c.page ? { page: c.page } : {}) };
    // A raw case's header breaks HTTP itself: it is judged as a malformed request is (a 400 from the parser is right).
    // A method no operation of the path declares is not the operation's request: only the rules of any answer judge it.
    const unsupported = c.probe?.kind === "unsupported-method";
    const checks = c.raw ? this.o.checks.filter((x) => MALFORMED_RULES.has(x.name)) : unsupported ? this.o.checks.filter((x) => UNSUPPORTED_METHOD_RULES.has(x.name)) : this.o.checks;
    const { exchange, results } = await checkExchange(this.o.view, checks, { operation: c.operation, request, response, ...tags });
    // A raw case is answered by the HTTP parser, before any route: its answer says nothing of the operation's.
    if (c.credentials === "header" && !c.secret && !c.raw && !unsupported) {
      this.guardCredentials(exchange);
      const made = !!scenario?.id && ["read", "update", "read-updated", "delete"].includes(scenario.step);
      if (response.status !== 429) report.answered(c.operation, response.status, response.body, made);
    }
    const redacted = results.map((r) => ({ ...r, violations: r.violations.map((m) => this.redact(m)) }));
    const reproduce = (rule: string) => {
      const r = reproduction(this.o.view, checks, exchange, rule, this.secrets(c));
      return c.raw ? { ...r, curl: rawReproduction(new URL(this.o.target.base), rawText(request), this.secrets(c)) } : r;
    };
    const commit = () => {
      report.record(c.operation, shown, response.status, redacted, { ...at, reproduce });
      for (const r of results) report.ran?.add(runKey(c.operation.operationId, c.label, r.rule, request.method, request.url));
    };
    if (!o.hold) commit();
    this.o.onExchange?.(`${response.status} ${shown}`);
    return { kind: "answered", exchange, retryAfterMs: response.status === 429 ? retryAfterMs(exchange, this.o.view.retryAfterHeader) : null, results, ...(o.hold ? { commit } : {}) };
  }

  /** A request as bytes on a fresh connection (raw-http.ts); null when it was closed without an answer. */
  private async sendRawCase(request: ExchangeRequest): Promise<ExchangeResponse | null> {
    const sender = this.o.send.raw ?? (this.o.send.fetch ? null : sendRaw);
    if (!sender) throw new TransportError("a raw request cannot go through an injected fetch");
    try {
      return await sender(new URL(this.o.target.base), Buffer.from(rawText(request), "latin1"), this.o.send.timeoutMs);
    } catch (e) {
      throw new TransportError((e as Error).message);
    }
  }

  /**
   * Sends bytes no HTTP client would (malformed.ts) on a fresh connection to the target, without credentials, and
   * judges the answer by the rules of an error answer (MALFORMED_RULES). A connection closed without an answer is
   * "skipped" with that reason: nothing to judge.
   */
  async exchangeRaw(op: Operation, label: string, path: string, raw: (target: string, host: string) => string, tag: RawTag): Promise<Sent> {
    const { report } = this.o;
    if (report.requests >= this.o.maxRequests) return { kind: "skipped", reason: `the request budget (--max-requests ${this.o.maxRequests}) is used up` };
    await this.pace();
    const base = new URL(this.o.target.base);
    const target = base.pathname.replace(/\/$/, "") + path;
    const text = raw(target, base.host);
    report.requests++;
    let response;
    try {
      response = await (this.o.send.raw ?? sendRaw)(base, Buffer.from(text, "latin1"), this.o.send.timeoutMs);
    } catch (e) {
      report.record(op, `GET ${path} (${label})`, 0, [{ rule: "transport", violations: [`no answer: ${(e as Error).message}`] }], { case: label });
      return { kind: "skipped", reason: `no answer: ${(e as Error).message}` };
    }
    const headers = Object.fromEntries(text.split("\r\n").slice(1).filter((l) => l.includes(":")).map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
    const request: ExchangeRequest = { method: "GET", url: base.origin + target, headers, body: null };
    this.o.har?.add(request, response, this.o.clock.now(), 0, this.o.credential.secret, label);
    if (!response) return { kind: "skipped", reason: "the connection was closed without an answer (RFC 9112 allows it: nothing to judge)" };
    const checks = this.o.checks.filter((c) => (tag.malformed ? MALFORMED_RULES.has(c.name) : c.name === "tenancy"));
    const { exchange, results } = await checkExchange(this.o.view, checks, { operation: op, request, response, ...(tag.malformed ? { malformed: tag.malformed } : {}), ...(tag.probe ? { probe: tag.probe } : {}) });
    const shown = `GET ${path} (${label})`;
    const secrets = tag.secret ? [tag.secret] : [];
    const reproduce = (rule: string) => ({ ...reproduction(this.o.view, checks, exchange, rule, secrets), curl: rawReproduction(base, text, secrets) });
    report.record(op, shown, response.status, results, { case: label, reproduce });
    for (const r of results) report.ran?.add(runKey(op.operationId, label, r.rule, request.method, request.url));
    this.o.onExchange?.(`${response.status} ${shown}`);
    return { kind: "answered", exchange, retryAfterMs: response.status === 429 ? retryAfterMs(exchange, this.o.view.retryAfterHeader) : null };
  }

  /** The credentials a case's reproduction must hide, and the shell variable each becomes in its curl line. */
  private secrets(c: RequestCase): Array<[string, string]> {
    return [[this.o.credential.secret, "$API_KEY"], ...(c.secret ? [[c.secret, c.secretVar ?? "$REVOKED_API_KEY"] as [string, string]] : [])];
  }

  /**
   * The X-Request-Id of the next request (check request-id-echoed): `verify-<n>`, and every eighth one a value
   * outside the header's schema (a space in it), which must come back replaced.
   */
  private nextRequestId(): string {
    const n = ++this.sentIds;
    return n % 8 === 0 ? `verify ${n}` : `verify-${n}`;
  }

  private request(c: RequestCase): ExchangeRequest {
    const headers: Record<string, string> = { "user-agent": "avt-verify/1", accept: "application/json, text/event-stream;q=0.9, */*;q=0.8", ...c.headers };
    let path = c.path;
    const [name, value] = this.o.credential.header;
    if (c.credentials === "header") headers[name.toLowerCase()] = c.secret ? value.replace(this.o.credential.secret, c.secret) : value;
    if (c.credentials === "unknown-key") headers[name.toLowerCase()] = value.replace(this.o.credential.secret, unknownCredential(this.o.credential.secret));
    if (c.credentials === "token-query") {
      path += `${path.includes("?") ? "&" : "?"}${tokenQueryParam(this.o.view)}=${encodeURIComponent(this.o.credential.secret)}`;
    }
    if (c.body) headers["content-type"] = c.body.contentType;
    headers[this.o.view.requestId.header.toLowerCase()] ??= this.nextRequestId();
    return { method: c.method, url: this.o.target.base + path, headers, body: c.body?.bytes ?? null };
  }

  /** A 401 to the very first authenticated request means the credentials are wrong, not that the service is. */
  private guardCredentials(e: Exchange): void {
    if (e.facts.credentials !== "header" || this.credentialsAccepted) return;
    if (e.response.status === 401) {
      throw new VerifyUsageError(`${this.o.target.base} refused the credentials (401 to ${e.request.method} ${e.operation.template}): check --api-key or --token`);
    }
    if (e.response.status !== 429) this.credentialsAccepted = true;
  }

  private async pace(): Promise<void> {
    if (this.o.rps === null) return;
    const gap = 1000 / this.o.rps;
    const wait = this.lastSent + gap - this.o.clock.now();
    if (wait > 0) await this.o.clock.sleep(wait);
    this.lastSent = this.o.clock.now();
  }

  /** Credentials out of text that goes into a report: the configured secret, keys, JWTs, `token=` values. */
  redact(text: string): string {
    return redact(text.split(this.o.credential.secret).join("[redacted]"));
  }
}

/**
 * A credential of the same form the service never issued: an API key's prefix (`pk_test_`) and random characters
 * of the contract's alphabet, or a JWT whose signature is another's (well-formed, verifiably not signed by the
 * service). Random per call, so no service can have issued it.
 */
export function unknownCredential(secret: string): string {
  const parts = secret.split(".");
  if (parts.length === 3) return `${parts[0]}.${parts[1]}.${randomBytes(32).toString("base64url")}`;
  const prefix = /^[a-z]+_[a-z]+_/i.exec(secret)?.[0] ?? "";
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  return prefix + [...randomBytes(32)].map((b) => alphabet[b % alphabet.length]).join("");
}

/** How long a 429 asks to wait: Retry-After, else the body's retry_after, else a minute (the window). */
function retryAfterMs(e: Exchange, header: string): number {
  const h = e.response.headers.get(header);
  if (h && /^\s*\d+\s*$/.test(h)) return Number(h) * 1000;
  try {
    const body = JSON.parse(Buffer.from(e.response.body).toString("utf8")) as { retry_after?: unknown };
    if (typeof body.retry_after === "number" && body.retry_after >= 0) return body.retry_after * 1000;
  } catch {
    /* no usable body */
  }
  return 60_000;
}

/**
 * A request as HTTP/1.1 text, header values as they are (a control byte included): what `raw` cases send. The body
 * goes as latin1 of its UTF-8 bytes, so the bytes on the wire are the body's own.
 */
export function rawText(r: ExchangeRequest): string {
  const u = new URL(r.url);
  const lines = [`${r.method} ${u.pathname}${u.search} HTTP/1.1`, `host: ${u.host}`, "connection: close"];
  for (const [k, v] of Object.entries(r.headers)) lines.push(`${k}: ${v}`);
  if (r.body) lines.push(`content-length: ${r.body.length}`);
  return lines.join("\r\n") + "\r\n\r\n" + (r.body ? Buffer.from(r.body).toString("latin1") : "");
}
