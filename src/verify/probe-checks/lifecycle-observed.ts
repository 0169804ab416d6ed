// lifecycle-observed: every change of state seen of one resource with an `x-lifecycle` is one its transitions allow
// (decision Y52). Remembers, per caller, schema and id, the last state a 2xx answer showed (a resource answered
// whole, or the items of a list's `data`); a later answer showing another state must be reachable from it through
// the lifecycle's transitions, whatever triggers them (a sample may skip a state: queued → completed is a move).
// Not judged: a state outside the enum (response-schema names it, one rule per fact), and an Idempotency-Key
// replay (it answers the first answer again, as stored). The states are sampled on purpose by probes/sampling.ts.
import type { Json } from "../../mock/core/contract/contract-build.js";
import { reaches, readLifecycles, type Machine } from "../../contract/lifecycle.js";
import type { ContractView } from "../requests/contract-view.js";
import { pointer } from "../session/reproduce.js";
import type { Check, Exchange, Operation } from "../types.js";
import { parseJson } from "../checks/util.js";

/** The machine whose schema a response schema names, whole (`list: false`) or as a list's `data` items. */
export type Shape = { machine: Machine; list: boolean } | null;

/** The lifecycle of what `op` answers with `status`: a resource with an x-lifecycle, whole or as a list's items; else null. */
export function answeredShape(view: ContractView, machines: Record<string, Machine>, op: Operation, status: number): Shape {
  const schemas: Record<string, Json> = view.contract.doc.components?.schemas ?? {};
  const nameOf = (node: Json): string | undefined => {
    if (typeof node?.$ref === "string") return node.$ref.replace("#/components/schemas/", "");
    const resolved = view.contract.deref(node);
    return Object.keys(schemas).find((k) => view.contract.deref(schemas[k]) === resolved);
  };
  const schema = view.declared(op, status)?.content["application/json"]?.schema;
  const whole = schema ? nameOf(schema) : undefined;
  if (whole && machines[whole]) return { machine: machines[whole]!, list: false };
  const items = view.contract.deref(view.contract.deref(schema)?.properties?.data)?.items;
  const listed = items ? nameOf(items) : undefined;
  return listed && machines[listed] ? { machine: machines[listed]!, list: true } : null;
}

export function lifecycleObserved(view: ContractView): Check {
  const machines = readLifecycles(view.contract.doc);
  const replayed = String((view.contract.doc["x-idempotency"] as { replayed_header?: string } | undefined)?.replayed_header ?? "Idempotent-Replayed");
  const last = new Map<string, string>();
  const shapes = new Map<string, Shape>();
  const shapeOf = (e: Exchange): Shape => {
    const key = `${e.operation.operationId} ${e.response.status}`;
    if (!shapes.has(key)) shapes.set(key, answeredShape(view, machines, e.operation, e.response.status));
    return shapes.get(key)!;
  };
  return {
    name: "lifecycle-observed",
    description: "Every change of state seen of one resource with an x-lifecycle is one its transitions allow.",
    check(e) {
      const { status } = e.response;
      if (status < 200 || status >= 300 || e.response.headers.get(replayed) === "true") return null;
      const shape = shapeOf(e);
      if (!shape) return null;
      const body = parseJson(e.response);
      if (!body.ok || !body.value || typeof body.value !== "object") return null;
      const m = shape.machine;
      const items: Json[] = shape.list ? ((body.value as { data?: Json[] }).data ?? []) : [body.value];
      const problems: string[] = [];
      for (const item of Array.isArray(items) ? items : []) {
        const [id, state] = [item?.id, item?.[m.property]];
        if (typeof id !== "string" || typeof state !== "string" || !m.states.includes(state)) continue;
        const key = `${e.facts.credentialId ?? ""}\0${m.schema}\0${id}`;
        const before = last.get(key);
        last.set(key, state);
        if (before !== undefined && before !== state && !reaches(m, before, state)) {
          problems.push(`${m.schema} ${id} read ${before}, then ${state}: no transition of its x-lifecycle leads from ${before} to ${state}`);
        }
      }
      return problems;
    },
    schemaPath: (e) => {
      const m = shapeOf(e)?.machine;
      return m ? pointer("components", "schemas", m.schema, "x-lifecycle", "transitions") : pointer("paths", e.operation.template, e.operation.method);
    },
  };
}
