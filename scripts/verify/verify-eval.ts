// `npm run verify:eval`: verify on planted defects it was not built against (issue 46's "Done when": every defect of
// a set not seen while building is found, with no false alarm on the clean backend). The set lives here only: no
// test names these defects or what should find them, so nothing in verify was tuned to them one by one. Each is
// planted alone in the test backend (test/verify/fixtures/defective-server.ts, a proxy in front of the mock, with
// its `plant` hook), and verify makes one standard run over the same operations for every defect
// (`--allow-writes --stateful`, EVAL_OPERATIONS): a defect is found when that run reports any violation or calls an
// operation not implemented, since the same run on the clean backend (run first) reports none. Drawn from what
// Schemathesis' checks and oasdiff-style contract drift would plant: wrong content type, a required field missing,
// an undeclared status, a header of the wrong type, inconsistent pagination, an ignored filter, a nested enum
// broken, null where not nullable, a 500 at a boundary or on unicode, updates and deletes without effect, auth not
// enforced, a missing `X-Request-Id`, an idempotent replay unmarked, an unknown field taken, an error without
// `detail`. Prints a table and `found N of M, false alarms K`; `--json` prints the figures as JSON (the last line).
import path from "node:path";
import { pathToFileURL } from "node:url";
import { verify, type Report } from "../../src/verify/index.js";
import { contract, ManualClock, startGateway } from "../../test/helpers/mock.js";
import { startDefectiveServer, type Ctx } from "../../test/verify/fixtures/defective-server.js";
import { BUSINESS_KEY } from "../../test/verify/fixtures/keys.js";

/** The one run every defect meets: two resources' whole CRUD, speakers' filter, analyses read. */
export const EVAL_OPERATIONS = "createWebhook,getWebhook,listWebhooks,updateWebhook,deleteWebhook,createSpeaker,getSpeaker,listSpeakers,updateSpeaker,deleteSpeaker,getAnalysis,listAnalyses";

const DAY = 86_400_000;
const read = (c: Ctx): Record<string, unknown> | null => {
  try {
    return JSON.parse(c.res.body.toString("utf8"));
  } catch {
    return null;
  }
};
const sent = (c: Ctx): Record<string, unknown> | null => {
  try {
    return JSON.parse(c.req.body.toString("utf8"));
  } catch {
    return null;
  }
};
const write = (c: Ctx, v: unknown) => void (c.res.body = Buffer.from(JSON.stringify(v)));
const ok = (c: Ctx, op: string) => c.op === op && c.res.status >= 200 && c.res.status < 300;
const fail500 = (c: Ctx) => {
  c.res = { status: 500, headers: { ...c.res.headers, "content-type": "application/json" }, body: Buffer.from(JSON.stringify({ detail: "Internal Server Error" })) };
};
const maxLimit: number = contract.deref(contract.deref(contract.doc.components.parameters?.Limit ?? {})?.schema ?? {}).maximum ?? 100;

type Plant = (c: Ctx, key: string) => Promise<void> | void;

/** A held-out defect: `plant`, or `make` for one that keeps state over a run (a fresh plant each run). */
type HeldOut = { name: string; what: string } & ({ plant: Plant } | { make: () => Plant });

