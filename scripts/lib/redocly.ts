// Runs the pinned Redocly CLI (the same one `npm run lint` uses), with telemetry off, and reports
// its problems as `file:line:col severity rule message` lines.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import path from "node:path";
import { ROOT } from "./paths.js";

const run = promisify(execFile);
const BIN = path.join(ROOT, "node_modules/.bin/redocly");

export interface CliResult {
  ok: boolean;
  /** stdout and stderr together, without the Node-version banner. */
  output: string;
  /** stdout alone (machine-readable output such as `--format json`). */
  stdout: string;
}

export async function redocly(args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(BIN, args, {
      cwd: ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", NO_COLOR: "1", FORCE_COLOR: "0" },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { ok: true, output: stripBanner(stdout + stderr), stdout };
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: stripBanner((err.stdout ?? "") + (err.stderr ?? "")) || err.message, stdout: err.stdout ?? "" };
  }
}

/** Drops the Node-version banner Redocly prints on Node 20 and blank lines. */
function stripBanner(text: string): string {
  return text
    .split("\n")
    .filter((l) => !/[║╔╚]/.test(l))
    .join("\n")
    .trim();
}

/** Converts Redocly's `stylish` output (file header, then `line:col severity rule message`) to one line per problem. */
export function problemLines(stylish: string): string[] {
  const out: string[] = [];
  let file = "";
  for (const line of stylish.split("\n")) {
    const header = /^(\S.*\.(ya?ml|json)):$/.exec(line);
    if (header) {
      file = header[1]!;
      continue;
    }
    const m = /^\s+(\d+):(\d+)\s+(error|warning)\s+(\S+)\s+(.*)$/.exec(line);
    if (m) out.push(`${file}:${m[1]}:${m[2]} ${m[3]} ${m[5]} (${m[4]})`);
    // Parse failures (invalid YAML) come as prose with `file (line:col)`: keep them whole.
    else if (/\(\d+:\d+\)/.test(line) || /Failed to parse|Can't resolve|not found/i.test(line)) out.push(line.trim());
  }
  return out;
}

/** Lints a root; resolves with the problem lines (empty when clean, counting warnings as problems). */
export async function lintRoot(root: string): Promise<string[]> {
  const res = await redocly(["lint", root, "--format=stylish", "--max-problems=1000"]);
  const lines = problemLines(res.output);
  if (!res.ok && lines.length === 0) return [res.output];
  return lines;
}

/** Bundles a root to JSON text with the CLI (components named after their files). */
export async function bundleRoot(root: string, outFile: string, dereferenced = false): Promise<void> {
  const args = ["bundle", root, "--ext", "json", "-o", outFile];
  if (dereferenced) args.push("--dereferenced");
  const res = await redocly(args);
  if (!res.ok) throw new Error(`redocly bundle failed:\n${res.output}`);
}
