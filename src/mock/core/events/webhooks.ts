// Webhooks in the mock: each workspace's registered endpoints (at most 20), created, listed, read, updated and
// deleted through /v1/webhooks (responders/webhooks.ts), and the signed deliveries to them: one sample event per
// subscribed type after a registration, a test delivery on `POST /v1/webhooks/{id}/test`, and the events the mock's
// resources raise (`emit`, e.g. `analysis.completed` when an analysis completes).
// Signing follows the contract: `X-Webhook-Signature: v1=<hex HMAC-SHA256 of "<timestamp>.<raw body>">` keyed with
// the full `whsec_…` secret, `X-Webhook-Timestamp` in epoch seconds, `X-Webhook-Id`.
// The mock calls loopback URLs only (127.0.0.0/8, [::1], localhost): any other URL the contract accepts is stored
// and shown like the others but never called, so a mock cannot be made to send requests into a network (cloud
// metadata at 169.254.169.254, private addresses). Each delivery not made is logged, and the answers that
// register, change or test such a webhook carry X-Mock-Notice.
// The registered webhooks are a MockState (state.ts): reset forgets them, the state file keeps them.
import { hmacSha256, toHex } from "../util/digest.js";
import { isLoopbackAddress } from "../../../loopback.js";
import type { components } from "../../../../generated/schema.js";
import type { Contract, Json } from "../contract/contract-build.js";
import { newId } from "./events.js";
import { isoSeconds, randomBase62, type Random, type RandomStreams } from "../util/ids.js";
import type { Cancel, Clock, TimeSource } from "../clock/clock.js";
import { redact } from "../pipeline/log.js";
import { array, componentCheck, object, SnapshotError } from "../state/snapshot.js";
import type { MockState } from "../state/state.js";

export const WEBHOOK_HEADERS = { id: "X-Webhook-Id", timestamp: "X-Webhook-Timestamp", signature: "X-Webhook-Signature" } as const;

/** How long Redis keeps a replica's claim of a delivery attempt (redis.ts `onceAcrossReplicas`), ms. */
export const CLAIM_TTL_MS = 24 * 3_600_000;

/** Header of the answers that register, change or test a webhook the mock will not call. */
export const MOCK_NOTICE_HEADER = "X-Mock-Notice";
export const NOT_LOOPBACK_NOTICE = "Stored but never called: the mock delivers webhooks only to loopback URLs (127.0.0.0/8, [::1], localhost).";

/**
 * Webhooks one workspace may have. The contract says it in words only (createWebhook: "A workspace has at most 20
 * webhooks; creating a 21st answers 409"); test/mock/core/events/webhooks.test.ts checks this number against those words.
 */
export const MAX_WEBHOOKS_PER_WORKSPACE = 20;

/**
 * Is `url` on this machine? Decided on the host as the WHATWG URL parser normalises it (`2130706433` and
 * `0x7f.1` are 127.0.0.1, `[0:0:0:0:0:0:0:1]` is `[::1]`), never by resolving a name: only the literal name
 * `localhost` counts, so no DNS answer can point a delivery elsewhere.
 */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  // The shared check (src/loopback.ts: 127.0.0.0/8 and ::1 in any spelling), less the names under `localhost`:
  // a delivery resolves its host, and only `localhost` itself is sure to resolve to this machine.
  return !host.endsWith(".localhost") && isLoopbackAddress(host);
}

export const SELF_TARGET_NOTICE = "Stored but never called: the URL reaches the mock gateway itself or a /__mock/ path.";

/**
 * Does a loopback `url` reach this gateway (any loopback alias, on a port it listens on) or any mock's own
 * `/__mock/` paths (issue 22: a webhook to `/__mock/reset` got past the reset guard)? The path is judged as the URL
 * parser normalises it (`/x/../__mock/`, `%5F_mock` are caught: the parser resolves dots, and the comparison is on
 * the decoded, lower-cased path).
 */
export function reachesGateway(url: string, ports: ReadonlySet<number>): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  const port = Number(u.port || (u.protocol === "https:" ? 443 : 80));
  let path = u.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    /* a malformed escape: judged as written */
  }
  return ports.has(port) || path.toLowerCase().replace(/\/+/g, "/").startsWith("/__mock");
}

export function newWebhookSecret(random?: Random): string {
  return "whsec_" + randomBase62(32, random);
}

