// content-type-declared: a response with a body says what it is, and it is a media type the declared response lists;
// a `charset` parameter names an encoding that reads the bytes (decision Y37): `application/json; charset=utf-16`
// on UTF-8 bytes is a violation, as a client decoding by the header reads garbage.
import { isJsonMediaType, mediaTypeCovers, mediaTypeOf, type ContractView } from "../requests/contract-view.js";
import type { Check } from "../types.js";
import { bodyless } from "./util.js";

export function contentTypeDeclared(view: ContractView): Check {
  return {
    name: "content-type-declared",
    description: "A response body's Content-Type is one the declared response lists.",
    check({ operation, request, response }) {
      const declared = view.declared(operation, response.status);
      // An undeclared status is status-declared's finding; an empty body has no type to check.
      if (!declared || bodyless(request.method, response.status) || response.body.length === 0) return null;
      const listed = Object.keys(declared.content);
      const header = response.headers.get("content-type");
      if (!listed.length) return [`${response.status} declares no body, but ${response.body.length} byte(s) came (Content-Type ${header ?? "none"})`];
      if (!header) return [`${response.status} has a body but no Content-Type (declared: ${listed.join(", ")})`];
      const mt = mediaTypeOf(header);
      if (!listed.some((d) => mediaTypeCovers(d, mt))) return [`Content-Type ${header} is not declared for ${response.status} (declared: ${listed.join(", ")})`];
      const wrong = charsetMismatch(header, mt, response.body);
      return wrong ? [wrong] : [];
    },
  };
}

/** Why the `charset` of a Content-Type does not read the body, or null (no charset, or it reads it). */
export function charsetMismatch(header: string, mt: string, body: Uint8Array): string | null {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(header)?.[1];
  if (!charset) return null;
  let text: string;
  try {
    text = new TextDecoder(charset, { fatal: true, ignoreBOM: false }).decode(body);
  } catch (e) {
    return e instanceof RangeError ? `Content-Type ${header}: ${charset} is not a known encoding` : `Content-Type ${header}: the ${body.length} byte(s) are not ${charset}`;
  }
  if (!isJsonMediaType(mt)) return null;
  try {
    JSON.parse(text);
    return null;
  } catch {
    const utf8 = (() => {
      try {
        JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
        return true;
      } catch {
        return false;
      }
    })();
    // A body that is no JSON in any encoding is response-schema's finding; here only the charset's.
    return utf8 ? `Content-Type ${header}: read as ${charset} the body is not JSON, yet its bytes are UTF-8 JSON` : null;
  }
}
