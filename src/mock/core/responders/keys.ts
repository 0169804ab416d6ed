// Responder `keys`: the workspace's API keys for real (keys.ts). A created key authenticates at once, with its
// `rate_limit_rpm` as its own bucket (decision G6) in the creator's workspace and plan, limited to a scoped
// creator's scopes (x-scope-ceiling, issue 47: a key is never wider than its maker); its secret is shown once
// (decision A5); lists show every key of the workspace, the demo and file keys too; a revoked key answers 401
// `key_revoked` from then on, and revoking again changes nothing. Roles are not modelled: every caller may manage
// its workspace's keys, but a `pk_test_` key cannot create a `live` key (the contract's 403).
import type { components } from "../../../../generated/schema.js";
import { planLimits } from "../../../contract/policy.js";
import type { RequestContext } from "../pipeline/context.js";
import type { Reply } from "../http/reply.js";
import { listPage } from "../store/pages.js";
import type { Services } from "../pipeline/services.js";
import { demoKeys, type StoredKey } from "../access/keys.js";
import { CapReached } from "../access/limits.js";
import { byOperation } from "./by-operation.js";

export const keys = byOperation("keys", {
  listApiKeys: (s, ctx) => listPage(ctx, s.keys.inWorkspace(ctx.principal!.workspaceId), (k) => k.seq, (k) => s.keys.view(k)),
  createApiKey: create,
  getApiKey: (s, ctx) => withKey(s, ctx, (k) => ctx.json(200, s.keys.view(k))),
  updateApiKey: (s, ctx) => withKey(s, ctx, (k) => protectedDemoKey(s, ctx, k) ?? update(s, ctx, k)),
  revokeApiKey: (s, ctx) =>
    withKey(s, ctx, (k) => {
      const refused = protectedDemoKey(s, ctx, k);
      if (refused) return refused;
      s.keys.revoke(k);
      s.revoked(`key:${k.id}`);
      return { status: 204, headers: {}, body: null, rate: ctx.rate };
    }),
});

function create(s: Services, ctx: RequestContext): Reply {
  const p = ctx.principal!;
  const body = ctx.body as components["schemas"]["ApiKeyCreate"];
  const callerKey = p.keyId ? s.keys.find(p.keyId, p.workspaceId) : undefined;
  if (body.environment === "live" && callerKey?.secret.startsWith("pk_test_")) {
    return ctx.json(403, { detail: "A pk_test_ key cannot create a live key: use a live key or a bearer token.", error: "insufficient_permission" });
  }
  const tooHigh = rpmAbovePlan(s, ctx, body.rate_limit_rpm) ?? rpmAboveCaller(s, ctx, body.rate_limit_rpm);
  if (tooHigh) return tooHigh;
  if (s.keys.inWorkspace(p.workspaceId).length >= s.settings.limits.keys) {
    throw new CapReached("limit_reached", `This workspace has ${s.settings.limits.keys} API keys, the most the mock keeps (--max-keys; revoked keys count): none is deleted to make room.`);
  }
  if (body.expires_at !== undefined && Date.parse(body.expires_at) <= s.clock.now()) {
    return ctx.json(400, { detail: "expires_at must be in the future." });
  }
  // `x-scope-ceiling: caller` (the contract's createApiKey): a scoped caller's key holds the caller's scopes, no more.
  const ceiling = ctx.route.op["x-scope-ceiling"] === "caller" ? (p.scopes ?? null) : null;
  const { key, secret } = s.keys.create(p.workspaceId, p.plan, body, ceiling);
  return ctx.json(201, { ...s.keys.view(key), secret });
}

function update(s: Services, ctx: RequestContext, k: StoredKey): Reply {
  if (k.revoked_at) return ctx.json(409, { detail: "This API key is revoked: a revoked key cannot be changed." });
  const body = ctx.body as components["schemas"]["ApiKeyUpdate"];
  const tooHigh = rpmAbovePlan(s, ctx, body.rate_limit_rpm) ?? (body.rate_limit_rpm !== undefined ? rpmAboveCaller(s, ctx, body.rate_limit_rpm) : undefined);
  if (tooHigh) return tooHigh;
  s.keys.update(k, body);
  return ctx.json(200, s.keys.view(k));
}

/** A `rate_limit_rpm` above the plan's per-minute limit answers 400 (decision E2). */
function rpmAbovePlan(s: Services, ctx: RequestContext, rpm: number | null | undefined): Reply | undefined {
  const plan = ctx.principal!.plan;
  const max = planLimits(s.policy, plan).requests_per_minute;
  if (rpm == null || rpm <= max) return undefined;
  return ctx.json(400, { detail: `rate_limit_rpm must be at most ${max}, the per-minute limit of the ${plan} plan.` });
}

/**
 * A caller authenticated by a key capped at `rate_limit_rpm` r can set a key's limit only to r or lower, never
 * lift it (null) nor leave it out of a new key: otherwise a capped key could PATCH its own cap away or mint an
 * uncapped sibling (issue 22, decision SH9). 403 `insufficient_permission`.
 */
function rpmAboveCaller(s: Services, ctx: RequestContext, rpm: number | null | undefined): Reply | undefined {
  const p = ctx.principal!;
  const caller = p.keyId ? s.keys.find(p.keyId, p.workspaceId) : undefined;
  const cap = caller?.rate_limit_rpm;
  if (cap == null || (rpm != null && rpm <= cap)) return undefined;
  return ctx.json(403, {
    detail: `This request is made with a key capped at rate_limit_rpm ${cap}: it may set a key's rate_limit_rpm only to ${cap} or lower (give one), never lift it. Use an uncapped key or a bearer token.`,
    error: "insufficient_permission",
  });
}

/**
 * The demo keys are shared by everyone using this mock (the banner prints them): no key may revoke or change them
 * for everyone (issue 22, decision SH10). 403 `insufficient_permission`; a key of one's own can be created instead.
 */
function protectedDemoKey(s: Services, ctx: RequestContext, k: StoredKey): Reply | undefined {
  if (!k.seeded || !demoKeys(s.policy).some((d) => d.key === k.secret)) return undefined;
  return ctx.json(403, { detail: "Demo keys are shared by everyone using this mock: they cannot be revoked or changed. Create a key of your own (POST /v1/keys) to try this.", error: "insufficient_permission" });
}

/** Runs `then` on the key the path names, or answers 404 when the workspace has no such key. */
function withKey(s: Services, ctx: RequestContext, then: (k: StoredKey) => Reply): Reply {
  const id = ctx.params.key_id ?? "";
  const k = s.keys.find(id, ctx.principal!.workspaceId);
  return k ? then(k) : ctx.json(404, { detail: `API key ${id} not found.` });
}