/** `v1=` + lowercase hex HMAC-SHA256 of `<timestamp>.<raw body>`, keyed with the whole secret as UTF-8. */
export function webhookSignature(secret: string, timestamp: string, rawBody: string | Uint8Array): string {
  return "v1=" + toHex(hmacSha256(secret, `${timestamp}.`, rawBody));
}

/** A registered webhook as the contract returns it from `POST /v1/webhooks` (secret included). */
export type RegisteredWebhook = components["schemas"]["WebhookWithSecret"];
type WebhookEventType = components["schemas"]["WebhookEventType"];

export interface DeliveryLog {
  (line: { hook: string; type: string; url: string; status: number | null; ms: number; error?: string }): void;
}

export interface WebhookOptions {
  clock: Clock;
  /** Delay before the sample deliveries that follow a registration, ms. */
  deliveryDelayMs: number;
  log: DeliveryLog;
  /** Time-out of one delivery attempt, ms (the contract: a 2xx within 10 seconds acknowledges). */
  timeoutMs?: number;
  /** Told of every change to the registered webhooks (the state file writes them). */
  onChange?: () => void;
  /** `--allow-loopback-webhooks`: loopback URLs may be registered (and are called); without it they answer 422. */
  allowLoopback?: boolean;
  /**
   * A sandbox's replicas (decision SB13): takes the delivery attempt `key` for this replica, true when no replica
   * has it yet (redis.ts `onceAcrossReplicas`); the event a lifecycle step emits is then delivered once, whichever
   * replicas run the step. Absent in one process.
   */
  claim?: (key: string) => Promise<boolean>;
  /**
   * Real time, for how long a claimed attempt is remembered (CLAIM_TTL_MS, as long as Redis keeps the claim): not
   * `clock`, which `POST /__mock/clock` moves while Redis's time does not. The clock beneath the simulated one
   * (SimulatedClock `base`); by default `clock` itself.
   */
  wallClock?: TimeSource;
  /** The random part of webhook, delivery and event ids and of signing secrets (a seeded simulation's). */
  random?: RandomStreams;
}

/** One delivery in the outbox: the webhook, where it goes and its secret (fixed when queued), the event's JSON. */
export interface QueuedDelivery {
  hook: string;
  url: string;
  secret: string;
  type: string;
  body: string;
}

/** Where one delivery goes, fixed when it is queued: a later change of the URL does not move it (updateWebhook). */
interface Target {
  hook: RegisteredWebhook;
  url: string;
  secret: string;
}

export class Webhooks implements MockState {
  readonly name = "webhooks";

  /**
   * State shared by replicas (state-pg.ts, decision SB23): an emitted event's deliveries are queued in the
   * transaction that commits the change which emitted it (an outbox in PostgreSQL), and delivered by whichever
   * replica claims them (`deliverQueued`): a step rolled back queues nothing, a replica that drains or dies leaves
   * its unsent deliveries to another. Null: delivered from this process at once.
   */
  outbox: ((workspaceId: string, deliveries: QueuedDelivery[]) => void) | null = null;
  /**
   * Without an outbox, with a state file (issue 47, decision DB13): runs `send` once the change that emitted an event
   * is committed, `drop` when that commit fails, so a change that was not written never shows. Null: at once.
   */
  afterCommit: ((send: () => void, drop: (e: Error) => void) => void) | null = null;
  /** Told before close aborts deliveries in flight: the outbox's worker stops claiming and finishes its own. */
  beforeClose: (() => Promise<void>) | null = null;
  /** Registered webhooks, oldest first. */
  private readonly hooks = new Map<string, RegisteredWebhook>();
  /** Order of creation of each webhook (lists are newest first; cursors name it). */
  private readonly seqs = new Map<string, number>();
  /**
   * How many times each resource emitted each type (`attemptKey`), with `claim` only, and when it last did (real
   * time): oldest first, and forgotten once the claim of that attempt has expired in Redis, so a sandbox that runs
   * for months does not keep a count per event ever emitted.
   */
  private readonly emitted = new Map<string, { n: number; at: number }>();
  private seq = 0;
  private readonly samples: Map<string, Json>;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly timers = new Set<Cancel>();
  private readonly aborter = new AbortController();
  private readonly changed: () => void;
  /** The ports the gateway listens on (gateway.ts adds them): a loopback URL on one of them is never called. */
  readonly ownPorts = new Set<number>();

