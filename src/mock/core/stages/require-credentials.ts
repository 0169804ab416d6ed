// Stage `requireCredentials`: a request whose credentials are missing, unknown or expired answers 401, with the
// message `authenticate` found (never the credential itself) and the headers of the bucket it was counted in.
import type { StageFactory } from "../pipeline/stage.js";

export const requireCredentials: StageFactory = () =>
  function requireCredentials(ctx) {
    const auth = ctx.auth!;
    return auth.ok ? undefined : ctx.json(401, { detail: auth.detail, error: auth.error }, { "WWW-Authenticate": auth.challenge });
  };
