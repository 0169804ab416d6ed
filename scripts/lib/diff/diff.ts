// The versioning gate's engine: compares a released baseline bundle with the current one.
//
// `redocly diff` (config scripts/redocly/diff.yaml: diff-recommended, every built-in rule major) finds the
// changes and rates each major, minor or patch. This contract's own rules (diff-rules.ts) add what redocly
// cannot see or rates too low; where one of them covers a change redocly also reported, redocly's entry is
// dropped so each change is listed once. The result feeds `npm run check:breaking`, `npm run changelog` and
// `npm run release`.
import fs from "node:fs/promises";
import { randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import { cached, packageVersion, sha256 } from "./diff-cache.js";
import { type Locator, yamlLocator } from "./yaml-lines.js";
import type { Json } from "../contract.js";
import { contractRules } from "./diff-rules.js";
import { judge, loadPolicy, unusedEntries } from "./diff-policy.js";
import { clientFeltChanges, feltSupersedes, reachers } from "./diff-extensions.js";
import { reviewedNarrowings } from "./diff-narrowing.js";
import { applySunsets } from "./diff-sunset.js";
import { splitRenamedParameters } from "./diff-parameters.js";
import { describePointer, HTTP_METHODS, resolvePointer, splitPointer } from "./diff-pointer.js";
import type { Bundle, Change, Comparison, Impact, RedoclyChange } from "./diff-types.js";
import { GENERATED, ROOT } from "../paths.js";
import { redocly } from "../redocly.js";

/** The released contract: a committed copy of generated/openapi.yaml, written only by `npm run release`. */
export const RELEASED_DIR = path.join(ROOT, "generated/released");
export const BASELINE = path.join(RELEASED_DIR, "openapi.yaml");
export const CHANGELOG = path.join(RELEASED_DIR, "CHANGELOG.md");
export const HEAD = path.join(GENERATED, "openapi.yaml");
export const DIFF_CONFIG = path.join(ROOT, "scripts/redocly/diff.yaml");

// The shared types live in diff-types.ts (below this file and its rule modules); re-exported for the tests under
// test/breaking/ that take them from here.
export type { Bundle, Change, Comparison, RedoclyChange } from "./diff-types.js";

export const IMPACTS: Impact[] = ["major", "minor", "patch"];

export class DiffError extends Error {}

export const rel = (file: string) => (path.isAbsolute(file) && !path.relative(ROOT, file).startsWith("..") ? path.relative(ROOT, file) : file);

/**
 * Reads a bundle. JSON is parsed with JSON.parse. A YAML bundle is read from its JSON twin when the generation
 * record beside it (inputs.json) lists both files with their current bytes: one generation wrote both from one
 * document (decision VG19); otherwise with `yaml` (~0.5 s for the ~0.6 MB bundle), kept by the file's hash
 * (diff-cache.ts). A node's line is found on demand (yaml-lines.ts), with a full `yaml` parse only when that
 * cannot follow a pointer.
 */
export async function loadBundle(file: string, label: string): Promise<Bundle> {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch {
    throw new DiffError(`${label} not found: ${rel(file)}`);
  }
  const json = /\.json$/i.test(file);
  const text = bytes.toString("utf8");
  const twin = json ? undefined : await jsonTwin(file, bytes);
  const doc = json ? parseJson(text, file, label) : twin !== undefined ? parseJson(twin, file, label) : await cached("bundle", [sha256(bytes), await packageVersion("yaml")], async () => parseYamlDoc(text, file, label));
  let locator: Locator | undefined;
  let full: Record<string, [number, number]> | undefined;
  const lineOf = (pointer: string): [number, number] | undefined => {
    if (json) return undefined;
    locator ??= yamlLocator(text);
    return locator(pointer) ?? (full ??= parseYaml(text, file, label).lines)[pointer];
  };
  const locate: Bundle["locate"] = (pointer) => {
    const pos = lineOf(pointer);
    return { file: rel(file), pointer, ...(pos && { line: pos[0], col: pos[1] }) };
  };
  const version = doc?.info?.version;
  if (!doc || typeof doc.openapi !== "string" || typeof version !== "string") {
    throw new DiffError(`${label} ${rel(file)} is not an OpenAPI bundle with info.version (at #/info/version)`);
  }
  return { file, version, doc, locate };
}

/** The generation record `npm run generate` writes beside its outputs (scripts/contract/inputs-digest.ts). */
const GENERATION_RECORD = "inputs.json";

/**
 * The text of `<name>.json` beside a YAML bundle, when the generation record there lists both files with today's
 * bytes (so one generation wrote both, from one document); else undefined.
 */
async function jsonTwin(file: string, bytes: Buffer): Promise<string | undefined> {
  const dir = path.dirname(file);
  const twinName = path.basename(file).replace(/\.ya?ml$/i, ".json");
  if (twinName === path.basename(file)) return undefined;
  const [record, twin] = await Promise.all([fs.readFile(path.join(dir, GENERATION_RECORD), "utf8").catch(() => undefined), fs.readFile(path.join(dir, twinName)).catch(() => undefined)]);
  if (!record || !twin) return undefined;
  let outputs: Record<string, string> | undefined;
  try {
    outputs = (JSON.parse(record) as { outputs?: Record<string, string> }).outputs;
  } catch {
    return undefined;
  }
  return outputs?.[path.basename(file)] === sha256(bytes) && outputs[twinName] === sha256(twin) ? twin.toString("utf8") : undefined;
}

/**
 * Writes a YAML bundle's JSON twin (`<name>.json`, its document) and the record that vouches for both beside it,
 * for a bundle no generation wrote (the release baseline): `npm run release` calls it after writing the baseline.
 */
export async function writeJsonTwin(file: string): Promise<string> {
  const bytes = await fs.readFile(file);
  const twin = `${JSON.stringify(parseYamlDoc(bytes.toString("utf8"), file, "bundle"))}\n`;
  const twinFile = file.replace(/\.ya?ml$/i, ".json");
  const record = {
    note: "Written by `npm run release`: the hashes of the released bundle and of its JSON twin (one document); read by check:breaking to skip parsing the YAML.",
    outputs: { [path.basename(file)]: sha256(bytes), [path.basename(twinFile)]: sha256(twin) },
  };
  await fs.writeFile(twinFile, twin);
  await fs.writeFile(path.join(path.dirname(file), GENERATION_RECORD), `${JSON.stringify(record, null, 2)}\n`);
  return twinFile;
}

function parseYamlDoc(text: string, file: string, label: string): Json {
  const parsed = parseDocument(text, { uniqueKeys: false });
  if (parsed.errors.length) throw new DiffError(`${label} ${rel(file)} is not valid YAML: ${parsed.errors[0]!.message}`);
  return parsed.toJS({ maxAliasCount: -1 });
}

function parseJson(text: string, file: string, label: string): Json {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new DiffError(`${label} ${rel(file)} is not valid JSON: ${(e as Error).message}`);
  }
}

