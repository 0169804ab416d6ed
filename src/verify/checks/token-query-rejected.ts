// token-query-rejected: the `token` query parameter is a credential only on WebSocket and SSE operations (spec §5);
// on any other operation a request whose only credential is `?token=` answers 401, as one without credentials.
import type { Check } from "../types.js";

export function tokenQueryRejected(): Check {
  return {
    name: "token-query-rejected",
    description: "A token query parameter is refused (401) on REST operations.",
    check({ operation, response, facts }) {
      if (operation.public || operation.tokenQuery || facts.credentials !== "token-query" || response.status === 429) return null;
      return response.status === 401 ? [] : [`accepted a token query parameter on a REST operation (answered ${response.status}); expected 401`];
    },
  };
}
