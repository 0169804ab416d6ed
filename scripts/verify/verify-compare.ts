// `npx tsx scripts/verify/verify-compare.ts [--write]`: the comparison table of bench/verify-compare.md, measured afresh.
// Every planted defect of test/verify/fixtures (a tampering proxy in front of the mock, one defect at a time) is
// met by the run test/verify/defects.test.ts makes for it; the table says which rules the run reported (found:
// the expected ones; false alarms: any other), its requests and its time. Then the same proxy without a defect,
// over every operation, read-only and with --allow-writes: what it reports there is a false alarm. The clock is
// the mock's simulated one, paused and moved by the run's sleeps, so waiting out a rate limit costs no real time. `--write` puts the table into
// bench/verify-compare.md between its markers; without it the table is printed.
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../../src/mock/homes/node/contract-files.js";
import { verify, type Report, type VerifyOptions } from "../../src/verify/index.js";
import { systemClock } from "../../src/mock/core/clock/clock.js";
import { SimulatedClock } from "../../src/mock/core/clock/simulated.js";
import { contract, startGateway, T0 } from "../../test/helpers/mock.js";
import { CASES, DEFECT_CLASS } from "../../test/verify/fixtures/defect-cases.js";
import { startDefectiveServer, type Defect } from "../../test/verify/fixtures/defective-server.js";
import { BUSINESS_KEY, OTHER_WORKSPACE_KEY } from "../../test/verify/fixtures/keys.js";

const FILE = path.join(REPO_ROOT, "bench/verify-compare.md");
const BEGIN = "<!-- verify-compare:table -->";
const END = "<!-- /verify-compare:table -->";
const DAY = 86_400_000;

interface Row {
  label: string;
  expected: string[];
  reported: string[];
  /** Causes reported (report.groups): one per bug is the aim. */
  groups: number;
  /** Operations the coverage table calls not implemented. */
  notImplemented: string[];
  /** Expected not implemented (a defect found by the coverage table, not by a rule). */
  expectedMissing: string[];
  requests: number;
  ms: number;
}

async function measure(defect: Defect | null, options: Partial<VerifyOptions>, expected: string[], expectedMissing: string[] = []): Promise<Row> {
  // Paused, and moved by the run's sleeps, as test/verify/helpers.ts does: the mock's lifecycle steps run as it moves.
  const clock = new SimulatedClock(systemClock, { frozenAt: T0 });
  const g = await startGateway({ clock, webhookDelayMs: 1_000_000_000 });
  await g.gateway.ready;
  const proxy = await startDefectiveServer({ upstream: g.url, defect, key: BUSINESS_KEY });
  try {
    clock.set(Math.floor(clock.now() / DAY) * DAY + DAY + 12 * 3_600_000 + 30_000);
    const started = performance.now();
    const report: Report = await verify({
      target: proxy.url,
      apiKey: BUSINESS_KEY,
      contract,
      rps: null,
      maxWaitSeconds: 3600,
      clock: { now: () => clock.now(), sleep: async (ms) => clock.advance(ms) },
      ...options,
    });
    const ms = performance.now() - started;
    // A false alarm is shown, not only counted: what to look at.
    if (defect === null) for (const v of report.violations) process.stderr.write(`false alarm: ${v.operationId} [${v.rule}] ${v.status}: ${v.message} (${v.request})\n`);
    const notImplemented = report.coverage.filter((c) => c.category === "not-implemented").map((c) => c.operationId);
    return { label: defect ?? "", expected, reported: [...new Set(report.violations.map((v) => v.rule))].sort(), groups: report.groups.length, notImplemented, expectedMissing, requests: report.requests, ms };
  } finally {
    await proxy.close();
    await g.close();
  }
}

/** A row's defect was found: its rules reported, or its operation called not implemented. */
const hit = (r: Row) => r.expected.every((x) => r.reported.includes(x)) && r.expectedMissing.every((x) => r.notImplemented.includes(x));

function table(defects: Row[], clean: Array<Row & { run: string }>): string {
  const found = defects.filter(hit).length;
  const alarms = (r: Row) => r.reported.filter((x) => !r.expected.includes(x));
  const by = (r: Row) => [...r.expected.map((x) => `\`${x}\``), ...r.expectedMissing.map((x) => `coverage: \`${x}\` not implemented`)].join(", ");
  const lines = [
    "| planted defect | class | found by verify (rule) | groups | false alarms | requests | time |",
    "|---|---|---|---:|---|---:|---:|",
    ...defects.map((r) => `| \`${r.label}\` | ${DEFECT_CLASS[r.label as Defect]} | ${hit(r) ? "yes" : "**no**"} (${by(r)}) | ${r.groups} | ${alarms(r).map((x) => `\`${x}\``).join(", ") || "none"} | ${r.requests} | ${(r.ms / 1000).toFixed(1)} s |`),
    "",
    `Found: ${found} of ${defects.length} planted defects.`,
    "",
    "| correct server (the proxy, no defect) | violations reported (false alarms) | not implemented | requests | time |",
    "|---|---|---|---:|---:|",
    ...clean.map((r) => `| ${r.run} | ${r.reported.map((x) => `\`${x}\``).join(", ") || "none"} | ${r.notImplemented.join(", ") || "none"} | ${r.requests} | ${(r.ms / 1000).toFixed(1)} s |`),
  ];
  return lines.join("\n");
}

async function main(): Promise<void> {
  const defects: Row[] = [];
  for (const c of CASES) {
    // As defects.test.ts runs them: without the boundary inputs (their creates would fill the workspace's quotas).
    defects.push(await measure(c.defect, { inputBudget: 0, ...c.options }, c.expected.rules, c.expected.notImplemented ?? []));
    process.stderr.write(`${c.defect}: ${defects.at(-1)!.reported.join(", ") || "nothing"}\n`);
  }
  const clean = [
    { run: "every operation, read-only", ...(await measure(null, {}, [])) },
    { run: "every operation, `--allow-writes`", ...(await measure(null, { allowWrites: true }, [])) },
    { run: "every operation, `--allow-writes --stateful`", ...(await measure(null, { allowWrites: true, stateful: true }, [])) },
    { run: "every operation, `--allow-writes --stateful --api-key-b` (two workspaces)", ...(await measure(null, { allowWrites: true, stateful: true, apiKeyB: OTHER_WORKSPACE_KEY }, [])) },
  ];
  const text = table(defects, clean);
  if (!process.argv.includes("--write")) {
    process.stdout.write(text + "\n");
    return;
  }
  const doc = fs.readFileSync(FILE, "utf8");
  const a = doc.indexOf(BEGIN);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${FILE}: the markers ${BEGIN} … ${END} are missing`);
  fs.writeFileSync(FILE, doc.slice(0, a + BEGIN.length) + "\n" + text + "\n" + doc.slice(b));
  process.stdout.write(`wrote the table into ${path.relative(REPO_ROOT, FILE)}\n`);
}

main().then(
  () => process.exit(0),
  (e: Error) => {
    process.stderr.write(`verify-compare: ${e.stack ?? e.message}\n`);
    process.exit(1);
  },
);
