// How a request travels the mock gateway: the one place that says it. Each stage is one small function in
// stages/ or responders/ (the contract they keep: stage.ts); a request goes down the list until one answers.
//
// Plain HTTP requests:                                        answers
//   edge       requestId           names the request (X-Request-Id, x-request-id)  - (every answer carries it)
//              malformed           no Host, or several         400, closes
//              cors                CORS preflight, any path    204
//              ownPaths            /health, /healthz, /openapi.yaml, /swagger.html, /swagger-ui/*, /
//              mockControls        /__mock/reset, clock, faults  200, 201, 204, 400, 403, 404, 405
//              apiPrefix           outside /v1, /aria, /ws     404
//              latency             MOCK_LATENCY_MS, if set     - (waits)
//   admission  matchRoute          looks the operation up      -
//              syncParts           (--state postgres://: keys, webhooks, OAuth as the database holds them)  503
//              authenticate        checks the credentials      -
//              rateLimit           counts the request          429 (sets the X-RateLimit-* headers)
//              requireCredentials  no valid credentials        401
//              holdWorkspace       (keeps the workspace in memory while the request or its stream lasts, DB12)
//              syncWorkspace       (--state postgres://: the workspace as the database holds it; a write takes
//                                  its lock until committed, SB6-SB7)  503
//              frozen              frozen workspace            403
//              route               no such operation           404, 405
//              scopes              token lacks an `x-scopes`   403
//              validateParams      path, query, headers        422
//   (from here on the operation is known: each runs only the stages whose `appliesTo` admits it, stage.ts `perRoute`)
//   request    prefer              Prefer it cannot honour     400
//              idempotency         Idempotency-Key (x-idempotency): 409 while the key's first request is processed;
//                                  else runs the next stages itself, replays a remembered answer (Idempotent-Replayed)
//                                  or 422 for another body, and remembers the responders' answer
//              readBody            body not taken, or too big  400, closes
//              validateBody        body against its schema     400 (x-status rule), 422
//              faultRules          a rule of POST /__mock/faults  its status (502-504 at once; else as Prefer)
//   responders upgradeRequired     WebSocket op, no upgrade    426
//              sse                 event streams               200 text/event-stream
//              billing             plan and usage, from the rate limiter
//   the state (not with --stateless):
//              keys                API keys: create, list, read, update, revoke
//              oauth               token per grant type, revoke
//              webhooks            create, list, read, update, delete, test
//              store               every other stored resource (store/): created, read, listed, moved
//   (each answers its operations whole: nothing after it sees them, unless Prefer asks)
//              examples            the contract's examples     always answers
//
// The two lists above belong to the core (no node:* module, test/mock/homes/browser/core.test.ts): the in-process simulation, in a
// browser too, runs `httpPipeline`. The lists below need sockets (ws, the upstream's connections), so they are in
// node-pipelines.ts, for the Node server only.
//
// WebSocket upgrades: requestId → malformed (400) → shuttingDown (503) → apiPrefix → latency → the same admission →
// webSocketOnly (400) → webSocket (101, or 400 for a handshake ws refuses).
//
// Proxy mode (--upstream, proxy/): no admission and no responders; the backend answers, and each exchange is judged
// against the contract once it is over (proxy/judge.ts), never changing what crosses.
//   edge       malformed           no Host, or several         400, closes (uncounted: the proxy keeps no limits)
//              ownPaths            the gateway's own paths, as above (they are not forwarded)
//              proxyControls       GET, DELETE /__mock/violations; other /__mock/ paths 404
//              originFormOnly      an absolute-form target             400
//              proxyCapacity       --max-proxy-exchanges crossing      503 capacity_exceeded
//              forward             everything else, CORS preflights included, to the upstream and back
// WebSocket upgrades: malformed (400) → shuttingDown (503) → originFormOnly (400) → proxyCapacity (503) → tunnel
// (the upstream's 101, then the sockets piped together).
import type { Services } from "./services.js";
import { perRoute, type Stage } from "./stage.js";
import { billing } from "../responders/billing.js";
import { examples } from "../responders/examples.js";
import { keys } from "../responders/keys.js";
import { oauth } from "../responders/oauth.js";
import { sse } from "../responders/sse.js";
import { store } from "../responders/store.js";
import { upgradeRequired } from "../responders/upgrade-required.js";
import { webhooks } from "../responders/webhooks.js";
import { apiPrefix } from "../stages/api-prefix.js";
import { authenticate } from "../stages/authenticate.js";
import { cors } from "../stages/cors.js";
import { requestId } from "./request-id.js";
import { faultRules } from "../stages/fault-rules.js";
import { files } from "../stages/files.js";
import { frozen } from "../stages/frozen.js";
import { holdWorkspace } from "../stages/hold-workspace.js";
import { idempotency } from "../stages/idempotency.js";
import { latency } from "../stages/latency.js";
import { malformed, malformedUncounted } from "../stages/malformed.js";
import { matchRoute } from "../stages/match-route.js";
import { mockControls } from "../stages/mock-controls.js";
import { ownPaths } from "../stages/own-paths.js";
import { prefer } from "../stages/prefer.js";
import { rateLimit } from "../stages/rate-limit.js";
import { readBody } from "../stages/read-body.js";
import { requireCredentials } from "../stages/require-credentials.js";
import { route } from "../stages/route.js";
import { scopes } from "../stages/scopes.js";
import { syncParts, syncWorkspace } from "../stages/sync-state.js";
import { validateBody } from "../stages/validate-body.js";
import { validateParams } from "../stages/validate-params.js";

/** Who asks, whether they may, and whether they name an operation correctly (decision M3). */
export function admission(s: Services): Stage[] {
  const shared = s.shared !== null;
  return [
    matchRoute(s),
    ...(shared ? [syncParts(s)] : []),
    authenticate(s),
    rateLimit(s),
    requireCredentials(s),
    ...(s.settings.stateless ? [] : [holdWorkspace(s)]),
    ...(shared ? [syncWorkspace(s)] : []),
    frozen(s),
    route(s),
    scopes(s),
    validateParams(s),
  ];
}

/** The answers to an admitted request: the first responder that answers wins. */
function responders(s: Services): Stage[] {
  return [upgradeRequired(s), sse(s), billing(s), ...state(s), examples(s)];
}

/** The responders that keep what requests create: none with --stateless. */
function state(s: Services): Stage[] {
  return s.settings.stateless ? [] : [keys(s), oauth(s), webhooks(s), store(s)];
}

/** The delay of every API answer, when one is set (MOCK_LATENCY_MS): no stage at all otherwise. */
export function delay(s: Services): Stage[] {
  return s.settings.latency && s.settings.latency[1] > 0 ? [latency(s)] : [];
}

export function httpPipeline(s: Services): Stage[] {
  // Fault rules answer after the body is validated, before the responders (and inside idempotency: a fault's 5xx is never remembered).
  const answers = [faultRules(s), ...responders(s)];
  const body = [readBody(s), validateBody(s)];
  return [
    ...[requestId(s), malformed(s), cors(s), ownPaths(s), ...(s.settings.stateless ? [] : [files(s)]), mockControls(s), apiPrefix(s), ...delay(s)],
    ...admission(s),
    // From here on the operation is known: each runs only the stages that can act on it (stage.ts `appliesTo`).
    perRoute([prefer(s), ...idempotency(s, body, answers), ...body, ...answers]),
  ];
}
