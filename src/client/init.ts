// The headers of a call's init, as openapi-fetch takes them (a Headers, [name, value] pairs or a record, plus the
// typed `params.header`): read and added to without changing the caller's objects.

export type Init = { headers?: unknown; params?: { header?: unknown }; body?: unknown; [key: string]: unknown } | undefined;

/** Whether a headers value names `header`, in any case (a record's null or undefined value unsets it). */
function names(headers: unknown, header: string): boolean {
  if (!headers || typeof headers !== "object") return false;
  if (headers instanceof Headers) return headers.has(header);
  const list = Array.isArray(headers) ? headers.map((e) => e?.[0]) : Object.keys(headers).filter((k) => (headers as Record<string, unknown>)[k] != null);
  const lower = header.toLowerCase();
  return list.some((k) => typeof k === "string" && k.toLowerCase() === lower);
}

/** Whether the call sets `header` itself, in `headers` or in `params.header`. */
export function setsHeader(init: Init, header: string): boolean {
  return names(init?.headers, header) || names(init?.params?.header, header);
}

/** The init with `header: value` added to a copy of its headers (and `extra` over the rest). */
export function withHeader(init: Init, header: string, value: string, extra?: Record<string, unknown>): Init {
  const h = init?.headers;
  let headers: unknown;
  if (h instanceof Headers) (headers = new Headers(h)).set(header, value);
  else if (Array.isArray(h)) headers = [...h, [header, value]];
  else headers = { ...(h as object), [header]: value };
  return { ...init, ...extra, headers };
}
