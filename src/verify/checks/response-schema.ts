// response-schema: the body is valid against the schema the declared response gives for its media type (ajv, JSON
// Schema 2020-12). JSON bodies are validated whole; an event stream (`text/event-stream`) event by event, each as
// `{event, id, data}` with `data` parsed as JSON, which is how the contract describes its SSE events.
import type { ValidateFunction } from "ajv/dist/2020.js";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { isJsonMediaType, mediaTypeCovers, mediaTypeOf, type ContractView } from "../contract-view.js";
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
  };
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
