import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const SPEC_ROOT = path.join(ROOT, "spec/openapi.yaml");
export const GENERATED = path.join(ROOT, "generated");
/** The Python client's package, where `npm run generate` writes its generated modules. */
export const PYTHON_PACKAGE = path.join(ROOT, "python/src/analysis_api");
/** The TypeScript client's module of facts read from the contract at generation (`contract.generated.ts`). */
export const CLIENT_GENERATED = path.join(ROOT, "src/client");
/** The TanStack Query bindings' generated invalidation table (`invalidation.generated.ts`). */
export const QUERY_GENERATED = path.join(ROOT, "src/query");
/** The zod subpath's generated schemas and response table (`schemas.generated.ts`, `responses.generated.ts`). */
export const ZOD_GENERATED = path.join(ROOT, "src/zod");