  constructor(
    private readonly contract: Contract,
    private readonly opts: WebhookOptions,
  ) {
    this.changed = opts.onChange ?? (() => {});
    // One sample event per webhook type, from the contract's `webhooks` examples.
    this.samples = new Map();
    for (const [type, item] of Object.entries<Json>(contract.doc.webhooks ?? {})) {
      const media = contract.deref(item)?.post?.requestBody?.content?.["application/json"];
      const ex = contract.deref(Object.values<Json>(media?.examples ?? {})[0]);
      const value = ex?.value ?? media?.example;
      if (value !== undefined) this.samples.set(type, value);
    }
  }

  get eventTypes(): string[] {
    return [...this.samples.keys()];
  }

  /**
   * Why `url` may not be registered, or null: a loopback URL without `--allow-loopback-webhooks` (decision SH15:
   * a tenant could otherwise probe the ports of the mock's machine), for a 422 naming the field.
   */
  refusal(url: string): string | null {
    if (this.opts.allowLoopback || !isLoopbackUrl(url)) return null;
    return "A loopback URL (127.0.0.0/8, [::1], localhost) is accepted only when the mock runs with --allow-loopback-webhooks.";
  }

  /** Headers to add to an answer about `hook`: a notice when the mock will never call its URL. */
  notice(hook: RegisteredWebhook): Record<string, string> {
    if (!isLoopbackUrl(hook.url)) return { [MOCK_NOTICE_HEADER]: NOT_LOOPBACK_NOTICE };
    return reachesGateway(hook.url, this.ownPorts) ? { [MOCK_NOTICE_HEADER]: SELF_TARGET_NOTICE } : {};
  }

  /** Registers a webhook from a validated `WebhookCreate` body; answers the `WebhookWithSecret` to return. */
  register(workspaceId: string, body: components["schemas"]["WebhookCreate"]): RegisteredWebhook {
    const now = isoSeconds(this.opts.clock.now());
    const random = this.opts.random?.of(workspaceId);
    const hook: RegisteredWebhook = {
      id: newId("whk", this.opts.clock.now(), random),
      workspace_id: workspaceId,
      url: body.url,
      event_types: [...body.event_types],
      enabled: body.enabled ?? true,
      description: body.description ?? null,
      created_at: now,
      updated_at: now,
      last_delivery_at: null,
      last_delivery_status: null,
      secret: newWebhookSecret(random),
    };
    this.add(hook);
    this.changed();
    if (hook.enabled) {
      const targets = [this.target(hook)];
      // On the clock: a paused simulation sends them when its time moves past the delay, as the service would.
      const cancel = this.opts.clock.after(this.opts.deliveryDelayMs, () => {
        this.timers.delete(cancel);
        for (const type of hook.event_types) this.track(this.deliver(targets, this.event(workspaceId, type, this.sample(type))));
      });
      this.timers.add(cancel);
    }
    return hook;
  }

  private add(hook: RegisteredWebhook): void {
    this.hooks.set(hook.id, hook);
    this.seqs.set(hook.id, ++this.seq);
  }

  get(id: string, workspaceId: string): RegisteredWebhook | undefined {
    const h = this.hooks.get(id);
    return h && h.workspace_id === workspaceId ? h : undefined;
  }

  /** The workspace's webhooks, newest first. */
  list(workspaceId: string): RegisteredWebhook[] {
    const out: RegisteredWebhook[] = [];
    for (const h of this.hooks.values()) if (h.workspace_id === workspaceId) out.push(h);
    return out.reverse();
  }

  /** Order of creation of a registered webhook (for cursors). */
  seqOf(hook: RegisteredWebhook): number {
    return this.seqs.get(hook.id) ?? 0;
  }

  /** Applies a validated `WebhookUpdate`; the secret never changes (decision W4). */
  update(hook: RegisteredWebhook, patch: components["schemas"]["WebhookUpdate"]): void {
    if (patch.url !== undefined) hook.url = patch.url;
    if (patch.event_types !== undefined) hook.event_types = [...patch.event_types];
    if (patch.enabled !== undefined) hook.enabled = patch.enabled;
    if (patch.description !== undefined) hook.description = patch.description;
    hook.updated_at = isoSeconds(this.opts.clock.now());
    this.changed();
  }

  remove(id: string, workspaceId: string): boolean {
    if (!this.get(id, workspaceId)) return false;
    this.hooks.delete(id);
    this.seqs.delete(id);
    this.changed();
    return true;
  }

