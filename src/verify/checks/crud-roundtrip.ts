// crud-roundtrip: what one resource goes through, step by step (the steps are sent by crud.ts, each exchange
// labelled with its step): create answers an id; reading it answers that id with the fields sent; an update is
// answered and read back with the fields sent; delete answers 2xx; reading a resource that is kept with a timestamp
// when "deleted" (`revoked_at` for `revokeApiKey`) afterwards answers 200 with it set. That any other resource
// answers 404 once deleted is use-after-delete's (one rule per fact, decision Y55).
// "Fields sent" are the top-level strings, numbers and booleans of the body that the response shows: a field the
// response leaves out (a secret, say) is not judged. A step answered otherwise than 2xx or 404 (409, 429, 5xx) does
// not answer the question; the round trip then stops (crud.ts).
import type { Check, Exchange, ScenarioStep } from "../types.js";
import { parseJson } from "./util.js";

export function crudRoundtrip(): Check {
  return {
    name: "crud-roundtrip",
    description: "A created resource reads back, updates, deletes, and is gone.",
    check(exchange) {
      const step = exchange.scenario;
      if (!step) return null;
      const { status } = exchange.response;
      const ok = status >= 200 && status < 300;
      if (step.step === "read-deleted") return readDeleted(exchange, step);
      if (status === 404 && step.step !== "create") return [`${label(step)}: the resource ${step.id} just created answered 404`];
      if (!ok) return null;
      if (step.step === "delete") return [];
      const body = parseJson(exchange.response);
      const value = body.ok && body.value && typeof body.value === "object" ? (body.value as Record<string, unknown>) : null;
      if (step.step === "create") return typeof value?.id === "string" ? [] : [`create answered ${status} without a string id`];
      if (!value) return step.step === "update" ? [] : [`${label(step)}: answered ${status} without a JSON object`];
      const problems: string[] = [];
      if ("id" in value && value.id !== step.id) problems.push(`${label(step)}: asked for ${step.id}, answered id ${JSON.stringify(value.id)}`);
      for (const [field, sent] of Object.entries(step.sent ?? {})) {
        if (!["string", "number", "boolean"].includes(typeof sent) || !(field in value)) continue;
        if (value[field] !== sent) problems.push(`${label(step)}: ${field} was sent as ${JSON.stringify(sent)} but reads ${JSON.stringify(value[field])}`);
      }
      return problems;
    },
  };
}

function readDeleted({ response }: Exchange, step: ScenarioStep): string[] | null {
  if (!step.softDeleteField) return null; // use-after-delete judges it
  if (response.status === 404) return [];
  if (response.status < 200 || response.status >= 300) return null;
  if (step.softDeleteField) {
    const body = parseJson(response);
    const value = body.ok ? (body.value as Record<string, unknown> | null)?.[step.softDeleteField] : undefined;
    if (value !== undefined && value !== null) return [];
    return [`read after delete: ${step.id} answered ${response.status} with ${step.softDeleteField} ${JSON.stringify(value ?? null)}; expected 404, or ${step.softDeleteField} set`];
  }
  return [`read after delete: ${step.id} still answers ${response.status}; expected 404`];
}

function label(step: ScenarioStep): string {
  return { create: "create", read: "read after create", update: "update", "read-updated": "read after update", delete: "delete", "read-deleted": "read after delete" }[step.step];
}
