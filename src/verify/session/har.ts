// The run's traffic as an HTTP Archive (HAR 1.2, http://www.softwareishard.com/blog/har-12-spec/), for `--har FILE`:
// every exchange the session sent, in order, with its timings, as browsers' and proxies' tools read it. Credentials
// are hidden the way the JSON report hides them (decision Y45): credential headers become `[redacted]`, a `token=`
// in a URL too, and bodies pass the same redaction as a reproduction's excerpt; the CLI runs the whole text through
// `redactReport` last and writes it 0600.
import { redact, redactQuery } from "../../mock/core/pipeline/log.js";
import type { ExchangeRequest, ExchangeResponse } from "../types.js";

const CREDENTIAL_HEADERS = new Set(["x-api-key", "authorization", "cookie", "set-cookie"]);

interface NameValue {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: { method: string; url: string; httpVersion: string; cookies: []; headers: NameValue[]; queryString: NameValue[]; postData?: { mimeType: string; text: string; encoding?: string }; headersSize: number; bodySize: number };
  response: { status: number; statusText: string; httpVersion: string; cookies: []; headers: NameValue[]; content: { size: number; mimeType: string; text?: string; encoding?: string }; redirectURL: string; headersSize: number; bodySize: number };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  comment?: string;
}

export interface Har {
  log: { version: "1.2"; creator: { name: string; version: string }; entries: HarEntry[]; comment?: string };
}

/** A body as HAR text: UTF-8 when it is text, else base64 (with `encoding`). */
function bodyText(bytes: Uint8Array, hide: (s: string) => string): { text: string; encoding?: string } {
  const text = Buffer.from(bytes).toString("utf8");
  if (!text.includes("\uFFFD") && !/[\x00-\x08\x0e-\x1f]/.test(text)) return { text: hide(text) };
  return { text: Buffer.from(bytes).toString("base64"), encoding: "base64" };
}

/** The traffic of one run. */
export class HarRecorder {
  readonly entries: HarEntry[] = [];

  /** One exchange: `response` null when the connection closed without an answer (status 0, as browsers log it). */
  add(request: ExchangeRequest, response: ExchangeResponse | null, started: number, ms: number, secret: string, comment?: string): void {
    const swap = (t: string) => t.split(secret).join("[redacted]");
    const hide = (t: string) => redact(swap(t));
    const headerList = (pairs: Array<[string, string]>) => pairs.map(([name, value]) => ({ name, value: CREDENTIAL_HEADERS.has(name.toLowerCase()) ? "[redacted]" : hide(value) }));
    // A URL stays one (HAR's `url` is a URI): the placeholder's brackets percent-encoded.
    // Only credentials out of a URL (`token=`, the secret), never a cursor that looks like a JWT (as reproduce.ts).
    const url = redactQuery(swap(request.url)).replaceAll("[redacted]", "%5Bredacted%5D");
    const u = new URL(url);
    const reqHeaders = headerList(Object.entries(request.headers));
    const resPairs: Array<[string, string]> = [];
    response?.headers.forEach((v, k) => void resPairs.push([k, v]));
    const body = request.body?.length ? bodyText(request.body, hide) : null;
    const content = response?.body.length ? bodyText(response.body, hide) : { text: "" };
    this.entries.push({
      startedDateTime: new Date(started).toISOString(),
      time: ms,
      request: {
        method: request.method,
        url,
        httpVersion: "HTTP/1.1",
        cookies: [],
        headers: reqHeaders,
        queryString: [...u.searchParams].map(([name, value]) => ({ name, value })),
        ...(body ? { postData: { mimeType: request.headers["content-type"] ?? "application/octet-stream", ...body } } : {}),
        headersSize: -1,
        bodySize: request.body?.length ?? 0,
      },
      response: {
        status: response?.status ?? 0,
        statusText: "",
        httpVersion: "HTTP/1.1",
        cookies: [],
        headers: headerList(resPairs),
        content: { size: response?.body.length ?? 0, mimeType: response?.headers.get("content-type") ?? "", ...content },
        redirectURL: response?.headers.get("location") ?? "",
        headersSize: -1,
        bodySize: response?.body.length ?? -1,
      },
      cache: {},
      timings: { send: 0, wait: ms, receive: 0 },
      ...(comment ? { comment } : {}),
    });
  }

  toJSON(): Har {
    return { log: { version: "1.2", creator: { name: "avt-verify", version: "1" }, entries: this.entries } };
  }
}