/** A YAML bundle's document, and the line and column where each node's value starts, by JSON pointer. */
function parseYaml(text: string, file: string, label: string): { doc: Json; lines: Record<string, [number, number]> } {
  const lineCounter = new LineCounter();
  const parsed = parseDocument(text, { lineCounter, uniqueKeys: false });
  if (parsed.errors.length) throw new DiffError(`${label} ${rel(file)} is not valid YAML: ${parsed.errors[0]!.message}`);
  const lines: Record<string, [number, number]> = {};
  const walk = (node: unknown, pointer: string): void => {
    const range = (node as { range?: [number, number, number] } | null)?.range;
    if (range) {
      const pos = lineCounter.linePos(range[0]);
      lines[pointer] = [pos.line, pos.col];
    }
    if (isMap(node)) for (const pair of node.items) walk(pair.value, `${pointer}/${String(isScalar(pair.key) ? pair.key.value : pair.key).replaceAll("~", "~0").replaceAll("/", "~1")}`);
    else if (isSeq(node)) node.items.forEach((item, i) => walk(item, `${pointer}/${i}`));
  };
  walk(parsed.contents, "#");
  return { doc: parsed.toJS({ maxAliasCount: -1 }), lines };
}

/**
 * `redocly diff`'s report on two bundles, kept by the hash of both files' bytes, its config and the CLI's version
 * (diff-cache.ts). The files' names in it are kept as `$base`/`$head`, so the same bytes elsewhere (a copy) hit too.
 */
