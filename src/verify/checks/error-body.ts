// error-body: an error (4xx, 5xx) is JSON with a `detail`: a human-readable string, or for 422 an array with one
// item per invalid field (spec §7), or a string on the 422 that is not a validation failure, which says so in its
// `error` code (`idempotency_key_reused`, decision ID1). Checked on every error, declared or not: it is the edge's rule for all of them.
import type { Check } from "../types.js";
import { bodyless, parseJson } from "./util.js";

export function errorBody(): Check {
  return {
    name: "error-body",
    description: "Error responses are JSON with a detail string (an array for 422).",
    check({ request, response }) {
      if (response.status < 400 || bodyless(request.method, response.status)) return null;
      const body = parseJson(response);
      if (!body.ok) return [`error ${response.status}: ${body.error}`];
      const value = body.value && typeof body.value === "object" && !Array.isArray(body.value) ? (body.value as { detail?: unknown; error?: unknown }) : undefined;
      const detail = value?.detail;
      if (detail === undefined) return [`error ${response.status} has no detail field`];
      if (response.status === 422 && typeof detail === "string" && typeof value?.error === "string") return [];
      if (response.status === 422) return Array.isArray(detail) && detail.length > 0 ? [] : [`422 detail is ${describe(detail)}, not an array of the invalid fields`];
      return typeof detail === "string" ? [] : [`error ${response.status} detail is ${describe(detail)}, not a string`];
    },
  };
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return v.length ? "an array" : "an empty array";
  return v === null ? "null" : `a ${typeof v}`;
}
