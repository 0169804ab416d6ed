// Runs a guide's `sh` block as written. `curl` and `jq` are not on every machine (a fresh Debian has neither), so
// the commands are read with shell-quote and each `curl` is made with fetch: the URLs, methods, headers and bodies
// are the guide's own. What a block may hold, and nothing else (anything else fails the test, naming the line):
//   NAME=value                                   a variable
//   NAME=$(curl … | jq -r .field.path[0])        a variable from one field of an answer
//   curl … [| jq …]                              a request; it must answer 2xx, or what `# expect NNN` says
//   npm run SCRIPT [-- args]                     a project command; it must exit 0, or what `# expect exit N` says
// A line ending in `\` continues on the next.
import { spawn } from "node:child_process";
import { parse, type ParseEntry } from "shell-quote";
import { createParser, type EventSourceMessage } from "eventsource-parser";

export interface Step {
  line: string;
  method: string;
  url: string;
  status: number;
  /** The answer's headers, names in lower case. */
  headers: Record<string, string>;
  body: any;
  events?: Array<{ event: string; id: string; data: any }>;
}

async function readSse(res: Response): Promise<EventSourceMessage[]> {
  const out: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => out.push(e) });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
  return out;
}

/** One `curl …` (after variables are substituted), made with fetch. */
async function curl(args: string[], line: string): Promise<Step> {
  let method = "GET";
  let url = "";
  let data: string | undefined;
  const headers: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "-s" || a === "-N" || a === "-sN" || a === "-f" || a === "-sf") continue;
    else if (a === "-X") method = args[++i]!;
    else if (a === "-H") {
      const [name, ...value] = args[++i]!.split(":");
      headers[name!.trim()] = value.join(":").trim();
    } else if (a === "-d" || a === "--data") data = args[++i]!;
    else if (a === "-o" || a === "-w") i++; // output shaping only
    else if (!a.startsWith("-") && !url) url = a;
    else throw new Error(`${line}: the guide runner does not know curl's ${a}: teach test/helpers/doc-shell.ts, or keep to -s -N -X -H -d -o -w`);
  }
  if (data !== undefined && method === "GET") method = "POST";
  const res = await fetch(url, { method, headers, body: data });
  if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    const events = (await readSse(res)).map((e) => ({ event: e.event!, id: e.id!, data: JSON.parse(e.data) }));
    return { line, method, url, status: res.status, headers: Object.fromEntries(res.headers), body: null, events };
  }
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: kept as text */
  }
  return { line, method, url, status: res.status, headers: Object.fromEntries(res.headers), body };
}

/** `npm run …` in the repository, with the block's variables in its environment. */
function npmRun(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", ...args], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

/** `.a.b[0].c` of a value, as `jq -r` reads it. */
function pick(value: any, path: string): unknown {
  for (const part of path.match(/[^.[\]]+/g) ?? []) value = value?.[/^\d+$/.test(part) ? Number(part) : part];
  return value;
}

/** The words of a command as the shell reads them, a trailing `# comment` dropped. */
function shellWords(command: string, env: Record<string, string>): ParseEntry[] {
  return parse(command, env).filter((t) => !(typeof t === "object" && "comment" in t));
}

function splitComment(line: string): { command: string; expect: string | null } {
  const m = /\s#\s*expect\s+(.+)$/.exec(line);
  return m ? { command: line.slice(0, m.index).trim(), expect: m[1]!.trim() } : { command: line, expect: null };
}

/** Joins continued lines; drops blank and comment lines. */
function logicalLines(code: string): string[] {
  const out: string[] = [];
  let acc = "";
  for (const raw of code.split("\n")) {
    const line = raw.trimEnd();
    if (line.endsWith("\\")) {
      acc += line.slice(0, -1) + " ";
      continue;
    }
    const whole = (acc + line).trim();
    acc = "";
    if (whole && !whole.startsWith("#")) out.push(whole);
  }
  return out;
}

/** Runs a block; throws, naming the line, at the first command that does not answer what the guide says. */
export async function runShellBlock(code: string, opts: { cwd: string; env?: Record<string, string> }): Promise<Step[]> {
  const env: Record<string, string> = { ...(opts.env ?? {}) };
  const steps: Step[] = [];
  const request = async (command: string, expect: string | null, line: string): Promise<Step> => {
    const tokens = shellWords(command, env);
    const pipe = tokens.findIndex((t) => typeof t === "object" && "op" in t && t.op === "|");
    const words = (pipe < 0 ? tokens : tokens.slice(0, pipe)).map(String);
    if (words[0] !== "curl") throw new Error(`${line}: a command substitution or request must be curl`);
    const step = await curl(words.slice(1), line);
    const ok = expect ? String(step.status) === expect : step.status >= 200 && step.status < 300;
    if (!ok) throw new Error(`${line}: answered ${step.status}${expect ? `, the guide says ${expect}` : ""}: ${JSON.stringify(step.body)?.slice(0, 400)}`);
    steps.push(step);
    return step;
  };
  for (const line of logicalLines(code)) {
    const { command, expect } = splitComment(line);
    const sub = /^(\w+)=\$\((.*)\)$/.exec(command);
    const assign = /^(\w+)=(.*)$/.exec(command);
    if (sub) {
      const field = /\|\s*jq -r (\.[\w.[\]]+)\s*$/.exec(sub[2]!);
      if (!field) throw new Error(`${line}: a command substitution reads one field with jq -r .field`);
      env[sub[1]!] = String(pick((await request(sub[2]!, expect, line)).body, field[1]!));
    } else if (assign) {
      env[assign[1]!] = String(parse(assign[2]!, env)[0] ?? "");
    } else if (command.startsWith("curl ")) {
      await request(command, expect, line);
    } else if (command.startsWith("npm run ")) {
      const args = shellWords(command.slice("npm run ".length), env).map(String);
      const run = await npmRun(args, opts.cwd, env);
      const want = expect ? Number(/^exit\s+(\d+)$/.exec(expect)?.[1]) : 0;
      if (run.code !== want) throw new Error(`${line}: exited ${run.code}, the guide says ${want}\n${run.output.slice(-2000)}`);
    } else {
      throw new Error(`${line}: the guide runner runs only variables, curl and npm run lines (test/helpers/doc-shell.ts)`);
    }
  }
  return steps;
}