async function redoclyDiff(baseFile: string, headFile: string): Promise<RedoclyChange[]> {
  const [baseBytes, headBytes, config] = await Promise.all([fs.readFile(baseFile), fs.readFile(headFile), fs.readFile(DIFF_CONFIG)]);
  const key = [sha256(baseBytes), sha256(headBytes), sha256(config), await packageVersion("@redocly/cli")];
  const kept = await cached("redocly-diff", key, async () => (await runRedoclyDiff(baseFile, headFile)).map(renameFiles({ [path.resolve(baseFile)]: "$base", [path.resolve(headFile)]: "$head" })));
  return kept.map(renameFiles({ $base: rel(baseFile), $head: rel(headFile) }));
}

/** A change with its sides' `file` renamed (redocly writes them relative to the working directory, ROOT). */
function renameFiles(names: Record<string, string>): (c: RedoclyChange) => RedoclyChange {
  const name = (f: string) => names[f] ?? names[path.resolve(ROOT, f)] ?? f;
  return (c) => ({
    ...c,
    ...(c.base && { base: { ...c.base, file: name(c.base.file) } }),
    ...(c.revision && { revision: { ...c.revision, file: name(c.revision.file) } }),
    verdicts: c.verdicts.map((v) => {
      const loc = (v as { location?: { file: string } }).location;
      return loc ? { ...v, location: { ...loc, file: name(loc.file) } } : v;
    }),
  });
}

async function runRedoclyDiff(baseFile: string, headFile: string): Promise<RedoclyChange[]> {
  const out = path.join(os.tmpdir(), `redocly-diff-${randomUUID()}.json`);
  try {
    // --fail-on=none: the verdict is ours (after our own rules); the exit code then only means "could not diff".
    const res = await redocly(["diff", baseFile, headFile, "--config", DIFF_CONFIG, "--format=json", "-o", out, "--fail-on=none"]);
    if (!res.ok) throw new DiffError(`redocly diff ${rel(baseFile)} ${rel(headFile)} failed:\n${res.output}`);
    const report = JSON.parse(await fs.readFile(out, "utf8"));
    if (report.reportVersion !== "1") throw new DiffError(`unknown redocly diff report version ${report.reportVersion}`);
    return report.changes as RedoclyChange[];
  } finally {
    await fs.rm(out, { force: true });
  }
}

const short = (v: unknown) => {
  const s = JSON.stringify(v);
  return s !== undefined && s.length <= 60 ? `\`${s}\`` : undefined;
};

const NODE_WORDS: Record<string, string> = {
  PathItem: "path",
  Operation: "operation",
  Schema: "field",
  Parameter: "parameter",
  Response: "response",
  Header: "header",
  MediaType: "media type",
  SecurityScheme: "security scheme",
  Server: "server",
  Tag: "tag",
};

/** "New operation `mergeSpeaker`", "New path: POST `mergeSpeaker`", "New field". */
function addedOrRemoved(c: RedoclyChange, doc: Json): string {
  const what = NODE_WORDS[c.typeName] ?? (c.typeName ? c.typeName.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase() : "node");
  const node = resolvePointer(doc, c.path);
  const ops =
    c.typeName === "PathItem"
      ? HTTP_METHODS.filter((m) => node?.[m]).map((m) => `${m.toUpperCase()}${node[m].operationId ? ` \`${node[m].operationId}\`` : ""}`)
      : c.typeName === "Operation" && node?.operationId
        ? [`\`${node.operationId}\``]
        : [];
  const word = c.kind === "added" ? "New" : "Removed";
  const variant = /\/(oneOf|anyOf|allOf)\/\d+$/.exec(c.path)?.[1];
  if (variant) {
    const raw = resolvePointer(doc, c.path.replace(/\/\d+$/, ""))?.[Number(c.path.split("/").pop())]; // the `$ref`, not what it points at
    return `${word} \`${variant}\` variant${nodeName(c.path, raw ?? node)}.`;
  }
  const component = /^#\/components\/schemas\/([^/]+)$/.exec(c.path)?.[1];
  if (c.typeName === "Schema" && component) return `${word} schema \`${component.replaceAll("~1", "/").replaceAll("~0", "~")}\`.`;
  if (c.typeName === "Tag" && typeof node?.name === "string") return `${word} tag \`${node.name}\` in the root \`tags:\` list.`;
  const named = ops.length ? "" : nodeName(c.path, node);
  return `${word} ${what}${named}${ops.length ? (c.typeName === "PathItem" ? `: ${ops.join(", ")}` : ` ${ops[0]}`) : ""}.`;
}

/**
 * What an added or removed node is called, with a leading space ("" when it has no name of its own): a field's or
 * header's key, a parameter's name and place, a variant's schema, or every name of a removed map of components.
 */
