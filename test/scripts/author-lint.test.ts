// `npm run lint` is the author's fast gate: each rule spec/README.md lists ("Rules every operation follows", each
// bullet naming its lint rules) is planted as a mistake in a copy of spec/, every mistake in a file of its own, and
// one run of `npm run lint` (scripts/contract/lint.mjs) on the copy must fail naming that file, the rule, and what to add.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isMap, isScalar, LineCounter, parse, parseDocument, stringify } from "yaml";
import { ROOT, SPEC_ROOT } from "../../scripts/lib/paths.js";
import { problemLines } from "../../scripts/lib/redocly.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const run = promisify(execFile);
const SPEC = path.dirname(SPEC_ROOT);

/** A mistake: the rule that must catch it, the file (under spec/) it is planted in and lint must name, what to do. */
interface Plant {
  rule: string;
  file: string;
  mutate: (doc: Json) => void;
  message: RegExp;
  /** The YAML path of the node the author wrote: lint's line must be that node's (checked for the rules of issue 32). */
  at?: (string | number)[];
}
const hdr = (doc: Json, method: string, code: string) => doc[method].responses[code].headers;

const PLANTS: Plant[] = [
  { rule: "rule/operation-id-camel-case", file: "paths/v1_boards.yaml", mutate: (d) => (d.get.operationId = "ListBoards"), message: /camelCase/ },
  { rule: "operation-singular-tag", file: "paths/v1_skills_{skill_id}.yaml", mutate: (d) => d.get.tags.push("Boards"), message: /one tag/i },
  { rule: "operation-tag-defined", file: "paths/v1_use-cases.yaml", mutate: (d) => (d.get.tags = ["Tagz"]), message: /root `tags:` list in spec\/openapi\.yaml/ },
  { rule: "policy/summary-sentence-case", file: "paths/v1_skills.yaml", mutate: (d) => (d.get.summary = "List Skills"), message: /write "skills", not "Skills"/ },
  { rule: "policy/rate-limit-category", file: "paths/v1_reports.yaml", mutate: (d) => (d.get["x-rate-limit-category"] = "general"), message: /must be `query`, the category x-rate-limit-policy gives the path \/v1\/reports/ },
  { rule: "policy/security", file: "paths/v1_keys.yaml", mutate: (d) => (d.get.security = []), message: /requires credentials/ },
  { rule: "policy/rate-limit-headers", file: "paths/v1_webhooks.yaml", mutate: (d) => delete hdr(d, "get", "200")["X-RateLimit-Limit"], message: /must carry the X-RateLimit-Limit header/ },
  { rule: "policy/cors-header", file: "paths/v1_boards_{board_id}.yaml", mutate: (d) => delete hdr(d, "get", "200")["Access-Control-Allow-Origin"], message: /add `Access-Control-Allow-Origin: \{\$ref/ },
  { rule: "policy/request-id-header", file: "paths/v1_speakers.yaml", mutate: (d) => delete hdr(d, "get", "200")["X-Request-Id"], message: /add `X-Request-Id: \{\$ref/ },
  { rule: "policy/error-responses", file: "paths/v1_speakers_{speaker_id}.yaml", mutate: (d) => delete d.get.responses["404"], message: /getSpeaker must document a 404 response \(it has a path id\): add `'404': \{\$ref: \.\.\/components\/responses\/NotFound\.yaml\}`/ },
  { rule: "policy/error-responses", file: "paths/v1_webhooks_{webhook_id}.yaml", mutate: (d) => delete d.get.responses["422"], message: /getWebhook must document a 422 response \(it has a path id\)/ },
  { rule: "policy/shared-errors", file: "paths/v1_agents.yaml", mutate: (d) => (d.get.responses["400"] = { description: "Bad request." }), message: /Response 400 is written inline: replace it with `\$ref: \.\.\/components\/responses\/BadRequest\.yaml`/ },
  { rule: "policy/lifecycle", file: "components/schemas/Approval.yaml", mutate: (d) => (d["x-lifecycle"].initial = "nowhere"), message: /initial "nowhere" is not a state/ },
  { rule: "policy/list-shape", file: "paths/v1_workspaces.yaml", mutate: (d) => d.get.parameters.shift(), message: /listWorkspaces is a list: add `- \$ref: \.\.\/components\/parameters\/Cursor\.yaml`/ },
  { rule: "policy/filters", file: "paths/v1_runs.yaml", mutate: (d) => (d.get.parameters.find((p: Json) => p.name === "status")["x-filter"].property = "state"), message: /x-filter property "state" is not a property of the listed item/ },
  { rule: "policy/bounded-values", file: "components/schemas/BoardCreate.yaml", mutate: (d) => delete d.properties.name.maxLength, message: /This string has no bound: add `maxLength`/ },
  { rule: "policy/snake-case", file: "components/schemas/SkillCreate.yaml", mutate: (d) => (d.properties.displayName = { type: "string", maxLength: 10 }), message: /"displayName" must be snake_case: rename it to display_name/ },
  { rule: "policy/timestamps", file: "components/schemas/Webhook.yaml", mutate: (d) => (d.properties.checked_at = { type: "integer", minimum: 0, maximum: 9 }), message: /"checked_at" is named like a timestamp: make it `type: string, format: date-time`/ },
  { rule: "policy/closed-status", file: "components/schemas/UseCase.yaml", mutate: (d) => (d.properties.status = { type: "string", maxLength: 20 }), message: /"status" is open: list its states in an `enum`/ },
  { rule: "policy/polymorphism", file: "components/schemas/Workspace.yaml", mutate: (d) => (d.allOf = [{ type: "object" }]), message: /allOf is not used in this contract/ },
  { rule: "policy/media-examples", file: "paths/v1_billing_invoices.yaml", mutate: (d) => delete d.get.responses["200"].content["application/json"].examples, message: /needs a named example/ },
  { rule: "no-invalid-media-type-examples", file: "components/examples/Speaker.yaml", mutate: (d) => (d.value.sample_count = "three"), message: /sample_count|type/ },
  { rule: "policy/unreferenced-files", file: "components/schemas/Tag.yaml", mutate: () => undefined, message: /spec\/components\/schemas\/Tag\.yaml is referenced by nothing/ },
  { rule: "policy/file-names", file: "openapi.yaml", mutate: (d) => (d.paths["/v1/tos"].$ref = "paths/tos.yaml"), message: /Path \/v1\/tos lives in tos\.yaml: name the file paths\/v1_tos\.yaml/ },
 // Issue 32: what a client sends, and where a mistake is written.
  { rule: "policy/closed-requests", file: "components/schemas/SpeakerUpdate.yaml", mutate: (d) => delete d.additionalProperties, message: /is part of a request body and is open: add `additionalProperties: false`/, at: [] },
  { rule: "policy/closed-requests", file: "components/schemas/AgentCreate.yaml", mutate: (d) => (d.additionalProperties = true), message: /or `x-open: <why it takes any field>`/, at: ["additionalProperties"] },
  { rule: "policy/readonly-in-request", file: "components/schemas/UseCaseCreate.yaml", mutate: (d) => ((d.properties.created_at = { type: "string", format: "date-time", readOnly: true }), d.required.push("created_at")), message: /"created_at" is readOnly \(the server sets it\) but this request schema requires it/, at: ["required", 2] },
  { rule: "policy/unique-operation-id", file: "paths/v1_agents_{agent_id}.yaml", mutate: (d) => (d.get.operationId = "getSkill"), message: /operationId "getSkill" is also used in v1_skills_\{skill_id\}\.yaml \(GET\)/, at: ["get", "operationId"] },
  { rule: "policy/unique-operation-id", file: "paths/v1_skills_{skill_id}.yaml", mutate: () => undefined, message: /operationId "getSkill" is also used in v1_agents_\{agent_id\}\.yaml \(GET\)/, at: ["get", "operationId"] },
  { rule: "policy/ref-folder", file: "paths/v1_reports_{report_id}.yaml", mutate: (d) => (d.get.responses["200"].content["application/json"].schema.$ref = "../components/examples/Report.yaml"), message: /This \$ref is a Schema but points into components\/examples\/ \(Report\.yaml\): point it at components\/schemas\/<Name>\.yaml/, at: ["get", "responses", "200", "content", "application/json", "schema", "$ref"] },
  { rule: "policy/create-response", file: "paths/v1_speakers.yaml", mutate: (d) => delete d.post.responses["201"].links, message: /createSpeaker creates something: its 201 needs `links`/, at: ["post", "responses", "201"] },
  { rule: "policy/create-response", file: "paths/v1_webhooks.yaml", mutate: (d) => delete hdr(d, "post", "201")["Idempotent-Replayed"], message: /createWebhook takes the Idempotency-Key: its 201 needs the `Idempotent-Replayed` header/, at: ["post", "responses", "201", "headers"] },
  { rule: "policy/contract-rules", file: "paths/v1_oauth_revoke.yaml", mutate: (d) => delete d.post["x-scopes"], message: /revokeOAuthToken needs credentials: declare the scopes it needs in `x-scopes`\./, at: ["post"] },
  { rule: "policy/contract-rules", file: "paths/v1_oauth_token.yaml", mutate: (d) => (d.post["x-scope-ceiling"] = "callers"), message: /`x-scope-ceiling` is `caller`.*not "callers"/, at: ["post", "x-scope-ceiling"] },
  { rule: "policy/contract-rules", file: "paths/v1_use-cases_{use_case_id}.yaml", mutate: (d) => (d.get["x-scope-ceiling"] = "caller"), message: /`x-scope-ceiling` belongs on an operation that issues credentials.*getUseCase issues none/, at: ["get", "x-scope-ceiling"] },
  { rule: "policy/sunset", file: "paths/v1_skills.yaml", mutate: (d) => (d.get["x-sunset"] = "2027-01-01"), message: /`x-sunset` announces a removal: add `deprecated: true` beside it/, at: ["get", "x-sunset"] },
  { rule: "policy/sunset", file: "paths/v1_speakers.yaml", mutate: (d) => Object.assign(d.get.parameters.find((p: Json) => p.name === "name"), { deprecated: true, "x-sunset": "next year" }), message: /`x-sunset` is a date, YYYY-MM-DD .*not "next year"/, at: ["get", "parameters", 2, "x-sunset"] },
  { rule: "policy/id-prefix", file: "components/parameters/BoardId.yaml", mutate: (d) => delete d.schema.pattern, message: /"board_id" is an id: give its schema a `pattern` with the type prefix/ },
];

/** The lint rules spec/README.md's rules section names, from each bullet's "(lint: ...)". */
async function readmeRules(): Promise<{ bullets: string[]; rules: string[] }> {
  const text = await fs.readFile(path.join(SPEC, "README.md"), "utf8");
  const section = text.slice(text.indexOf("## Rules every operation follows"), text.indexOf("## Adding one endpoint"));
  const bullets = section.split("\n- ").slice(1);
  const rules = bullets.flatMap((b) => [...(/\(lint: ([^)]*)\)/.exec(b)?.[1] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
  return { bullets, rules };
}

let dir = "";
/** The line (1-based) of the node at a YAML path of a planted file, as written in the copy (the key's line for a map entry). */
const written = new Map<string, string>();
function lineOf(file: string, at: (string | number)[]): number {
  const text = written.get(file)!;
  const doc = parseDocument(text);
  const counter = new LineCounter();
  parseDocument(text, { lineCounter: counter });
  if (!at.length) return 1;
  const parent = at.length > 1 ? doc.getIn(at.slice(0, -1), true) : doc.contents;
  const pair = isMap(parent) ? parent.items.find((i) => (isScalar(i.key) ? i.key.value : i.key) === at.at(-1)) : undefined;
  const node = pair ? pair.key : doc.getIn(at, true);
  const offset = (node as { range?: number[] } | undefined)?.range?.[0];
  if (offset === undefined) throw new Error(`no node at ${at.join(".")} in ${file}`);
  return counter.linePos(offset).line;
}
let output = "";
let lines: string[] = [];
let exitCode = 0;

beforeAll(async () => {
  dir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "author-lint-")), "spec");
  await fs.cp(SPEC, dir, { recursive: true });
  for (const p of PLANTS) {
    const file = path.join(dir, p.file);
    const exists = await fs.stat(file).then(() => true, () => false);
    const doc = exists ? parse(await fs.readFile(file, "utf8")) : { type: "object", properties: { name: { type: "string", maxLength: 50 } } };
    p.mutate(doc);
    await fs.writeFile(file, stringify(doc, { lineWidth: 0 }));
    written.set(p.file, await fs.readFile(file, "utf8"));
  }
  await fs.rename(path.join(dir, "paths/v1_tos.yaml"), path.join(dir, "paths/tos.yaml"));
  const res = await run(process.execPath, ["scripts/contract/lint.mjs", path.join(dir, "openapi.yaml"), "--max-problems=1000"], { cwd: ROOT }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );
  exitCode = res.code;
  output = res.out;
  lines = problemLines(output);
  if (process.env.SHOW_LINT) console.log(output);
}, 120_000);

