// Webhooks in the mock: `POST /v1/webhooks` registers an endpoint (loopback http allowed, as the contract says),
// the mock then delivers one signed sample event per subscribed type, and `POST /v1/webhooks/{id}/test` sends one
// more. Signing follows the contract: `X-Webhook-Signature: v1=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`
// keyed with the full `whsec_…` secret, `X-Webhook-Timestamp` in epoch seconds, `X-Webhook-Id`.
// The mock calls loopback URLs only (127.0.0.0/8, [::1], localhost): any other URL the contract accepts is stored
// and shown like the others but never called, so a mock cannot be made to send requests into a network (cloud
// metadata at 169.254.169.254, private addresses). Each delivery not made is logged, and the answers that
// register or test such a webhook carry X-Mock-Notice.
import { createHmac, randomInt } from "node:crypto";
import net from "node:net";
import type { components } from "../../generated/schema.js";
import type { Contract, Json } from "./contract.js";
import { newId } from "./events.js";
import type { Clock } from "./limiter.js";
import { redact } from "./log.js";

export const WEBHOOK_HEADERS = { id: "X-Webhook-Id", timestamp: "X-Webhook-Timestamp", signature: "X-Webhook-Signature" } as const;

/** Header of the answers that register or test a webhook the mock will not call. */
export const MOCK_NOTICE_HEADER = "X-Mock-Notice";
export const NOT_LOOPBACK_NOTICE = "Stored but never called: the mock delivers webhooks only to loopback URLs (127.0.0.0/8, [::1], localhost).";

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
  if (host === "localhost" || host === "[::1]") return true;
  return net.isIPv4(host) && host.startsWith("127.");
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export function newWebhookSecret(): string {
  let s = "whsec_";
  for (let i = 0; i < 32; i++) s += BASE62[randomInt(62)];
  return s;
}

/** `v1=` + lowercase hex HMAC-SHA256 of `<timestamp>.<raw body>`, keyed with the whole secret as UTF-8. */
export function webhookSignature(secret: string, timestamp: string, rawBody: string | Buffer): string {
  return "v1=" + createHmac("sha256", secret).update(`${timestamp}.`).update(rawBody).digest("hex");
}

/** A registered webhook as the contract returns it from `POST /v1/webhooks` (secret included). */
export type RegisteredWebhook = components["schemas"]["WebhookWithSecret"];

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
}

export class Webhooks {
  private readonly hooks = new Map<string, RegisteredWebhook>();
  private readonly samples: Map<string, Json>;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly aborter = new AbortController();

  constructor(
    contract: Contract,
    private readonly opts: WebhookOptions,
  ) {
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

  /** Headers to add to an answer about `hook`: a notice when the mock will never call its URL. */
  notice(hook: RegisteredWebhook): Record<string, string> {
    return isLoopbackUrl(hook.url) ? {} : { [MOCK_NOTICE_HEADER]: NOT_LOOPBACK_NOTICE };
  }

  /** Registers a webhook from a validated `WebhookCreate` body; answers the `WebhookWithSecret` to return. */
  register(workspaceId: string, body: components["schemas"]["WebhookCreate"]): RegisteredWebhook {
    const now = new Date(this.opts.clock.now()).toISOString().replace(/\.\d{3}Z$/, "Z");
    const hook: RegisteredWebhook = {
      id: newId("whk", this.opts.clock.now()),
      workspace_id: workspaceId,
      url: body.url,
      event_types: [...body.event_types],
      enabled: body.enabled ?? true,
      description: body.description ?? null,
      created_at: now,
      updated_at: now,
      last_delivery_at: null,
      last_delivery_status: null,
      secret: newWebhookSecret(),
    };
    this.hooks.set(hook.id, hook);
    if (hook.enabled) {
      const t = setTimeout(() => {
        this.timers.delete(t);
        for (const type of hook.event_types) this.track(this.deliver(hook, type));
      }, this.opts.deliveryDelayMs);
      this.timers.add(t);
    }
    return hook;
  }

  get(id: string, workspaceId: string): RegisteredWebhook | undefined {
    const h = this.hooks.get(id);
    return h && h.workspace_id === workspaceId ? h : undefined;
  }

  remove(id: string, workspaceId: string): boolean {
    return this.get(id, workspaceId) ? this.hooks.delete(id) : false;
  }

  /** Queues one test delivery of `type` (sent whatever the webhook subscribes to, enabled or not). */
  test(hook: RegisteredWebhook, type: string): { delivery_id: string; event_type: string; status: "queued" } {
    this.track(this.deliver(hook, type));
    return { delivery_id: newId("dlv", this.opts.clock.now()), event_type: type, status: "queued" };
  }

  /**
   * Delivers an event that happened in a workspace (a stored resource entering a state: store/driver.ts) to
   * every enabled webhook of that workspace subscribed to its type. `data` is the event's `data` member.
   */
  emit(workspaceId: string, eventType: string, data: unknown): void {
    for (const hook of this.hooks.values()) {
      if (hook.workspace_id === workspaceId && hook.enabled && hook.event_types.includes(eventType as never)) this.track(this.deliver(hook, eventType, data));
    }
  }

  /** The JSON body of one delivery: the contract's sample (or `data`) with a fresh id, the time and the real workspace. */
  event(hook: RegisteredWebhook, type: string, data?: unknown): Json {
    const sample = this.samples.get(type);
    if (sample === undefined) throw new Error(`no sample event for ${type}`);
    return {
      ...structuredClone(sample),
      ...(data !== undefined ? { data } : {}),
      id: newId("evt", this.opts.clock.now()),
      type,
      created_at: new Date(this.opts.clock.now()).toISOString().replace(/\.\d{3}Z$/, "Z"),
      workspace_id: hook.workspace_id,
    };
  }

  private async deliver(hook: RegisteredWebhook, type: string, data?: unknown): Promise<void> {
    if (!isLoopbackUrl(hook.url)) {
      this.opts.log({ hook: hook.id, type, url: hook.url, status: null, ms: 0, error: "not sent: the mock delivers only to loopback URLs" });
      return;
    }
    const raw = JSON.stringify(this.event(hook, type, data));
    const timestamp = String(Math.floor(this.opts.clock.now() / 1000));
    const started = performance.now();
    let status: number | null = null;
    let error: string | undefined;
    try {
      const res = await fetch(hook.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "avt-mock-gateway-webhooks/1",
          [WEBHOOK_HEADERS.id]: hook.id,
          [WEBHOOK_HEADERS.timestamp]: timestamp,
          [WEBHOOK_HEADERS.signature]: webhookSignature(hook.secret, timestamp, raw),
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
    hook.last_delivery_at = new Date(this.opts.clock.now()).toISOString().replace(/\.\d{3}Z$/, "Z");
    hook.last_delivery_status = status;
    this.opts.log({ hook: hook.id, type, url: hook.url, status, ms: performance.now() - started, ...(error ? { error } : {}) });
  }

  private track(p: Promise<unknown>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  /** Cancels scheduled deliveries and aborts those in flight. */
  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.aborter.abort();
    await Promise.allSettled([...this.pending]);
  }
}

/** The registered webhook as the API shows it after creation: without its secret. */
export function publicView(h: RegisteredWebhook): Omit<RegisteredWebhook, "secret"> {
  const { secret: _secret, ...rest } = h;
  return rest;
}