function nodeName(pointer: string, node: Json): string {
  const segs = pointer.replace(/^#\//, "").split("/").map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
  const [last, parent] = [segs.at(-1) ?? "", segs.at(-2)];
  if (typeof node?.name === "string" && typeof node?.in === "string") return ` \`${node.name}\` (${node.in})`;
  if (parent && /^(oneOf|anyOf|allOf)$/.test(parent)) {
    const ref = typeof node?.$ref === "string" ? node.$ref.split("/").pop() : undefined;
    return ref ? ` \`${ref}\`` : ` ${Number(last) + 1}`;
  }
  if (segs[0] === "components" && segs.length === 2 && node && typeof node === "object") return ` ${Object.keys(node).map((k) => `\`${k}\``).join(", ")}`;
  if (/^\d+$/.test(last) || ["schema", "items", "content", "requestBody", "responses", "parameters"].includes(last) || segs.length < 2) return "";
  return ` \`${last}\``;
}

/** redocly's message when a rule fired; otherwise a short one of our own (redocly leaves minor/patch changes bare). */
function messageOf(c: RedoclyChange, head: Json, base: Json): string {
  const verdict = c.verdicts.map((v) => v.message).join(" ");
  if (verdict) return verdict;
  if (c.kind !== "modified") return addedOrRemoved(c, c.kind === "added" ? head : base);
  const [bv, hv] = [c.base?.value, c.revision?.value];
  if (Array.isArray(bv) && Array.isArray(hv)) {
    const list = (xs: unknown[]) => xs.map((x) => `\`${typeof x === "string" ? x : JSON.stringify(x)}\``).join(", ");
    const [gained, lost] = [hv.filter((x) => !bv.includes(x)), bv.filter((x) => !hv.includes(x))];
    const parts = [gained.length && `gained ${list(gained)}`, lost.length && `lost ${list(lost)}`].filter(Boolean);
    if (parts.length) return `\`${c.property}\` ${parts.join(" and ")}.`;
  }
  const [from, to] = [short(bv), short(hv)];
  return from && to ? `\`${c.property}\` changed from ${from} to ${to}.` : `\`${c.property}\` changed.`;
}

