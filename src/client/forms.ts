// Form bodies by media type (decision ID8): the operations whose request body is a form (FORM_BODIES in
// write.generated.ts, looked up by the write path)
// take an object, sent as the form the contract declares, with no header set by hand:
//   multipart/form-data                  a FormData: a Blob or File field is a file part, an array one part per
//                                        item, an object (`metadata`) a part holding its JSON; a FormData given is sent as it is
//   application/x-www-form-urlencoded    URLSearchParams and its Content-Type (openapi-fetch would say JSON)
import { setsHeader, withHeader, type Init } from "./init.js";

const CONTENT_TYPE = "Content-Type";

/** A body that is an object of fields, not one that fetch sends as it is. */
function isFields(body: unknown): body is Record<string, unknown> {
  if (!body || typeof body !== "object") return false;
  const proto = Object.getPrototypeOf(body);
  return proto === Object.prototype || proto === null;
}

function multipart(fields: Record<string, unknown>): FormData {
  const form = new FormData();
  const add = (name: string, v: unknown) => {
    if (v === undefined || v === null) return;
    if (v instanceof Blob) form.append(name, v, (v as File).name || name);
    else if (typeof v === "object") form.append(name, JSON.stringify(v));
    else form.append(name, String(v));
  };
  for (const [name, v] of Object.entries(fields)) for (const item of Array.isArray(v) ? v : [v]) add(name, item);
  return form;
}

function urlencoded(fields: Record<string, unknown>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, v] of Object.entries(fields)) {
    for (const item of Array.isArray(v) ? v : [v]) if (item !== undefined && item !== null) params.append(name, String(item));
  }
  return params;
}

/** The call's init with an object body encoded as `media`, the operation's form (FORM_BODIES); else `init` as it is. */
export function withForm(media: string, init: Init): Init {
  if (!isFields(init?.body)) return init;
  if (media === "multipart/form-data") return { ...init, body: multipart(init.body) };
  const body = urlencoded(init.body);
  return setsHeader(init, CONTENT_TYPE) ? { ...init, body } : withHeader(init, CONTENT_TYPE, media, { body });
}
