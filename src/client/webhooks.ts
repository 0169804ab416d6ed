// Webhook signatures, as the contract defines them (POST /v1/webhooks, spec/webhooks/*.yaml):
// `X-Webhook-Signature: v1=<lowercase hex HMAC-SHA256 of "<X-Webhook-Timestamp>.<raw body>">`, keyed with the
// webhook's secret (the whole `whsec_...` string as UTF-8). Receivers reject timestamps more than 300 s away.
//
// Web Crypto (`crypto.subtle`, in Node 20+ and browsers) does the HMAC; `subtle.verify` compares the MAC in
// constant time, so no comparison is written here. No Node-only import.

export const WEBHOOK_HEADERS = {
  id: "X-Webhook-Id",
  timestamp: "X-Webhook-Timestamp",
  signature: "X-Webhook-Signature",
} as const;

export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** The raw request body, exactly as received: a string or its bytes (a Node `Buffer` is a `Uint8Array`). */
export type WebhookPayload = string | ArrayBuffer | ArrayBufferView;

/** A `Headers` object, or a plain map such as Node's `IncomingHttpHeaders` (any letter case). */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

export type WebhookVerificationFailure =
  | "missing_header"
  | "malformed_signature"
  | "malformed_timestamp"
  | "timestamp_out_of_tolerance"
  | "signature_mismatch";

export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

const SIGNATURE = /^v1=([0-9a-f]{64})$/;
const TIMESTAMP = /^[0-9]{10}$/;
const encoder = new TextEncoder();

function bytesOf(payload: WebhookPayload): Uint8Array {
  if (typeof payload === "string") return encoder.encode(payload);
  if (payload instanceof ArrayBuffer) return new Uint8Array(payload);
  if (ArrayBuffer.isView(payload)) return new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength);
  throw new TypeError("payload must be the raw request body (a string or bytes), not a parsed object");
}

function signedBytes(timestamp: string, payload: WebhookPayload): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${timestamp}.`);
  const body = bytesOf(payload);
  const out = new Uint8Array(prefix.length + body.length);
  out.set(prefix, 0);
  out.set(body, prefix.length);
  return out;
}

function hmacKey(secret: string, usage: "sign" | "verify"): Promise<CryptoKey> {
  if (typeof secret !== "string" || secret === "") throw new TypeError("secret must be a non-empty string");
  return crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [usage]);
}

function toHex(buf: ArrayBuffer): string {
  let s = "";
  for (const b of new Uint8Array(buf)) s += b.toString(16).padStart(2, "0");
  return s;
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function epochSeconds(now: Date | number | undefined): number {
  const ms = now === undefined ? Date.now() : typeof now === "number" ? now : now.getTime();
  return Math.floor(ms / 1000);
}

export interface SignWebhookOptions {
  payload: WebhookPayload;
  secret: string;
  /** UTC epoch seconds to sign with; default now. */
  timestamp?: number | string;
  /** The clock when `timestamp` is not given: a `Date` or epoch milliseconds (like `Date.now()`). */
  now?: Date | number;
}

export interface SignedWebhook {
  timestamp: string;
  signature: string;
  /** The two signature headers, ready to send with the delivery. */
  headers: { "X-Webhook-Timestamp": string; "X-Webhook-Signature": string };
}

/** Signs a delivery as the service does: `v1=` + hex HMAC-SHA256 of `<timestamp>.<raw body>`. */
export async function signWebhookPayload(options: SignWebhookOptions): Promise<SignedWebhook> {
  const timestamp = String(options.timestamp ?? epochSeconds(options.now));
  if (!TIMESTAMP.test(timestamp)) throw new TypeError("timestamp must be UTC epoch seconds (10 digits)");
  const key = await hmacKey(options.secret, "sign");
  const signature = "v1=" + toHex(await crypto.subtle.sign("HMAC", key, signedBytes(timestamp, options.payload)));
  return { timestamp, signature, headers: { [WEBHOOK_HEADERS.timestamp]: timestamp, [WEBHOOK_HEADERS.signature]: signature } };
}

export interface VerifyWebhookOptions {
  /** The raw body, before any JSON parsing. */
  payload: WebhookPayload;
  /** The delivery's headers; or give `signature` and `timestamp` instead. */
  headers?: WebhookHeaders;
  signature?: string;
  timestamp?: string;
  /** The webhook's secret; several while a secret is being rotated (any one may match). */
  secret: string | readonly string[];
  /** Largest accepted distance between the timestamp and now, either way. Default 300. */
  toleranceSeconds?: number;
  /** The clock: a `Date` or epoch milliseconds (like `Date.now()`). Default now. */
  now?: Date | number;
}

function header(headers: WebhookHeaders | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const lower = name.toLowerCase();
  for (const k in headers) {
    if (k.toLowerCase() !== lower) continue;
    const v = headers[k];
    return typeof v === "string" ? v : v?.length === 1 ? v[0] : undefined;
  }
  return undefined;
}

/**
 * Verifies a webhook delivery; resolves when it is authentic and fresh, otherwise rejects with a
 * `WebhookVerificationError` whose `reason` says why. Messages never contain the secret or the signature.
 */
export async function verifyWebhookSignature(options: VerifyWebhookOptions): Promise<void> {
  const signature = options.signature ?? header(options.headers, WEBHOOK_HEADERS.signature);
  const timestamp = options.timestamp ?? header(options.headers, WEBHOOK_HEADERS.timestamp);
  const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  const secrets = typeof options.secret === "string" ? [options.secret] : options.secret;
  if (secrets.length === 0) throw new TypeError("secret must be a non-empty string or list of strings");
  const payload = bytesOf(options.payload);

  if (signature === undefined || timestamp === undefined) {
    const which = signature === undefined ? WEBHOOK_HEADERS.signature : WEBHOOK_HEADERS.timestamp;
    throw new WebhookVerificationError("missing_header", `${which} is missing`);
  }
  const hex = SIGNATURE.exec(signature)?.[1];
  if (!hex) throw new WebhookVerificationError("malformed_signature", `${WEBHOOK_HEADERS.signature} is not "v1=" and 64 hex digits`);
  if (!TIMESTAMP.test(timestamp)) {
    throw new WebhookVerificationError("malformed_timestamp", `${WEBHOOK_HEADERS.timestamp} is not UTC epoch seconds`);
  }
  const skew = Math.abs(epochSeconds(options.now) - Number(timestamp));
  if (skew > tolerance) {
    throw new WebhookVerificationError(
      "timestamp_out_of_tolerance",
      `${WEBHOOK_HEADERS.timestamp} is ${skew} s away from now (tolerance ${tolerance} s)`,
    );
  }
  const mac = fromHex(hex);
  const signed = signedBytes(timestamp, payload);
  for (const secret of secrets) {
    if (await crypto.subtle.verify("HMAC", await hmacKey(secret, "verify"), mac, signed)) return;
  }
  throw new WebhookVerificationError("signature_mismatch", "the signature does not match the payload and secret");
}
