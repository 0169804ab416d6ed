// Stage `matchRoute`: looks the method and path up in the contract's route table, answering nothing yet. The
// match decides which credentials count (the `token` query parameter only where the operation lists it) and which
// rate-limit bucket is drawn from; whether there is an operation at all is answered later, by `route`, after
// credentials and limits (decision M3).
import type { StageFactory } from "../pipeline/stage.js";

export const matchRoute: StageFactory = (s) => {
  const router = s.contract.router;
  return function matchRoute(ctx) {
    ctx.match = router.match(ctx.method, ctx.pathname);
    return undefined;
  };
};
