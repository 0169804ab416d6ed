// `npm run mock:token`: mints a bearer JWT the mock gateway accepts (HS256 with MOCK_JWT_SECRET or the dev
// default), with the `iss` and `aud` the gateway requires and a lifetime of at most 24 hours (see auth.ts).
// Prints only the token on stdout, so `TOKEN=$(npm run -s mock:token -- --plan free)` works.
import path from "node:path";
import { parseArgs } from "node:util";
import { JWT_AUDIENCE, JWT_ISSUER, JWT_MAX_LIFETIME_SECONDS } from "../../src/mock/core/access/auth.js";
import { demoKeys, jwtSecretFromEnv, loadContract, mintToken } from "../../src/mock/index.js";
import { GENERATED, ROOT } from "../lib/paths.js";

/** How the command is run: from the repository, or from the installed package (`npx avt-mock token`). */
export const TOKEN_COMMAND = "npm run -s mock:token --";

const HELP = `<command> [options]   Mint a bearer JWT for the mock gateway.

  -w, --workspace <ws_id>   Workspace the token acts in (default: the demo workspace of --plan)
  -p, --plan <plan>         Plan of that workspace: ${"<plans>"} (default pro)
  -e, --expires-in <span>   Validity: 90s, 15m, 2h, 1d or seconds, at most 24h (default 1h)
      --expired             Mint a token that expired a minute ago (to see the 401)
      --frozen              The workspace is frozen (every request answers 403)
      --sub <usr_id>        Subject, the signed-in user (default usr_01MockUser000000000000000)
  -h, --help                This help

The token carries iss "<iss>" and aud "<aud>", which the mock requires.

Use it as:  curl -H "Authorization: Bearer $(<bare>)" http://127.0.0.1:4010/v1/analyses`;

/** `90s`, `15m`, `2h`, `7d` or a plain number of seconds. */
export function parseSpan(text: string): number {
  const m = /^(\d+)\s*(s|m|h|d)?$/.exec(text.trim());
  if (!m) throw new Error(`--expires-in must look like 90s, 15m, 2h, 7d or a number of seconds, not "${text}"`);
  return Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[(m[2] ?? "s") as "s" | "m" | "h" | "d"];
}

/** Where `mockToken` writes, as the command does: its stdout, its stderr, and whether that stderr is a terminal. */
export interface TokenOutput {
  out(text: string): void;
  err(text: string): void;
  errIsTTY: boolean;
}

/** The process's own stdout and stderr. */
export function processOutput(): TokenOutput {
  return { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t), errIsTTY: Boolean(process.stderr.isTTY) };
}

/**
 * The command without its process: reads `args` (what follows `npm run -s mock:token --`, or `npx avt-mock token`:
 * `command`, which its help names), writes what the command writes and returns its exit code (0, or 2 for a bad
 * option), so a test can call it in-process.
 */
export async function mockToken(args: string[], output: TokenOutput, command = TOKEN_COMMAND): Promise<number> {
  const policy = loadContract(GENERATED).policy;
  const plans = Object.keys(policy.plans);
  const help = HELP.replace("<command>", command).replace("<bare>", command.replace(/ --$/, "")).replace("<plans>", plans.join(", ")).replace("<iss>", JWT_ISSUER).replace("<aud>", JWT_AUDIENCE);
  let values;
  try {
    values = parseArgs({
      args,
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
    output.err(`${(e as Error).message}\n\n${help}\n`);
    return 2;
  }
  if (values.help) {
    output.out(`${help}\n`);
    return 0;
  }
  const plan = values.plan ?? "pro";
  if (!plans.includes(plan)) {
    output.err(`--plan must be one of ${plans.join(", ")}, not "${plan}".\n`);
    return 2;
  }
  const workspaceId = values.workspace ?? demoKeys(policy).find((k) => k.plan === plan && !k.frozen && !k.rate_limit_rpm)!.workspace_id;
  if (!/^ws_[0-9A-Za-z]{8,40}$/.test(workspaceId)) {
    output.err(`--workspace must look like ws_ followed by 8 to 40 letters or digits, not "${workspaceId}".\n`);
    return 2;
  }
  let seconds: number;
  try {
    seconds = values.expired ? -60 : parseSpan(values["expires-in"] ?? "1h");
    if (seconds > JWT_MAX_LIFETIME_SECONDS) throw new Error(`--expires-in may be at most 24h (${JWT_MAX_LIFETIME_SECONDS} seconds): the mock refuses longer-lived tokens.`);
    if (seconds === 0) throw new Error("--expires-in must be at least 1 second (use --expired for an expired token).");
  } catch (e) {
    output.err(`${(e as Error).message}\n`);
    return 2;
  }
  if (values.sub !== undefined && !/^usr_[0-9A-Za-z]{8,40}$/.test(values.sub)) {
    output.err(`--sub must look like usr_ followed by 8 to 40 letters or digits.\n`);
    return 2;
  }
  const token = await mintToken({ secret: jwtSecretFromEnv(), workspaceId, plan, sub: values.sub, frozen: values.frozen, expiresInSeconds: seconds });
  output.out(token + "\n");
  if (output.errIsTTY) {
    const until = new Date(Date.now() + seconds * 1000).toISOString();
    output.err(`(workspace ${workspaceId}, plan ${plan}${values.frozen ? ", frozen" : ""}, ${seconds < 0 ? "expired" : "valid until"} ${until})\n`);
  }
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(ROOT, "scripts/mock/mock-token.ts")) {
  void mockToken(process.argv.slice(2), processOutput()).then((code) => {
    if (code !== 0) process.exit(code);
  });
}
