// The sh blocks of docs/frontend.md (the guide for frontend teams: "A full flow", the clock, the fault rules), each
// run as written against a mock on a free port. `curl` and `jq` are not on every
// machine (a fresh Debian has neither), so the block's commands are read here with shell-quote and each `curl` is
// made with fetch: the URLs, methods, headers and bodies are the README's own, so the block cannot drift from
// what works. Only the options the block uses are understood; any other fails the test, as does any step that
// does not answer what the README says.
import fs from "node:fs";
import path from "node:path";
import { parse, type ParseEntry } from "shell-quote";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/mock/contract.js";
import { DEFAULT_STEP_MS } from "../../src/mock/services.js";
import { getJson, readSse, schemaErrors, startGateway, type TestGateway } from "./helpers.js";

const GUIDE = "docs/frontend.md";

/** The fenced `sh` block after the marker `<!-- The block below (name) is run by test/mock/readme-flow.test.ts` in the guide. */
function flowBlock(name: string): string[] {
  const guide = fs.readFileSync(path.join(REPO_ROOT, GUIDE), "utf8");
  const at = guide.indexOf(`<!-- The block below (${name}) is run by test/mock/readme-flow.test.ts`);
  expect(at, `${GUIDE} has the marker of the ${name} block`).toBeGreaterThan(0);
  const m = /```sh\n([\s\S]*?)\n```/.exec(guide.slice(at));
  return m![1]!.split("\n");
}

interface Step {
  method: string;
  url: string;
  status: number;
  body: any;
  events?: Array<{ event: string; id: string; data: any }>;
}

/** One `curl …` as the README writes it (after variables are substituted), made with fetch. */
async function curl(args: string[]): Promise<Step> {
  let method = "GET";
  let url = "";
  let data: string | undefined;
  const headers: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "-s" || a === "-N" || a === "-sN") continue;
    else if (a === "-X") method = args[++i]!;
    else if (a === "-H") {
      const [name, ...value] = args[++i]!.split(":");
      headers[name!.trim()] = value.join(":").trim();
    } else if (a === "-d") data = args[++i]!;
    else if (a === "-o" || a === "-w") i++; // output shaping only
    else if (!a.startsWith("-") && !url) url = a;
    else throw new Error(`the flow test does not know curl's ${a}: teach it, or keep the README to -s -N -X -H -d -o -w`);
  }
  if (data !== undefined && method === "GET") method = "POST";
  const res = await fetch(url, { method, headers, body: data });
  if (res.status === 204) return { method, url, status: res.status, body: null };
  if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    const events = (await readSse(res).catch(() => [])).map((e) => ({ event: e.event!, id: e.id!, data: JSON.parse(e.data) }));
    return { method, url, status: res.status, body: null, events };
  }
  const text = await res.text();
  return { method, url, status: res.status, body: text ? JSON.parse(text) : null };
}

/** Runs the block: `NAME=value`, `NAME=$(curl … | jq -r .field)` and `curl … [| jq …]` lines. */
async function runFlow(lines: string[], base: string): Promise<Step[]> {
  const env: Record<string, string> = {};
  const steps: Step[] = [];
  const run = async (command: string): Promise<Step> => {
    const tokens: ParseEntry[] = parse(command, env);
    const pipe = tokens.findIndex((t) => typeof t === "object" && "op" in t && t.op === "|");
    const words = (pipe < 0 ? tokens : tokens.slice(0, pipe)).map(String);
    expect(words[0], command).toBe("curl");
    const step = await curl(words.slice(1));
    steps.push(step);
    return step;
  };
  for (const raw of lines) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const sub = /^(\w+)=\$\((.*)\)$/.exec(line);
    const assign = /^(\w+)=(.*)$/.exec(line);
    if (sub) {
      const field = /\|\s*jq -r \.(\w+)\s*$/.exec(sub[2]!);
      expect(field, `${line}: a command substitution reads one field with jq -r`).not.toBeNull();
      env[sub[1]!] = String((await run(sub[2]!)).body[field![1]!]);
    } else if (assign) {
      env[assign[1]!] = String(parse(assign[2]!, env)[0]);
      if (assign[1] === "BASE") env.BASE = base; // the mock of this test, not 127.0.0.1:4010
    } else {
      await run(line);
    }
  }
  return steps;
}

let g: TestGateway;
beforeAll(async () => {
  // Real timers, a fast pace: the stream of step 2 ends on its own, as it does with `npm start`.
  g = await startGateway({ stepMs: 60 });
});
afterAll(() => g.close());

