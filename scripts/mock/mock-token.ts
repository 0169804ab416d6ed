// `npm run mock:token`: mints a bearer JWT the mock gateway accepts (HS256 with MOCK_JWT_SECRET or the dev
// default), with the `iss` and `aud` the gateway requires and a lifetime of at most 24 hours (see auth.ts).
// Prints only the token on stdout, so `TOKEN=$(npm run -s mock:token -- --plan free)` works.
import path from "node:path";
import { parseArgs } from "node:util";
import { JWT_AUDIENCE, JWT_ISSUER, JWT_MAX_LIFETIME_SECONDS } from "../../src/mock/core/access/auth.js";
import { demoKeys, jwtSecretFromEnv, loadContract, mintToken } from "../../src/mock/index.js";
import { GENERATED, ROOT } from "../lib/paths.js";

const HELP = `npm run -s mock:token -- [options]   Mint a bearer JWT for the mock gateway.

  -w, --workspace <ws_id>   Workspace the token acts in (default: the demo workspace of --plan)
  -p, --plan <plan>         Plan of that workspace: ${"<plans>"} (default pro)
  -e, --expires-in <span>   Validity: 90s, 15m, 2h, 1d or seconds, at most 24h (default 1h)
      --expired             Mint a token that expired a minute ago (to see the 401)
      --frozen              The workspace is frozen (every request answers 403)
      --sub <usr_id>        Subject, the signed-in user (default usr_01MockUser000000000000000)
  -h, --help                This help

The token carries iss "<iss>" and aud "<aud>", which the mock requires.

Use it as:  curl -H "Authorization: Bearer $(npm run -s mock:token)" http://127.0.0.1:4010/v1/analyses`;

/** `90s`, `15m`, `2h`, `7d` or a plain number of seconds. */
export function parseSpan(text: string): number {
  const m = /^(\d+)\s*(s|m|h|d)?$/.exec(text.trim());
  if (!m) throw new Error(`--expires-in must look like 90s, 15m, 2h, 7d or a number of seconds, not "${text}"`);
  return Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[(m[2] ?? "s") as "s" | "m" | "h" | "d"];
}

async function main(): Promise<void> {
  const policy = loadContract(GENERATED).policy;
  const plans = Object.keys(policy.plans);
  const help = HELP.replace("<plans>", plans.join(", ")).replace("<iss>", JWT_ISSUER).replace("<aud>", JWT_AUDIENCE);
  let values;
  try {
    values = parseArgs({
      options: {
        workspace: { type: "string", short: "w" },
        plan: { type: "string", short: "p" },
        "expires-in": { type: "string", short: "e" },
        expired: { type: "boolean" },
        frozen: { type: "boolean" },
        sub: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (e) {
    console.error(`${(e as Error).message}\n\n${help}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(help);
    return;
  }
  const plan = values.plan ?? "pro";
  if (!plans.includes(plan)) {
    console.error(`--plan must be one of ${plans.join(", ")}, not "${plan}".`);
    process.exit(2);
  }
  const workspaceId = values.workspace ?? demoKeys(policy).find((k) => k.plan === plan && !k.frozen && !k.rate_limit_rpm)!.workspace_id;
  if (!/^ws_[0-9A-Za-z]{8,40}$/.test(workspaceId)) {
    console.error(`--workspace must look like ws_ followed by 8 to 40 letters or digits, not "${workspaceId}".`);
    process.exit(2);
  }
  let seconds: number;
  try {
    seconds = values.expired ? -60 : parseSpan(values["expires-in"] ?? "1h");
    if (seconds > JWT_MAX_LIFETIME_SECONDS) throw new Error(`--expires-in may be at most 24h (${JWT_MAX_LIFETIME_SECONDS} seconds): the mock refuses longer-lived tokens.`);
    if (seconds === 0) throw new Error("--expires-in must be at least 1 second (use --expired for an expired token).");
  } catch (e) {
    console.error((e as Error).message);
    process.exit(2);
  }
  if (values.sub !== undefined && !/^usr_[0-9A-Za-z]{8,40}$/.test(values.sub)) {
    console.error(`--sub must look like usr_ followed by 8 to 40 letters or digits.`);
    process.exit(2);
  }
  const token = await mintToken({ secret: jwtSecretFromEnv(), workspaceId, plan, sub: values.sub, frozen: values.frozen, expiresInSeconds: seconds });
  process.stdout.write(token + "\n");
  if (process.stderr.isTTY) {
    const until = new Date(Date.now() + seconds * 1000).toISOString();
    process.stderr.write(`(workspace ${workspaceId}, plan ${plan}${values.frozen ? ", frozen" : ""}, ${seconds < 0 ? "expired" : "valid until"} ${until})\n`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(ROOT, "scripts/mock/mock-token.ts")) {
  void main();
}
