// The request log: one line per request (method, path, status, latency, workspace), with secrets taken out.

export interface RequestLogEntry {
  method: string;
  /** Path and query as received; redacted before it is written. */
  url: string;
  status: number;
  ms: number;
  workspace: string | null;
  /** The answer's `X-Request-Id` and the matched operation, where the request got that far. */
  requestId?: string;
  operation?: string;
}

/** A structured request log (the Node home's `--log-format json`, through pino): one entry per request, redacted. */
export type RequestLog = (e: RequestLogEntry) => void;

export type LogSink = (line: string) => void;

const SECRET_QUERY_PARAMS = new Set(["token", "api_key", "apikey", "key", "access_token", "secret"]);

/** A URL with the values of its credential query parameters (`?token=…`) replaced by `[redacted]`, nothing else. */
export function redactQuery(text: string): string {
  const q = text.indexOf("?");
  if (q < 0) return text;
  const params = text
    .slice(q + 1)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      const name = decodeSafe(eq < 0 ? pair : pair.slice(0, eq)).toLowerCase();
      return SECRET_QUERY_PARAMS.has(name) ? `${pair.slice(0, eq < 0 ? pair.length : eq)}=[redacted]` : pair;
    });
  return text.slice(0, q + 1) + params.join("&");
}

/**
 * Removes credentials from a URL or free text: the values of credential query parameters (`?token=…`), the
 * userinfo of URLs (`https://user:password@host`), API keys (`pk_live_…`, `pk_test_…`), JWTs (whole or cut
 * short) and webhook secrets wherever they appear.
 */
export function redact(text: string): string {
  const out = redactQuery(text);
  return out
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/?#@\s]*@/gi, "$1[redacted]@")
    .replace(/pk_(live|test)_[0-9A-Za-z_]+/g, "pk_$1_[redacted]")
    .replace(/whsec_[0-9A-Za-z]+/g, "whsec_[redacted]")
    // A JWT, or the start of one (an excerpt of a body may cut it short): base64url of `{"` and what follows.
    .replace(/eyJ[0-9A-Za-z_-]*(?:\.[0-9A-Za-z_-]*){0,2}/g, "[redacted-jwt]");
}

/** Longest piece of a request (a path, a header value) that an error's `detail` quotes (decision G22). */
export const MAX_QUOTED_CHARACTERS = 200;

/**
 * `text` cut to at most `max` characters, its last one an ellipsis ("…") when anything was cut, never in the
 * middle of a surrogate pair.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  if (/[\uD800-\uDBFF]/.test(text[end - 1] ?? "")) end--;
  return text.slice(0, end) + "…";
}

/** Client text as an error's `detail` quotes it: credentials taken out (`redact`), then cut to MAX_QUOTED_CHARACTERS. */
export function quote(text: string): string {
  return truncate(redact(text), MAX_QUOTED_CHARACTERS);
}

/**
 * A JSON.parse error message without the excerpt of the input that V8 quotes (`Unexpected token 'p', "pk_test_ab"...
 * is not valid JSON`): the input may hold a secret, and the excerpt would carry part of it into an error body.
 */
export function withoutExcerpt(message: string): string {
  return message.replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, "");
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function formatRequestLine(e: RequestLogEntry, now: Date): string {
  return `${now.toISOString()} ${e.method} ${redact(e.url)} ${e.status} ${e.ms.toFixed(1)}ms ${e.workspace ?? "-"}`;
}

export const consoleSink: LogSink = (line) => process.stdout.write(line + "\n");
