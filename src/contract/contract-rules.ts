// The vocabularies of this project's rule extensions (spec/README.md): what `x-derived` and `x-completion` may name,
// the keys of the extensions, and the scope grammar. One place, read by lint (policy/contract-rules) and the mock.
export const DERIVED_KEY = "x-derived";
export const COMPLETION_KEY = "x-completion";
export const REFERENCED_BY_KEY = "x-referenced-by";
export const STATUS_KEY = "x-status";
export const SCOPES_KEY = "x-scopes";

/** How `x-derived` computes a value from a request field (src/mock/core/store/derive.ts). */
export const DERIVERS = ["last-path-segment", "file-name", "content-type", "byte-length", "media-kind", "referenced"] as const;

/** What `x-completion` fills on entering a state (src/mock/core/store/completion.ts, analysis.ts). */
export const FILLERS = ["summary", "detected-language", "media-duration", "transcript", "speakers", "signals", "alerts", "run-output", "download-link", "download-expiry"] as const;

/** A scope: `<group>:read` for reads (GET), `<group>:write` for everything else. */
export const SCOPE = /^[a-z][a-z_]*:(read|write)$/;
