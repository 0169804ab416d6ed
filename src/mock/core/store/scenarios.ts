// Scenarios: a frontend asks the mock for another outcome with `Prefer: scenario=<name>`, or `?__scenario=<name>`
// where it cannot send headers (a browser's EventSource). Which names an operation takes:
//   - a create whose resource has a lifecycle: the `scenario`s of its processing (`x-lifecycle`: `fail`, and for
//     a run `approval`); the created resource then takes that outcome;
//   - a list: `empty` (an empty page);
//   - an event stream: `stream_error` (the stream ends with an `error` event after what it has replayed).
// An unknown name answers 400 listing the operation's names.
import type { Json, Route } from "../contract/contract-build.js";
import type { Machine } from "../../../contract/lifecycle.js";
import type { StoreModel } from "./model.js";
import type { WorkspaceData } from "./records.js";

export const LIST_SCENARIOS = ["empty"] as const;
export const STREAM_SCENARIOS = ["stream_error"] as const;

/** The scenario a request asks for: `scenario=` in `Prefer`, else the `__scenario` query parameter. */
export function requestedScenario(prefer: string | undefined, query: URLSearchParams): string | undefined {
  if (prefer) {
    for (const part of prefer.split(/[,;]/)) {
      const m = /^\s*scenario\s*=\s*"?([^"]*)"?\s*$/i.exec(part);
      if (m) return m[1]!;
    }
  }
  return query.get("__scenario") ?? undefined;
}

/** The outcomes a lifecycle's processing can take besides its default one. */
export function machineScenarios(m: Machine): string[] {
  return [...new Set(m.transitions.filter((t) => t.trigger === "async" && t.scenario !== undefined).map((t) => t.scenario!))];
}

/** The scenario names an operation takes. */
export function scenariosOf(model: StoreModel, route: Route): string[] {
  const plan = model.plans.get(route);
  if (plan?.kind === "create" && plan.coll.machine) return machineScenarios(plan.coll.machine);
  if (plan?.kind === "list") return [...LIST_SCENARIOS];
  if (route.op.responses?.[String(route.successCode)]?.content?.["text/event-stream"]) return [...STREAM_SCENARIOS];
  return [];
}

/** Why `scenario` cannot be honoured for `route`, or undefined when it can. */
export function scenarioProblem(model: StoreModel, route: Route, scenario: string): string | undefined {
  const known = scenariosOf(model, route);
  if (known.includes(scenario)) return undefined;
  const op = `${route.method.toUpperCase()} ${route.template}`;
  return `Prefer scenario=${scenario}: ${op} ${known.length ? `takes the scenarios ${known.join(", ")}` : "takes no scenario"}.`;
}

/**
 * The scenario a new resource takes when the request names none: one its links ask for. A resource that links to
 * another (`agent_id`) whose boolean `requires_<scenario>` is true takes that scenario: a run of an agent with
 * `requires_approval` asks for approval.
 */
export function impliedScenario(model: StoreModel, ws: WorkspaceData, m: Machine, value: Json): string | undefined {
  const names = machineScenarios(m);
  for (const [prop, id] of Object.entries<Json>(value)) {
    if (!prop.endsWith("_id") || typeof id !== "string") continue;
    for (const coll of model.collections.values()) {
      if (coll.parent || !coll.keyPattern || !new RegExp(coll.keyPattern).test(id)) continue;
      const linked = ws.table(coll).get(null, id)?.value;
      const wanted = names.find((n) => linked?.[`requires_${n}`] === true);
      if (wanted) return wanted;
    }
  }
  return undefined;
}
