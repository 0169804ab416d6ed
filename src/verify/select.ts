// --operations: which operations a run covers. A comma-separated list of globs (`*` any run of characters, `?` one
// character), each matched whole against the operationId (`listAnalyses`), the path template (`/v1/analyses/*`)
// and `METHOD template` (`GET /v1/*`). Globs rather than regular expressions: paths are full of characters a
// regular expression treats specially (`{`, `}`, `.`, `?`). Without --operations, every operation the backend
// answers: the gateway's own (`x-answered-by: gateway`) only when a glob names them.
import { VerifyUsageError } from "./target.js";
import type { Operation } from "./types.js";

export function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}

export function selectOperations(all: Operation[], patterns: string | undefined): Operation[] {
  // The gateway's own operations (x-answered-by: gateway) are no part of a backend: only when a glob names them.
  if (!patterns) return all.filter((op) => !answeredByGateway(op));
  const globs = patterns
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  if (!globs.length) throw new VerifyUsageError("--operations is empty");
  const selected = new Set<Operation>();
  for (const g of globs) {
    const re = globToRegExp(g);
    const hits = all.filter((op) => re.test(op.operationId) || re.test(op.template) || re.test(`${op.method.toUpperCase()} ${op.template}`));
    if (!hits.length) throw new VerifyUsageError(`--operations: ${JSON.stringify(g)} matches no operation (give operationIds such as listAnalyses, or path globs such as "/v1/analyses*")`);
    for (const h of hits) selected.add(h);
  }
  return all.filter((op) => selected.has(op));
}

/** An operation the gateway answers itself (`x-answered-by: gateway`: /health, /openapi.yaml, …), not the backend. */
export function answeredByGateway(op: Operation): boolean {
  return (op.op as Record<string, unknown>)["x-answered-by"] === "gateway";
}