afterAll(async () => {
  if (dir) await fs.rm(path.dirname(dir), { recursive: true, force: true });
});

describe("npm run lint catches every rule spec/README.md lists, naming the spec file", () => {
  it("every bullet of the rules section names its lint rules, and each of them has a planted mistake here", async () => {
    const { bullets, rules } = await readmeRules();
    for (const b of bullets) expect(b, "a rule without (lint: ...)").toMatch(/\(lint: `/);
    const planted = new Set(PLANTS.map((p) => p.rule));
    expect(rules.filter((r) => !planted.has(r))).toEqual([]);
  });

  it("fails (exit 1), and says the 0-problems policy instead of suggesting an ignore file", () => {
    expect(exitCode).toBe(1);
    expect(output).not.toMatch(/generate-ignore-file/);
    expect(output).toMatch(/0 errors and 0 warnings, with no ignore file/);
  });

  it("every message of this project's rules points to the README section that states the rule", () => {
    const ours = lines.filter((l) => /\((policy|rule)\/[a-z-]+\)$/.test(l));
    expect(ours.length).toBeGreaterThan(PLANTS.length);
    expect(ours.filter((l) => !/See spec\/README\.md § /.test(l))).toEqual([]);
  });

  for (const p of PLANTS) {
    it(`${p.rule}: names spec/${p.file} and says what to do`, () => {
      const named = lines.filter((l) => l.includes(`spec/${p.file}:`) && l.endsWith(`(${p.rule})`));
      expect(named.length, `no ${p.rule} problem in spec/${p.file}; lint said:\n${lines.join("\n")}`).toBeGreaterThan(0);
      expect(named.some((l) => p.message.test(l)), named.join("\n")).toBe(true);
      expect(named.every((l) => /^\S*spec\/\S+:\d+:\d+ /.test(l)), "with a line and column").toBe(true);
      if (p.at) expect(named.map((l) => Number(/:(\d+):\d+ /.exec(l)![1])), "at the line the author wrote").toContain(lineOf(p.file, p.at));
    });
  }
});
