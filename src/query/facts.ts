// The shape of the generated invalidation table (invalidation.generated.ts).

/** A request body property naming another resource by id: where it is (`*` for each item of an array), and that resource's item GET. */
export interface ReferenceFact {
  at: string[];
  get: string;
}

/** What a write's success makes stale: GET path templates (their path parameters are the write's, by name), and the referenced resources. */
export interface WriteFacts {
  stale: string[];
  references?: ReferenceFact[];
}
