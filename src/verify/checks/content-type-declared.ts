// content-type-declared: a response with a body says what it is, and it is a media type the declared response lists.
import { mediaTypeCovers, mediaTypeOf, type ContractView } from "../contract-view.js";
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
      return listed.some((d) => mediaTypeCovers(d, mt)) ? [] : [`Content-Type ${header} is not declared for ${response.status} (declared: ${listed.join(", ")})`];
    },
  };
}