  /** Queues one test delivery of `type` (sent whatever the webhook subscribes to, enabled or not). */
  test(hook: RegisteredWebhook, type: string): { delivery_id: string; event_type: WebhookEventType; status: "queued" } {
    this.track(this.deliver([this.target(hook)], this.event(hook.workspace_id, type, this.sample(type))));
    return { delivery_id: newId("dlv", this.opts.clock.now(), this.opts.random?.of(hook.workspace_id)), event_type: type as WebhookEventType, status: "queued" };
  }

  /**
   * Something happened in a workspace: delivers one event (`{id, type, created_at, workspace_id, data}`, one event
   * id for all) to each of its enabled webhooks subscribed to `eventType`, each signed with its own secret.
   */
  emit(workspaceId: string, eventType: string, data: unknown): void {
    const targets: Target[] = [];
    for (const h of this.hooks.values()) {
      if (h.workspace_id === workspaceId && h.enabled && (h.event_types as string[]).includes(eventType)) targets.push(this.target(h));
    }
    if (!targets.length) return;
    const event = this.event(workspaceId, eventType, data);
    if (this.outbox) {
      const body = JSON.stringify(event);
      return this.outbox(workspaceId, targets.map((t) => ({ hook: t.hook.id, url: t.url, secret: t.secret, type: eventType, body })));
    }
    const key = this.opts.claim ? this.attemptKey(workspaceId, eventType, data) : null;
    const send = () => this.track(key === null ? this.deliver(targets, event) : this.deliverOnce(targets, event, key));
    if (!this.afterCommit) return send();
    this.afterCommit(send, (e) => this.opts.log({ hook: targets[0]!.hook.id, type: eventType, url: targets[0]!.url, status: null, ms: 0, error: `not sent: the change that emitted it was not written (${e.message})` }));
  }

  /** A delivery the outbox's worker claimed: made now, to the URL and with the secret fixed when it was queued. */
  async deliverQueued(d: QueuedDelivery): Promise<void> {
    // The registered webhook when this replica knows it (its last delivery is shown there), else a stand-in.
    const hook = this.hooks.get(d.hook) ?? ({ id: d.hook } as RegisteredWebhook);
    const p = this.post({ hook, url: d.url, secret: d.secret }, d.type, d.body);
    this.track(p);
    await p;
  }

  /**
   * The id of an emitted event's delivery attempt, the same on every replica that runs the step: the workspace, the
   * type, the resource's id and how many times this resource emitted this type before (a resource can enter a state
   * twice), with the attempt's number (the mock makes one).
   */
  private attemptKey(workspaceId: string, type: string, data: unknown): string {
    const value = Object.values((data ?? {}) as Record<string, Json>)[0];
    const subject = `${workspaceId}:${type}:${typeof value?.id === "string" ? value.id : JSON.stringify(value)}`;
    const now = (this.opts.wallClock ?? this.opts.clock).now();
    const last = this.emitted.get(subject);
    // After its claims expired, a count starting over at 1 names attempts no replica holds any more.
    const n = last && now - last.at < CLAIM_TTL_MS ? last.n + 1 : 1;
    this.emitted.delete(subject); // set again below, so the map stays oldest first
    this.emitted.set(subject, { n, at: now });
    for (const [k, e] of this.emitted) {
      if (now - e.at < CLAIM_TTL_MS) break;
      this.emitted.delete(k);
    }
    return `${subject}:${n}:attempt-1`;
  }

  /** Resources whose emit counts are kept (with `claim`): none older than CLAIM_TTL_MS. */
  get countsKept(): number {
    return this.emitted.size;
  }

  /** Each target's delivery is made by the one replica that claims it (per URL: each replica registers its own hook). */
  private async deliverOnce(targets: Target[], event: Json, key: string): Promise<void> {
    const raw = JSON.stringify(event);
    await Promise.all(
      targets.map(async (t) => {
        let mine: boolean;
        try {
          mine = await this.opts.claim!(`${key}:${t.url}`);
        } catch {
          this.opts.log({ hook: t.hook.id, type: event.type, url: t.url, status: null, ms: 0, error: "not sent: Redis unreachable, so no replica could claim the delivery" });
          return;
        }
        if (mine) await this.post(t, event.type, raw);
      }),
    );
  }

  /** The `data` of a sample event of `type`, from the contract's example of that webhook. */
  private sample(type: string): Json {
    const sample = this.samples.get(type);
    if (sample === undefined) throw new Error(`no sample event for ${type}`);
    return structuredClone(sample.data);
  }

