// Shows each declared list filter in the docs: `generate` appends the sentence describeFilter makes of a query
// parameter's `x-filter` to its description, so Redoc, Swagger UI and the generated types say how it matches.
import { describeFilter, FILTER_KEY, type FilterDecl } from "../../../src/contract/filters.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Appends the filter sentence to every query parameter with `x-filter` in a bundled document (in place). */
export function renderFilters(doc: Json): void {
  const params: Json[] = [...Object.values<Json>(doc.components?.parameters ?? {})];
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    params.push(...(item.parameters ?? []));
    for (const m of METHODS) params.push(...(item[m]?.parameters ?? []));
  }
  for (const p of params) {
    const decl: FilterDecl | undefined = p?.[FILTER_KEY];
    if (!decl) continue;
    const sentence = describeFilter(decl);
    if (!String(p.description ?? "").includes(sentence)) p.description = p.description ? `${p.description} ${sentence}` : sentence;
  }
}
