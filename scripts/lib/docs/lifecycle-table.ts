// Renders each x-lifecycle as a Markdown state table for its schema's description, so the transitions are written
// once (in the machine) and every reader of the docs (Redoc, Swagger UI, the generated types) sees them. `generate`
// puts the result where a schema's description holds LIFECYCLE_MARKER.
import { LIFECYCLE_MARKER, type Machine, type Transition } from "../../../src/contract/lifecycle.js";

const code = (s: string) => `\`${s}\``;
const or = (xs: string[]) => (xs.length < 2 ? xs.join("") : `${xs.slice(0, -1).join(", ")} or ${xs[xs.length - 1]}`);
const and = (xs: string[]) => (xs.length < 2 ? xs.join("") : `${xs.slice(0, -1).join(", ")} and ${xs[xs.length - 1]}`);

/** `PT72H` → `72 hours`, `P1DT12H` → `1 day 12 hours`: the duration as written, in words. */
function humanDuration(iso: string): string {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?)?$/.exec(iso);
  const names = ["day", "hour", "minute", "second"];
  return (m ?? [])
    .slice(1)
    .map((n, i) => (n === undefined ? "" : `${n} ${names[i]}${Number(n) === 1 ? "" : "s"}`))
    .filter(Boolean)
    .join(" ");
}

/** The "When" cell: what makes the transition happen. */
function when(m: Machine, t: Transition): string {
  switch (t.trigger) {
    case "async":
      return "the service's processing" + (t.scenario ? ` (outcome ${code(t.scenario)})` : "");
    case "operation":
      return code(t.operation!);
    case "update":
      return `${code(t.operation!)} sets ${code(m.property)}`;
    case "timeout":
      return `${humanDuration(t.after!)} pass` + (t.deadline ? ` (at ${code(t.deadline)})` : "");
    case "external":
      return "outside the API (dashboard)";
    case "linked":
      return `the ${t.schema} in ${code(t.link!)} becomes ${or(t.when!.map(code))}`;
  }
}

/** The Markdown that replaces LIFECYCLE_MARKER in the description of `m.schema`. */
export function renderLifecycleTable(m: Machine): string {
  const hooks = (state: string) => (m.emits[state] ?? []).map(code).join(", ");
  const rows = [
    `| — | ${code(m.initial)} | created | ${hooks(m.initial)} |`,
    ...m.transitions.map((t) => {
      const creates = t.creates ? `; creates an ${t.creates.schema} (${code(t.creates.link)})` : "";
      return `| ${t.from.map(code).join(", ")} | ${code(t.to)} | ${when(m, t)}${creates} | ${hooks(t.to)} |`;
    }),
  ];
  const lines = [
    `**Lifecycle of ${code(m.property)}**: starts ${code(m.initial)}; ${and(m.terminal.map(code))} ${m.terminal.length === 1 ? "is" : "are"} final.`,
    "",
    "| From | To | When | Webhooks |",
    "|---|---|---|---|",
    ...rows,
  ];
  const requires = Object.entries(m.requires);
  if (requires.length) {
    lines.push("", ...requires.map(([op, states]) => `- ${code(op)} answers 409 unless ${code(m.property)} is ${or(states.map(code))}.`));
  }
  return lines.join("\n");
}

/** Replaces the marker in every schema description that holds one; a marker without a lifecycle is an error. */
export function renderLifecycles(doc: { components?: { schemas?: Record<string, { description?: string }> } }, machines: Record<string, Machine>): void {
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    if (!schema.description?.includes(LIFECYCLE_MARKER)) continue;
    const m = machines[name];
    if (!m) throw new Error(`the description of ${name} holds ${LIFECYCLE_MARKER} but ${name} has no x-lifecycle`);
    schema.description = schema.description.replace(LIFECYCLE_MARKER, renderLifecycleTable(m));
  }
}
