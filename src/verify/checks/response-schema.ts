// response-schema: the body is valid against the schema the declared response gives for its media type (ajv, JSON
// Schema 2020-12). JSON bodies are validated whole; an event stream (`text/event-stream`) event by event, each as
// `{event, id, data}` with `data` parsed as JSON, which is how the contract describes its SSE events.
import type { ValidateFunction } from "ajv/dist/2020.js";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { isJsonMediaType, mediaTypeCovers, mediaTypeOf, type ContractView } from "../requests/contract-view.js";
import type { Json } from "../../mock/core/contract/contract-build.js";
import { operationPointer } from "../session/reproduce.js";
import type { Check, ExchangeResponse } from "../types.js";
import { bodyless, describeErrors, parseJson } from "./util.js";

export function responseSchema(view: ContractView): Check {
  return {
    name: "response-schema",
    description: "The response body is valid against its declared schema.",
    check({ operation, request, response }) {
      const declared = view.declared(operation, response.status);
      if (!declared || bodyless(request.method, response.status)) return null;
      const mt = mediaTypeOf(response.headers.get("content-type"));
      const entry = Object.entries(declared.content).find(([d]) => mediaTypeCovers(d, mt));
      const schema = entry?.[1]?.schema;
      if (schema === undefined) return null; // an undeclared media type is content-type-declared's finding
      const validate = view.bodyValidator(schema);
      if (mt === "text/event-stream") return checkEvents(response, validate);
      if (!isJsonMediaType(mt)) return null; // YAML, HTML, bytes: no schema of ours to apply
      const body = parseJson(response);
      if (!body.ok) return [`${response.status} ${body.error}`];
      return validate(body.value) ? [] : [`${response.status} body does not match its schema: ${describeErrors(validate.errors)}`];
    },
    schemaPath(e) {
      const declared = view.declared(e.operation, e.response.status)!;
      const mt = mediaTypeOf(e.response.headers.get("content-type"));
      const [key, media] = Object.entries(declared.content).find(([d]) => mediaTypeCovers(d, mt)) ?? ["application/json", {}];
      const at = `${operationPointer(e)}/responses/${declared.key}/content/${key.replaceAll("/", "~1")}/schema`;
      const body = isJsonMediaType(mt) ? parseJson(e.response) : null;
      const validate = view.bodyValidator(media.schema);
      if (!body?.ok || validate(body.value)) return at;
      return failingKeyword(view, media.schema, at, validate.errors![0]!);
    },
  };
}

/**
 * The contract's pointer to the keyword that failed: ajv names it relative to the schema it was in, which may be a
 * component several `$ref`s down, so the instance path is followed through the schema from the response's root
 * (properties, array items, `$ref`s to components) to the schema that holds the keyword.
 */
function failingKeyword(view: ContractView, schema: Json, at: string, error: { instancePath: string; schemaPath: string }): string {
  let node = schema;
  let pointer = at;
  const enter = () => {
    while (typeof node?.$ref === "string" && node.$ref.startsWith("#/components/schemas/")) {
      pointer = node.$ref;
      node = view.contract.deref(node);
    }
  };
  for (const raw of error.instancePath.split("/").slice(1)) {
    enter();
    const seg = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (/^\d+$/.test(seg) && node?.items) [node, pointer] = [node.items, `${pointer}/items`];
    else if (node?.properties?.[seg]) [node, pointer] = [node.properties[seg], `${pointer}/properties/${raw}`];
    else return pointer; // into a oneOf or additional properties: the nearest schema is as far as it goes
  }
  enter();
  return `${pointer}/${error.schemaPath.split("/").pop()}`;
}

function checkEvents(response: ExchangeResponse, validate: ValidateFunction): string[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e) });
  parser.feed(Buffer.from(response.body).toString("utf8"));
  // Only complete events reach onEvent: one cut short by the verifier's reading window is never judged.
  const problems: string[] = [];
  for (const e of events) {
    let data: unknown;
    try {
      data = JSON.parse(e.data);
    } catch {
      problems.push(`event ${e.event ?? "message"} (id ${e.id ?? "none"}): data is not JSON`);
      continue;
    }
    const value = { event: e.event ?? "message", ...(e.id !== undefined ? { id: e.id } : {}), data };
    if (!validate(value)) problems.push(`event ${e.event ?? "message"} (id ${e.id ?? "none"}) does not match its schema: ${describeErrors(validate.errors)}`);
  }
  return problems.slice(0, 5);
}
