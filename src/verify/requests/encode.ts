// Request parts as bytes: parameter values in paths and query strings, and bodies in each media type the contract
// uses (JSON, URL-encoded and multipart forms, raw bytes). Multipart goes through the platform's FormData and
// Response, so boundaries and part headers are the standard ones.
import type { Json } from "../../mock/core/contract/contract-build.js";
import { isJsonMediaType } from "./contract-view.js";

export interface EncodedBody {
  contentType: string;
  bytes: Uint8Array;
}

/** A path template filled with (encoded) values. */
export function fillPath(template: string, values: Record<string, unknown>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(values[name] ?? "")));
}

/** Query parameters as `?a=1&b=x` (form style: arrays repeat the name, or are joined by commas when `explode: false`). */
export function queryString(params: Json[], values: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const p of params) {
    const v = values[p.name];
    if (v === undefined) continue;
    if (Array.isArray(v)) {
      if (p.explode === false) q.append(p.name, v.map(String).join(","));
      else for (const item of v) q.append(p.name, String(item));
    } else q.append(p.name, typeof v === "object" && v !== null ? JSON.stringify(v) : String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}

/** A body value in the media type the operation declares. `media` is the request body's entry for that type. */
export async function encodeBody(mediaType: string, value: unknown, media: Json): Promise<EncodedBody> {
  if (isJsonMediaType(mediaType)) return { contentType: mediaType, bytes: Buffer.from(JSON.stringify(value)) };
  if (mediaType === "application/x-www-form-urlencoded") {
    const form = new URLSearchParams();
    for (const [name, v] of Object.entries((value ?? {}) as Record<string, unknown>)) {
      for (const item of Array.isArray(v) ? v : [v]) form.append(name, typeof item === "object" && item !== null ? JSON.stringify(item) : String(item));
    }
    return { contentType: mediaType, bytes: Buffer.from(form.toString()) };
  }
  if (mediaType === "multipart/form-data") return multipart(value as Record<string, unknown>, media);
  // Raw bytes (application/octet-stream): the example stands for the bytes, so its text is sent as they.
  return { contentType: mediaType, bytes: Buffer.from(typeof value === "string" ? value : JSON.stringify(value ?? "")) };
}

async function multipart(value: Record<string, unknown>, media: Json): Promise<EncodedBody> {
  const form = new FormData();
  const props: Record<string, Json> = media?.schema?.properties ?? {};
  for (const [name, v] of Object.entries(value ?? {})) {
    const partType: string = media?.encoding?.[name]?.contentType ?? "";
    if (props[name]?.contentMediaType || props[name]?.format === "binary") {
      form.append(name, new Blob([String(v)], { type: "application/octet-stream" }), "verify-sample.bin");
    } else if (Array.isArray(v)) {
      for (const item of v) form.append(name, String(item));
    } else {
      form.append(name, partType.includes("json") || (typeof v === "object" && v !== null) ? JSON.stringify(v) : String(v));
    }
  }
  const r = new Response(form);
  return { contentType: r.headers.get("content-type")!, bytes: new Uint8Array(await r.arrayBuffer()) };
}
