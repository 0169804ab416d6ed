import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  signWebhookPayload,
  verifyWebhookSignature,
  WEBHOOK_HEADERS,
  WebhookVerificationError,
  type WebhookVerificationFailure,
} from "../../src/client/index.js";
import { caught, doc } from "./helpers.js";

// The contract's own example secret, timestamp and event.
const SECRET: string = doc.components.examples.WebhookWithSecret.value.secret;
const TIMESTAMP: string = doc.components.parameters.WebhookTimestampHeader.schema.examples[0];
const BODY = JSON.stringify(doc.components.examples.WebhookEventAnalysisCompleted.value);
const NOW = Number(TIMESTAMP) * 1000;
/** The vector, computed independently of the code under test. */
const EXPECTED = "v1=" + createHmac("sha256", SECRET).update(`${TIMESTAMP}.${BODY}`, "utf8").digest("hex");

async function reason(p: Promise<unknown>): Promise<WebhookVerificationFailure> {
  const e = await caught(p);
  expect(e).toBeInstanceOf(WebhookVerificationError);
  const message = (e as Error).message;
  expect(message).not.toContain(SECRET);
  expect(message).not.toContain(EXPECTED.slice(3));
  return (e as WebhookVerificationError).reason;
}

describe("webhook signatures", () => {
  it("signs as node:crypto's HMAC-SHA256 of `<timestamp>.<raw body>` does", async () => {
    const signed = await signWebhookPayload({ payload: BODY, secret: SECRET, timestamp: TIMESTAMP });
    expect(signed.signature).toBe(EXPECTED);
    expect(signed.headers).toEqual({ "X-Webhook-Timestamp": TIMESTAMP, "X-Webhook-Signature": EXPECTED });
    expect(await signWebhookPayload({ payload: Buffer.from(BODY), secret: SECRET, now: NOW })).toMatchObject({ signature: EXPECTED, timestamp: TIMESTAMP });
  });

  it("verifies and reproduces the contract's documented test vector (the X-Webhook-Signature example)", async () => {
    const documented: string = doc.components.parameters.WebhookSignatureHeader.schema.examples[0];
    await verifyWebhookSignature({ payload: BODY, signature: documented, timestamp: TIMESTAMP, secret: SECRET, now: NOW });
    expect((await signWebhookPayload({ payload: BODY, secret: SECRET, timestamp: TIMESTAMP })).signature).toBe(documented);
  });

  it("signs the bytes exactly: a non-ASCII body as UTF-8", async () => {
    const body = '{"detail":"Größe ✓ 成田"}';
    const expected = "v1=" + createHmac("sha256", SECRET).update(`${TIMESTAMP}.`).update(Buffer.from(body, "utf8")).digest("hex");
    expect((await signWebhookPayload({ payload: new TextEncoder().encode(body), secret: SECRET, timestamp: TIMESTAMP })).signature).toBe(expected);
  });

  it("accepts an authentic delivery from Headers, a plain header map (any case), or explicit values", async () => {
    await verifyWebhookSignature({
      payload: BODY,
      headers: new Headers({ [WEBHOOK_HEADERS.signature]: EXPECTED, [WEBHOOK_HEADERS.timestamp]: TIMESTAMP }),
      secret: SECRET,
      now: NOW,
    });
    await verifyWebhookSignature({
      payload: Buffer.from(BODY),
      headers: { "x-webhook-signature": EXPECTED, "x-webhook-timestamp": TIMESTAMP },
      secret: SECRET,
      now: new Date(NOW + 299_000),
    });
    await verifyWebhookSignature({ payload: BODY, signature: EXPECTED, timestamp: TIMESTAMP, secret: SECRET, now: NOW - 300_000 });
  });

  it("accepts any of several secrets while one is being rotated", async () => {
    await verifyWebhookSignature({ payload: BODY, signature: EXPECTED, timestamp: TIMESTAMP, secret: ["whsec_old0000000000000000000000000000", SECRET], now: NOW });
  });

  it("rejects a changed body, a wrong secret, or a signature moved to another timestamp", async () => {
    const base = { signature: EXPECTED, timestamp: TIMESTAMP, secret: SECRET, now: NOW };
    expect(await reason(verifyWebhookSignature({ ...base, payload: BODY.replace("completed", "c0mpleted") }))).toBe("signature_mismatch");
    expect(await reason(verifyWebhookSignature({ ...base, payload: BODY + " " }))).toBe("signature_mismatch");
    expect(await reason(verifyWebhookSignature({ ...base, payload: BODY, secret: SECRET + "x" }))).toBe("signature_mismatch");
    const later = String(Number(TIMESTAMP) + 1);
    expect(await reason(verifyWebhookSignature({ ...base, payload: BODY, timestamp: later }))).toBe("signature_mismatch");
  });

  it("rejects timestamps more than 300 s away, old or in the future", async () => {
    const base = { payload: BODY, signature: EXPECTED, timestamp: TIMESTAMP, secret: SECRET };
    expect(await reason(verifyWebhookSignature({ ...base, now: NOW + 301_000 }))).toBe("timestamp_out_of_tolerance");
    expect(await reason(verifyWebhookSignature({ ...base, now: NOW - 301_000 }))).toBe("timestamp_out_of_tolerance");
    expect(await reason(verifyWebhookSignature({ ...base, now: NOW + 61_000, toleranceSeconds: 60 }))).toBe("timestamp_out_of_tolerance");
  });

  it("rejects missing or malformed headers", async () => {
    const base = { payload: BODY, secret: SECRET, now: NOW };
    expect(await reason(verifyWebhookSignature({ ...base, headers: { "X-Webhook-Timestamp": TIMESTAMP } }))).toBe("missing_header");
    expect(await reason(verifyWebhookSignature({ ...base, headers: new Headers({ "X-Webhook-Signature": EXPECTED }) }))).toBe("missing_header");
    expect(await reason(verifyWebhookSignature({ ...base, timestamp: TIMESTAMP, signature: EXPECTED.toUpperCase() }))).toBe("malformed_signature");
    expect(await reason(verifyWebhookSignature({ ...base, timestamp: TIMESTAMP, signature: "v0=" + EXPECTED.slice(3) }))).toBe("malformed_signature");
    expect(await reason(verifyWebhookSignature({ ...base, timestamp: "17950932OO", signature: EXPECTED }))).toBe("malformed_timestamp");
  });

  it("refuses a parsed body instead of the raw one", async () => {
    await expect(
      verifyWebhookSignature({ payload: JSON.parse(BODY), signature: EXPECTED, timestamp: TIMESTAMP, secret: SECRET, now: NOW }),
    ).rejects.toThrow(/raw request body/);
  });
});
