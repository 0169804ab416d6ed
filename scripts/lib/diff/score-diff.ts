// What a change costs in `redocly score`: the operations whose score fell (or that are new and score below the
// base), each with what Redocly's raw metrics say it lacks and the properties and parameters it added without a
// description, read from the bundles. Redocly's score is 0.9 × the median operation score + 0.1 × discoverability
// (decision B9); per operation it counts described parameters and schema properties, request and response examples,
// constraints, structured errors, schema depth, shared schemas and polymorphism.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export interface OperationMetrics {
  parameterCount: number;
  paramsWithDescription: number;
  totalSchemaProperties: number;
  schemaPropertiesWithDescription: number;
  requestBodyPresent: boolean;
  requestExamplePresent: boolean;
  responseExamplePresent: boolean;
  maxResponseSchemaDepth: number;
}

export interface ScoreReport {
  agentReadiness: number;
  discoverability: number;
  subscores: Record<string, number>;
  operationScores: Record<string, { agentReadiness: number }>;
  rawMetrics?: { operations: Record<string, OperationMetrics> };
}

export interface Hotspot {
  operationId: string;
  /** Score at the base; undefined for a new operation. */
  before?: number;
  after: number;
  /** Points below the base: its old score, or the base's overall score for a new operation. */
  lost: number;
  reasons: string[];
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

/** The operations of a bundle by operationId. */
function operations(doc: Json): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const item of Object.values<Json>(doc?.paths ?? {})) for (const m of METHODS) if (item?.[m]?.operationId) out.set(item[m].operationId, { ...item[m], parameters: [...(item.parameters ?? []), ...(item[m].parameters ?? [])] });
  return out;
}

/** The undescribed parameters and schema properties of an operation, named `Schema.property` or `param name`. */
export function undescribed(doc: Json, op: Json): string[] {
  const deref = (n: Json): Json => (typeof n?.$ref === "string" && n.$ref.startsWith("#/") ? n.$ref.slice(2).split("/").reduce((o: Json, k: string) => o?.[k.replaceAll("~1", "/").replaceAll("~0", "~")], doc) : n);
  const names = new Set<string>();
  const seen = new Set<Json>();
  // `declared`: the properties the enclosing schema names itself; a variant that only constrains them again
  // (`media_url: {}`, `text: false`) adds no field to describe.
  const walk = (raw: Json, owner: string, depth: number, declared: Set<string> = new Set()): void => {
    const schema = deref(raw);
    if (!schema || typeof schema !== "object" || seen.has(schema) || depth > 8) return;
    seen.add(schema);
    const name = typeof raw?.$ref === "string" ? raw.$ref.split("/").pop() : owner;
    for (const [prop, sub] of Object.entries<Json>(schema.properties ?? {})) {
      if (declared.has(prop)) continue;
      const s = deref(sub);
      if (!sub?.description && !s?.description) names.add(`${name}.${prop}`);
      walk(sub, `${name}.${prop}`, depth + 1);
    }
    for (const key of ["items", "additionalProperties"]) if (schema[key] && typeof schema[key] === "object") walk(schema[key], name, depth + 1);
    const own = new Set([...declared, ...Object.keys(schema.properties ?? {})]);
    for (const key of ["oneOf", "anyOf", "allOf"]) for (const s of schema[key] ?? []) walk(s, name, depth + 1, own);
  };
  for (const p of op.parameters ?? []) {
    const param = deref(p);
    if (!param?.description) names.add(`parameter ${param?.name}`);
  }
  for (const media of Object.values<Json>(deref(op.requestBody)?.content ?? {})) walk(media.schema, "request", 0);
  for (const r of Object.values<Json>(op.responses ?? {})) for (const media of Object.values<Json>(deref(r)?.content ?? {})) walk(media.schema, "response", 0);
  return [...names];
}

/** What Redocly's raw metrics say an operation lacks, compared with the base when it had the operation. */
function metricReasons(after: OperationMetrics | undefined, before: OperationMetrics | undefined): string[] {
  if (!after) return [];
  const out: string[] = [];
  const bareProps = after.totalSchemaProperties - after.schemaPropertiesWithDescription;
  const bareParams = after.parameterCount - after.paramsWithDescription;
  const was = (f: (m: OperationMetrics) => number) => (before ? f(before) : 0);
  if (bareProps > was((m) => m.totalSchemaProperties - m.schemaPropertiesWithDescription)) out.push(`${bareProps} of ${after.totalSchemaProperties} schema properties undescribed`);
  if (bareParams > was((m) => m.parameterCount - m.paramsWithDescription)) out.push(`${bareParams} parameters undescribed`);
  if (after.requestBodyPresent && !after.requestExamplePresent) out.push("no request example");
  if (!after.responseExamplePresent) out.push("no response example");
  if (after.maxResponseSchemaDepth > (before?.maxResponseSchemaDepth ?? 4)) out.push(`response schema ${after.maxResponseSchemaDepth} levels deep`);
  return out;
}

/** The operations costing the most points in the change from `base` to `head`, worst first. */
export function changeHotspots(base: ScoreReport, head: ScoreReport, docs: { base: Json; head: Json }, top = 5): Hotspot[] {
  const baseOps = operations(docs.base);
  const headOps = operations(docs.head);
  // What the base already left undescribed, in any operation: a schema the change reuses is not the change's doing.
  const old = new Set([...baseOps.values()].flatMap((op) => undescribed(docs.base, op)));
  const out: Hotspot[] = [];
  for (const [id, s] of Object.entries(head.operationScores)) {
    const before = base.operationScores[id]?.agentReadiness;
    const lost = Math.round(((before ?? base.agentReadiness) - s.agentReadiness) * 10) / 10;
    if (lost <= 0) continue;
    const added = headOps.has(id) ? undescribed(docs.head, headOps.get(id)).filter((n) => !old.has(n)) : [];
    const reasons = metricReasons(head.rawMetrics?.operations[id], base.rawMetrics?.operations[id]);
    if (added.length) reasons.push(`undescribed: ${added.slice(0, 8).join(", ")}${added.length > 8 ? ` and ${added.length - 8} more` : ""}`);
    if (before !== undefined && !reasons.length) continue; // moved by the median or a shared schema, not by its own change
    out.push({ operationId: id, before, after: s.agentReadiness, lost, reasons });
  }
  return out.sort((a, b) => b.lost - a.lost || a.operationId.localeCompare(b.operationId)).slice(0, top);
}

/** One line per hotspot. */
export function formatHotspot(h: Hotspot): string {
  const score = h.before === undefined ? `new, ${h.after} (${h.lost} below the base's score)` : `${h.before} → ${h.after} (−${h.lost})`;
  return `${h.operationId} ${score}: ${h.reasons.join("; ") || "no single cause in the metrics"}`;
}