/** `METHOD /path status` of each step, ids generalised. */
const shape = (steps: Step[]) => steps.map((s) => `${s.method} ${new URL(s.url).pathname.replace(/anl_\w+/, "{id}")} ${s.status}`);

describe("docs/frontend.md: a full flow", () => {
  it("works as written: create, watch the stream to completed, read transcript and signals, rename, delete, 404", async () => {
    const steps = await runFlow(flowBlock("full flow"), g.url);
    expect(shape(steps)).toEqual([
      "POST /v1/analyses 202",
      "GET /v1/analysis/{id}/stream 200",
      "GET /v1/analyses/{id}/transcript 200",
      "GET /v1/analyses/{id}/signals 200",
      "PATCH /v1/analyses/{id} 200",
      "DELETE /v1/analyses/{id} 204",
      "GET /v1/analyses/{id} 404",
    ]);
    const [created, stream, transcript, signals, renamed, , gone] = steps as [Step, Step, Step, Step, Step, Step, Step];
    expect(created.body.status).toBe("queued");
    const events = stream.events!;
    expect(events[0]!.data.status).toBe("queued");
    expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(["transcript.segment", "signal", "alert"]));
    expect(events.at(-1)).toMatchObject({ event: "completed", data: { id: created.body.id, status: "completed" } });
    expect(transcript.body.segments.map((s: { text: string }) => s.text)).toEqual(events.filter((e) => e.event === "transcript.segment").map((e) => e.data.text));
    expect(signals.body.data.length).toBeGreaterThan(0);
    expect(signals.body.data.every((s: { score: number }) => s.score >= 0.5)).toBe(true);
    expect(renamed.body).toMatchObject({ id: created.body.id, title: "Q4 review (final)", status: "completed" });
    expect(schemaErrors("Error", gone.body)).toEqual([]);
  });
});

describe("docs/frontend.md: the controls' examples", () => {
  // The default pace of npm start (MOCK_STEP_MS 2000), on real timers beneath the simulated clock.
  let c: TestGateway;
  beforeAll(async () => {
    c = await startGateway({ stepMs: DEFAULT_STEP_MS });
  });
  afterAll(() => c.close());

  it("the clock: paused, an analysis stays queued; stepped 3 s, it is half way through processing and stays there", async () => {
    const steps = await runFlow(flowBlock("clock"), c.url);
    expect(shape(steps)).toEqual(["POST /__mock/clock 200", "POST /v1/analyses 202", "POST /__mock/clock 200", "GET /v1/analyses/{id} 200", "GET /v1/analyses/{id} 200", "POST /__mock/clock 200"]);
    const [paused, created, stepped, first, second, resumed] = steps as [Step, Step, Step, Step, Step, Step];
    expect(paused.body.paused).toBe(true);
    expect(created.body.status).toBe("queued");
    expect(Date.parse(stepped.body.now) - Date.parse(paused.body.now)).toBe(3000);
    expect(first.body.status).toBe("processing");
    expect(first.body.progress).toBeGreaterThan(0);
    expect(first.body.progress).toBeLessThan(100);
    expect(second.body).toEqual(first.body);
    expect(resumed.body.paused).toBe(false);
    await fetch(`${c.url}/__mock/reset`, { method: "POST" });
  });

  it("the faults: two 503s then a create, the analysis fails, the stream breaks after 2 events then replays", async () => {
    const steps = await runFlow(flowBlock("faults"), c.url);
    expect(shape(steps)).toEqual([
      "POST /__mock/faults 201",
      "POST /v1/analyses 503",
      "POST /v1/analyses 503",
      "POST /v1/analyses 202",
      "POST /__mock/clock 200",
      "POST /__mock/faults 201",
      "POST /__mock/clock 200",
      "GET /v1/analyses/{id} 200",
      "POST /__mock/faults 201",
      "GET /v1/analysis/{id}/stream 200",
      "GET /v1/analysis/{id}/stream 200",
      "GET /__mock/faults 200",
      "DELETE /__mock/faults 204",
    ]);
    const failed = steps[7]!;
    expect(failed.body).toMatchObject({ status: "failed", error: { code: expect.any(String) } });
    const [broken, whole] = [steps[9]!.events!, steps[10]!.events!];
    expect(broken.map((e) => e.id)).toEqual(whole.slice(0, 2).map((e) => e.id));
    expect(whole.at(-1)!.event).toBe("error");
    expect(steps[11]!.body.rules).toMatchObject([{ resource: failed.body.id, scenario: "fail", used: 1 }]);
    expect((await getJson(`${c.url}/__mock/faults`)).body.rules).toEqual([]);
    await fetch(`${c.url}/__mock/reset`, { method: "POST" });
  });
});