/** The names a new path, operation, component schema or root tag brings, for the release notes. */
function addedNames(c: RedoclyChange, head: Json): Change["added"] {
  if (c.kind !== "added") return undefined;
  const node = resolvePointer(head, c.path);
  const segs = c.path.replace(/^#\//, "").split("/").map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
  if (c.typeName === "PathItem" && segs[0] === "paths") {
    const names = HTTP_METHODS.filter((m) => node?.[m]?.operationId).map((m) => `\`${node[m].operationId}\` (${m.toUpperCase()} ${segs[1]})`);
    return names.length ? { what: "operations", names } : undefined;
  }
  if (c.typeName === "Operation" && node?.operationId && segs[0] === "paths") return { what: "operations", names: [`\`${node.operationId}\` (${segs[2]!.toUpperCase()} ${segs[1]})`] };
  if (c.typeName === "Schema" && segs[0] === "components" && segs[1] === "schemas" && segs.length === 3) return { what: "schemas", names: [`\`${segs[2]}\``] };
  if (c.typeName === "Tag" && typeof node?.name === "string") return { what: "tags", names: [`\`${node.name}\``] };
  return undefined;
}

function fromRedocly(c: RedoclyChange, head: Json, base: Json): Change {
  const at = c.revision ?? c.base;
  const added = addedNames(c, head);
  return {
    ...(added && { added }),
    impact: c.impact,
    rule: c.verdicts.map((v) => v.ruleId).join(", "),
    kind: c.kind,
    pointer: c.path,
    ...(c.property !== undefined && { property: c.property }),
    where: describePointer(c.path, c.kind === "removed" ? [base, head] : [head, base]),
    message: messageOf(c, head, base),
    ...(c.base?.value !== undefined && { before: c.base.value }),
    ...(c.revision?.value !== undefined && { after: c.revision.value }),
    ...(at && { location: { file: rel(path.resolve(ROOT, at.file)), line: at.line, col: at.col, pointer: at.pointer } }),
  };
}

/**
 * Every operation a change reaches, whichever rule found it (issue 48): redocly reports a change of a shared
 * component once, through one operation that uses it (`listAnalysisAlerts`' query parameter for `AlertSeverity`),
 * so the operations come from where the changed node lives (its location's pointer: the component), through
 * `$ref`s in either version; a node of a path reaches its own operation. A rule that worked them out keeps its own.
 */
function withReach(base: Json, head: Json): (c: Change) => Change {
  const [inBase, inHead] = [reachers(base), reachers(head)];
  return (c) => {
    if (c.operations || c.added) return c;
    const physical = c.location?.pointer?.startsWith("#/components/") ? c.location.pointer : c.pointer;
    const segs = splitPointer(physical);
    if (segs[0] !== "paths" && segs[0] !== "components") return c;
    const ops = [...new Set([...inHead(segs), ...inBase(segs)])].filter((o) => o !== "every operation").sort();
    return ops.length ? { ...c, operations: ops } : c;
  };
}

/** The release's own version number is not a change of the contract. */
const isVersionField = (c: RedoclyChange) => c.path === "#/info" && c.property === "version";

export function highest(changes: Change[]): Impact | undefined {
  return IMPACTS.find((i) => changes.some((c) => c.impact === i));
}

/** Compares the baseline with the current bundle (defaults: generated/released/openapi.yaml and generated/openapi.yaml). */
export async function compare(opts: { base?: string; head?: string; today?: string } = {}): Promise<Comparison> {
  const baseFile = path.resolve(opts.base ?? BASELINE);
  const headFile = path.resolve(opts.head ?? HEAD);
  const hints: Record<string, string> = {
    [BASELINE]: " (cut the first release with `npm run release -- --initial`)",
    [HEAD]: " (run `npm run generate`)",
  };
  for (const [file, what] of [[baseFile, "baseline"], [headFile, "current bundle"]] as const) {
    if (!(await fs.stat(file).catch(() => null))?.isFile()) throw new DiffError(`${what} not found: ${rel(file)}${hints[file] ?? ""}`);
  }
  // Byte-identical bundles are one document: every rule, redocly's and ours, reports only where the two sides differ,
  // so there is nothing to diff (decision VG19). Different bytes, even one, take the whole path.
  const identical = (await fs.readFile(baseFile)).equals(await fs.readFile(headFile));
  const [redoclyRaw, base, head, policy] = await Promise.all([
    identical ? [] : redoclyDiff(baseFile, headFile),
    loadBundle(baseFile, "baseline"),
    loadBundle(headFile, "current bundle"),
    loadPolicy(),
  ]);
  if (identical) return { base, head, changes: [], impact: undefined, redocly: [], unusedAccepted: unusedEntries([], policy) };
  const raw = splitRenamedParameters(redoclyRaw, base.doc, head.doc);
  const own = contractRules(base, head);
  const rerated = reviewedNarrowings(base, raw);
  const changes = applySunsets(judge([
    ...raw
      .filter((c) => !isVersionField(c) && !own.supersedes(c) && !feltSupersedes(c.property, c.path))
      .map((c) => {
        const change = fromRedocly(c, head.doc, base.doc);
        const r = rerated.get(c);
        return r ? { ...change, ...r } : change;
      }),
    ...own.changes,
    ...clientFeltChanges(base, head),
  ].map(withReach(base.doc, head.doc)), policy), base.doc, opts.today).sort((a, b) => IMPACTS.indexOf(a.impact) - IMPACTS.indexOf(b.impact) || (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0));
  return { base, head, changes, impact: highest(changes), redocly: raw, unusedAccepted: unusedEntries(changes, policy) };
}

// A semver comparison by hand: only x.y.z(-pre) ordering is needed, and `semver` is not a dependency here.
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?$/;
type Version = [number, number, number];
export function parseVersion(v: string): Version | undefined {
  const m = SEMVER.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}
const cmp = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** The smallest version a release with this impact needs. Major is never a version within /v1. */
export function nextVersion(base: string, impact: Impact | undefined): string | undefined {
  const v = parseVersion(base);
  if (!v || impact === "major") return undefined;
  if (impact === undefined) return `${v[0]}.${v[1]}.${v[2]}`;
  return impact === "minor" ? `${v[0]}.${v[1] + 1}.0` : `${v[0]}.${v[1]}.${v[2] + 1}`;
}

/**
 * Is info.version honest about the changes since the baseline? Additions need at least a minor bump, fixes and
 * docs at least a patch bump, and the major never moves: it is the URL prefix's generation (/v1 is 1.x), and
 * breaking changes never ship within it (the gate fails on them before this check matters).
 */
export function versionProblems(base: string, head: string, impact: Impact | undefined): string[] {
  const [b, h] = [parseVersion(base), parseVersion(head)];
  if (!b) return [`info.version of the baseline, ${base}, is not semver (x.y.z)`];
  if (!h) return [`info.version ${head} is not semver (x.y.z) (at #/info/version)`];
  if (impact === "major") return [`breaking changes cannot be released in ${b[0]}.x at any version: they need a new URL prefix`];
  if (h[0] !== b[0]) {
    return [`info.version went ${base} → ${head}: the major stays ${b[0]} while the API is /v${b[0]}; a new prefix is an addition (minor)`];
  }
  const need = nextVersion(base, impact)!;
  if (cmp(h, parseVersion(need)!) < 0) {
    const what = impact === "minor" ? "additions need a minor bump" : impact === "patch" ? "fixes and docs changes need a patch bump" : "it went backwards";
    return [`info.version is ${head} but ${what}: set it to ${need} or later (spec/openapi.yaml, info.version)`];
  }
  return [];
}

/** A change that fails the gate unless accepted: its severity (scripts/breaking/checks.yaml), else its impact's. */
export const isError = (x: Change) => (x.severity ?? (x.impact === "major" ? "error" : "info")) === "error";

/**
 * The impact a release must carry: a major change the config rates `warning` or `info` does not stop a release,
 * so it counts as an addition (minor); the words of the report and --check-version follow it (decision VG12).
 */
export function releaseImpact(c: Comparison): Impact | undefined {
  return highest(c.changes.map((x) => (x.impact === "major" && !isError(x) ? { ...x, impact: "minor" as const } : x)));
}

/**
 * Why the gate fails: any breaking change not accepted; a break accepted in scripts/breaking/ignore.yaml without a
 * major version (it ships, so info.version must say so); and with `checkVersion`, a dishonest info.version.
 * Empty = pass.
 */
export function gateProblems(c: Comparison, opts: { checkVersion?: boolean; strict?: boolean } = {}): string[] {
  const problems: string[] = [];
  if (opts.strict) problems.push(...(c.unusedAccepted ?? []).map((a) => `${unusedNote(a)} (--strict)`));
  const breaking = c.changes.filter(isError);
  const majors = breaking.filter((x) => !x.accepted).length;
  if (majors) problems.push(majorsProblem(c)!);
  // A security fix ships within the version (decision B14); any other accepted break needs the next major.
  const accepted = breaking.filter((x) => x.accepted && !x.security);
  if (!majors && accepted.length) problems.push(...majorBumpProblems(c, accepted));
  if (opts.checkVersion && !breaking.length) problems.push(...versionProblems(c.base.version, c.head.version, releaseImpact(c)));
  return problems;
}

/** An ignore entry that accepted nothing, in words. */
export function unusedNote(a: { rule: string; pointer?: string; operation?: string }): string {
  return `scripts/breaking/ignore.yaml: the entry \`${a.rule}\` at ${a.pointer ?? `operation ${a.operation}`} matched no change; remove it, or name a pointer the gate prints`;
}

/** The gate's summary of the breaking changes it fails on, or undefined without any. */
export function majorsProblem(c: Comparison): string | undefined {
  const majors = c.changes.filter((x) => isError(x) && !x.accepted).length;
  if (!majors) return undefined;
  return (
    `${majors} breaking change${majors === 1 ? "" : "s"} since release ${c.base.version}. Breaking changes are not introduced within a ` +
    `version: keep the old shape and add beside it (a new optional field, a new operation), or put the change under a new prefix ` +
    `(/v2) while the old one keeps working.`
  );
}

/** A break that ships (accepted with a reason) needs the next major of info.version; the message names the first. */
function majorBumpProblems(c: Comparison, accepted: Change[]): string[] {
  const [b, h] = [parseVersion(c.base.version), parseVersion(c.head.version)];
  if (b && h && h[0] > b[0]) return [];
  const first = accepted[0]!;
  const more = accepted.length > 1 ? ` and ${accepted.length - 1} more` : "";
  const need = b ? `${b[0] + 1}.0.0` : "the next major";
  return [
    `info.version is ${c.head.version}, but a breaking change ships (\`${first.rule}\` at ${first.where}${more}, accepted in scripts/breaking/ignore.yaml): ` +
      `a breaking change needs a major version: set info.version to ${need} (spec/openapi.yaml, info.version), under its new prefix.`,
  ];
}