/** The held-out defects: each breaks one promise of the contract, on one of EVAL_OPERATIONS. */
export const HELD_OUT: HeldOut[] = [
  { name: "webhook-list-as-html", what: "listWebhooks' 200 labelled text/html", plant: (c) => void (ok(c, "listWebhooks") && (c.res.headers["content-type"] = "text/html; charset=utf-8")) },
  {
    name: "webhook-without-url",
    what: "getWebhook's 200 without its required `url`",
    plant: (c) => {
      const b = read(c);
      if (ok(c, "getWebhook") && b) write(c, { ...b, url: undefined });
    },
  },
  { name: "webhook-create-202", what: "createWebhook answers 202 (only 201 declared)", plant: (c) => void (ok(c, "createWebhook") && (c.res.status = 202)) },
  { name: "remaining-not-integer", what: "listSpeakers' X-RateLimit-Remaining is `many`", plant: (c) => void (c.op === "listSpeakers" && (c.res.headers["x-ratelimit-remaining"] = "many")) },
  {
    name: "last-page-with-cursor",
    what: "listWebhooks' last page (`has_more: false`) still gives a `next_cursor`",
    plant: (c) => {
      const b = read(c);
      if (ok(c, "listWebhooks") && b && b.has_more === false) write(c, { ...b, next_cursor: "bm90LWEtcmVhbC1jdXJzb3I" });
    },
  },
  {
    name: "speaker-name-filter-ignored",
    what: "listSpeakers ignores its `name` prefix filter",
    plant: async (c) => {
      if (c.op !== "listSpeakers" || !c.req.url.searchParams.has("name")) return;
      const url = new URL(c.req.url);
      url.searchParams.delete("name");
      c.res = await c.forward({ ...c.req, url });
    },
  },
  {
    name: "analysis-source-type-off-enum",
    what: "getAnalysis' nested `source.type` outside its enum",
    plant: (c) => {
      const b = read(c);
      if (ok(c, "getAnalysis") && b?.source && typeof b.source === "object") write(c, { ...b, source: { ...(b.source as object), type: "carrier_pigeon" } });
    },
  },
  {
    name: "speaker-name-null",
    what: "getSpeaker's `name` null (not nullable)",
    plant: (c) => {
      const b = read(c);
      if (ok(c, "getSpeaker") && b) write(c, { ...b, name: null });
    },
  },
  {
    name: "speaker-list-created-at-number",
    what: "listSpeakers' items carry `created_at` as a number",
    plant: (c) => {
      const b = read(c) as { data?: Array<Record<string, unknown>> } | null;
      if (ok(c, "listSpeakers") && b?.data?.length) write(c, { ...b, data: b.data.map((s) => ({ ...s, created_at: 1764300000 })) });
    },
  },
  {
    name: "speaker-update-ignored",
    what: "updateSpeaker answers 200 with the speaker as it was, and undoes the change",
    make: () => {
      const kept = new Map<string, Buffer>();
      return async (c) => {
        const at = c.req.url.pathname;
        if (ok(c, "getSpeaker")) kept.set(at, c.res.body);
        if (!ok(c, "updateSpeaker") || !kept.has(at)) return;
        const old = JSON.parse(kept.get(at)!.toString("utf8")) as Record<string, unknown>;
        const headers = Object.fromEntries(Object.entries(c.req.headers).filter(([h]) => h !== "idempotency-key"));
        await c.forward({ ...c.req, headers, body: Buffer.from(JSON.stringify({ name: old.name, external_id: old.external_id, metadata: old.metadata })) });
        c.res = { ...c.res, body: kept.get(at)! };
      };
    },
  },
  {
    name: "webhook-delete-without-effect",
    what: "deleteWebhook answers 204, and the webhook still reads 200",
    make: () => {
      const kept = new Map<string, Buffer>();
      const deleted = new Set<string>();
      return (c) => {
        const at = c.req.url.pathname;
        if (ok(c, "getWebhook")) kept.set(at, c.res.body);
        if (ok(c, "deleteWebhook")) deleted.add(at);
        if (c.op === "getWebhook" && c.res.status === 404 && deleted.has(at) && kept.has(at)) c.res = { status: 200, headers: { ...c.res.headers, "content-type": "application/json" }, body: kept.get(at)! };
      };
    },
  },
  {
    name: "webhook-bad-url-accepted",
    what: "createWebhook takes a `url` its pattern refuses",
    plant: async (c) => {
      const b = sent(c);
      if (c.op !== "createWebhook" || c.res.status !== 422 || !b || typeof b.url !== "string" || /^https:\/\//.test(b.url)) return;
      c.res = await c.forward({ ...c.req, body: Buffer.from(JSON.stringify({ ...b, url: "https://hooks.verify.invalid/in" })) });
    },
  },
  { name: "speakers-500-at-max-limit", what: "listSpeakers answers 500 to `limit` at its maximum", plant: (c) => void (c.op === "listSpeakers" && c.req.url.searchParams.get("limit") === String(maxLimit) && fail500(c)) },
  {
    name: "webhook-500-on-empty-description",
    what: "createWebhook answers 500 to an empty `description`",
    plant: (c) => void (c.op === "createWebhook" && sent(c)?.description === "" && fail500(c)),
  },
  { name: "no-request-id-on-404", what: "404 answers without `X-Request-Id`", plant: (c) => void (c.res.status === 404 && delete c.res.headers["x-request-id"]) },
  {
    name: "webhook-read-without-credentials",
    what: "getWebhook answers a request without credentials",
    plant: async (c, key) => {
      if (c.op !== "getWebhook" || c.req.headers["x-api-key"] || c.res.status !== 401) return;
      c.res = await c.forward({ ...c.req, headers: { ...c.req.headers, "x-api-key": key } });
    },
  },
  {
    name: "replay-unmarked",
    what: "createSpeaker's idempotent replay without `Idempotent-Replayed: true`",
    plant: (c) => void (c.op === "createSpeaker" && delete c.res.headers["idempotent-replayed"]),
  },
  {
    name: "speaker-unknown-field-taken",
    what: "createSpeaker takes a property its schema closes out",
    plant: async (c) => {
      const b = sent(c);
      const known = Object.keys(contract.deref(contract.doc.components.schemas.SpeakerCreate).properties);
      if (c.op !== "createSpeaker" || c.res.status !== 422 || !b || Object.keys(b).every((k) => known.includes(k))) return;
      c.res = await c.forward({ ...c.req, body: Buffer.from(JSON.stringify(Object.fromEntries(Object.entries(b).filter(([k]) => known.includes(k))))) });
    },
  },
  {
    name: "speaker-404-without-detail",
    what: "getSpeaker's 404 body `{\"error\": \"not found\"}`",
    plant: (c) => void (c.op === "getSpeaker" && c.res.status === 404 && write(c, { error: "not found" })),
  },
  {
    name: "speaker-delete-200",
    what: "deleteSpeaker answers 200 `{}` (only 204 declared)",
    plant: (c) => {
      if (c.op !== "deleteSpeaker" || c.res.status !== 204) return;
      c.res = { ...c.res, status: 200, headers: { ...c.res.headers, "content-type": "application/json" }, body: Buffer.from("{}") };
    },
  },
];

/** One standard run against the test backend with `plant` (none: the clean backend). */
async function runOnce(plant: Plant | null): Promise<{ report: Report; ms: number }> {
  const clock = new ManualClock();
  const g = await startGateway({ clock, webhookDelayMs: 1_000_000_000 });
  await g.gateway.ready;
  const proxy = await startDefectiveServer({ upstream: g.url, defect: null, key: BUSINESS_KEY, ...(plant ? { plant } : {}) });
  try {
    clock.set(Math.floor(clock.now() / DAY) * DAY + DAY + 12 * 3_600_000 + 30_000);
    const t0 = performance.now();
    const report = await verify({
      target: proxy.url,
      apiKey: BUSINESS_KEY,
      contract,
      operations: EVAL_OPERATIONS,
      allowWrites: true,
      stateful: true,
      rps: null,
      maxWaitSeconds: 3600,
      clock: { now: () => clock.now(), sleep: async (ms) => clock.advance(ms) },
    });
    return { report, ms: performance.now() - t0 };
  } finally {
    await proxy.close();
    await g.close();
  }
}

const findings = (r: Report) => [...new Set([...r.violations.map((v) => v.rule), ...r.coverage.filter((c) => c.category === "not-implemented").map((c) => `not-implemented ${c.operationId}`)])].sort();

export interface EvalResult {
  defects: number;
  found: number;
  missed: string[];
  falseAlarms: string[];
}

/** The evaluation: the clean run, then each defect alone (`only`: the first N of them, for a quick look). */
export async function evaluate(say: (line: string) => void = () => {}, only = HELD_OUT.length): Promise<EvalResult> {
  const clean = await runOnce(null);
  const falseAlarms = clean.report.violations.map((v) => `${v.operationId} [${v.rule}] ${v.status}: ${v.message}`);
  say(`clean backend: ${falseAlarms.length ? falseAlarms.join("; ") : "no violation"} (${clean.report.requests} requests, ${(clean.ms / 1000).toFixed(1)} s)`);
  say("| held-out defect | what it breaks | found by | requests | time |");
  say("|---|---|---|---:|---:|");
  const missed: string[] = [];
  const set = HELD_OUT.slice(0, only);
  for (const d of set) {
    const { report, ms } = await runOnce("make" in d ? d.make() : d.plant);
    const by = findings(report);
    if (!by.length) missed.push(d.name);
    say(`| \`${d.name}\` | ${d.what} | ${by.length ? by.map((x) => `\`${x}\``).join(", ") : "**missed**"} | ${report.requests} | ${(ms / 1000).toFixed(1)} s |`);
  }
  return { defects: set.length, found: set.length - missed.length, missed, falseAlarms };
}

if (import.meta.url === pathToFileURL(path.resolve(process.argv[1] ?? "")).href) {
  evaluate((l) => process.stdout.write(l + "\n")).then(
    (r) => {
      process.stdout.write(`\nverify on held-out defects: found ${r.found} of ${r.defects}${r.missed.length ? ` (missed: ${r.missed.join(", ")})` : ""}; false alarms on the clean backend: ${r.falseAlarms.length}\n`);
      if (process.argv.includes("--json")) process.stdout.write(JSON.stringify(r) + "\n");
      process.exit(r.missed.length || r.falseAlarms.length ? 1 : 0);
    },
    (e: Error) => {
      process.stderr.write(`verify-eval: ${e.stack ?? e.message}\n`);
      process.exit(2);
    },
  );
}