  /** The JSON body of one event: a fresh id, the time, the real workspace. */
  private event(workspaceId: string, type: string, data: unknown): Json {
    const now = this.opts.clock.now();
    return { id: newId("evt", now, this.opts.random?.of(workspaceId)), type, created_at: isoSeconds(now), workspace_id: workspaceId, data };
  }

  private target(hook: RegisteredWebhook): Target {
    return { hook, url: hook.url, secret: hook.secret };
  }

  private async deliver(targets: Target[], event: Json): Promise<void> {
    const raw = JSON.stringify(event);
    await Promise.all(targets.map((t) => this.post(t, event.type, raw)));
  }

  private async post(t: Target, type: string, raw: string): Promise<void> {
    if (!isLoopbackUrl(t.url)) {
      this.opts.log({ hook: t.hook.id, type, url: t.url, status: null, ms: 0, error: "not sent: the mock delivers only to loopback URLs" });
      return;
    }
    if (reachesGateway(t.url, this.ownPorts)) {
      this.opts.log({ hook: t.hook.id, type, url: t.url, status: null, ms: 0, error: "not sent: the URL reaches the mock gateway itself" });
      return;
    }
    const timestamp = String(Math.floor(this.opts.clock.now() / 1000));
    const started = performance.now();
    let status: number | null = null;
    let error: string | undefined;
    try {
      const res = await fetch(t.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "avt-mock-gateway-webhooks/1",
          [WEBHOOK_HEADERS.id]: t.hook.id,
          [WEBHOOK_HEADERS.timestamp]: timestamp,
          [WEBHOOK_HEADERS.signature]: webhookSignature(t.secret, timestamp, raw),
        },
        body: raw,
        redirect: "manual",
        signal: AbortSignal.any([this.aborter.signal, AbortSignal.timeout(this.opts.timeoutMs ?? 10_000)]),
      });
      status = res.status;
      await res.body?.cancel();
    } catch (e) {
      // fetch's messages may quote the URL, password included ("… a URL that includes credentials: https://u:p@…").
      error = (e as Error).name === "TimeoutError" ? "timed out" : redact(((e as Error).cause as Error)?.message ?? (e as Error).message);
    }
    t.hook.last_delivery_at = isoSeconds(this.opts.clock.now());
    // Only an acknowledgement (2xx) is shown: a refused connection, a time-out and any other answer all read null,
    // so a tenant cannot tell a closed port from a live service (SH15). The log keeps the real outcome.
    t.hook.last_delivery_status = status !== null && status >= 200 && status < 300 ? status : null;
    if (this.hooks.get(t.hook.id) === t.hook) this.changed();
    this.opts.log({ hook: t.hook.id, type, url: t.url, status, ms: performance.now() - started, ...(error ? { error } : {}) });
  }

  private track(p: Promise<unknown>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  /** Cancels the sample deliveries not yet made (deliveries under way finish). */
  private cancelScheduled(): void {
    for (const cancel of this.timers) cancel();
    this.timers.clear();
  }

  /** Cancels scheduled deliveries and aborts those in flight. */
  async close(): Promise<void> {
    await this.beforeClose?.();
    this.cancelScheduled();
    this.aborter.abort();
    await Promise.allSettled([...this.pending]);
  }

  reset(): void {
    this.cancelScheduled();
    this.hooks.clear();
    this.seqs.clear();
    this.seq = 0;
  }

  /** Every registered webhook, oldest first, secrets included (deliveries must verify after a restart). */
  snapshot(): unknown {
    return { webhooks: [...this.hooks.values()].map((h) => ({ ...h })) };
  }

  /** Each webhook must be a `WebhookWithSecret` of the contract, ids unique. */
  restore(data: unknown): void {
    const check = componentCheck(this.contract, "WebhookWithSecret");
    const list = array(object(data, []).webhooks, ["webhooks"]) as RegisteredWebhook[];
    const ids = new Set<string>();
    for (const [i, h] of list.entries()) {
      check(h, ["webhooks", i]);
      if (ids.has(h.id)) throw new SnapshotError(["webhooks", i, "id"], `webhook ${h.id} is there twice`);
      ids.add(h.id);
    }
    this.reset();
    for (const h of list) this.add({ ...h });
  }
}

/** The registered webhook as the API shows it after creation: without its secret. */
export function publicView(h: RegisteredWebhook): Omit<RegisteredWebhook, "secret"> {
  const { secret: _secret, ...rest } = h;
  return rest;
}
