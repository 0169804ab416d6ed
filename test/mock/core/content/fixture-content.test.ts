// Fixtures that hold the whole story (issue 31, decisions RM21–RM24): transcripts and analysis speakers as fixture
// collections beside signals and alerts, checked against the contract and against each other; a completed fixture
// serves them (and derives what it lacks from them); a fixture can opt into its lifecycle; text fixtures get
// text-derived content. Over real HTTP, with the mock started on a fixtures file.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { REPO_ROOT } from "../../../../src/mock/homes/node/contract-files.js";
import { parseFixtures } from "../../../../src/mock/core/controls/fixtures.js";
import { yamlFixtures } from "../../../../src/mock/homes/node/fixtures-yaml.js";
import { readModel } from "../../../../src/mock/core/store/model.js";
import { call, contract, getJson, policy, schemaErrors, startGateway, startStateful, STEP_MS, type TestGateway } from "../../../helpers/mock.js";

const STORY = path.join(REPO_ROOT, "docs/mock-fixtures.story.example.yaml");
const KEY = "pk_test_call_review_demo";
const WS = "ws_CallReview01";
const ID = "anl_01ReviewCall0000000000001";
type Doc = { keys: unknown[]; workspaces: Record<string, Record<string, any>> };
const story = (): Doc => parseYaml(fs.readFileSync(STORY, "utf8"));
const near = (a: number, b: number) => Math.abs(a - b) < 0.011;
/** The story's workspace without its content (all of it, or all but `keep`). */
function withoutContent(ws: Record<string, any>, keep: string[] = []): Record<string, any> {
  for (const k of ["Transcript", "AnalysisSpeaker", "Signal", "Alert"]) if (!keep.includes(k)) delete ws[k];
  return ws;
}

const dirs: string[] = [];
/** Starts a gateway on a fixtures file holding `doc` (JSON, written to the OS temp dir). */
async function withFixtures(doc: Doc, opts: { stepMs?: number } = {}): Promise<TestGateway> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fixture-content-"));
  dirs.push(dir);
  const file = path.join(dir, "fx.json");
  fs.writeFileSync(file, JSON.stringify(doc));
  return startGateway({ fixtures: file, ...opts });
}
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const get = async (g: TestGateway, p: string) => call(g.url, "GET", `/v1/analyses/${ID}${p}`, { key: KEY });

describe("--fixtures: a completed analysis with its whole story (docs/mock-fixtures.story.example.yaml)", () => {
  let g: TestGateway;
  beforeAll(async () => {
    g = await startGateway({ fixtures: STORY });
  });
  afterAll(() => g.close());

  it("serves the file's transcript, speakers, signals and alerts as written (200), valid against the contract", async () => {
    const ws = story().workspaces[WS]!;
    const t = await get(g, "/transcript");
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    expect(t.body).toEqual(ws.Transcript[0]);
    const speakers = (await get(g, "/speakers")).body.data;
    expect(speakers).toEqual(ws.AnalysisSpeaker[ID]);
    expect((await get(g, "/signals")).body.data).toEqual(ws.Signal);
    expect((await get(g, "/alerts")).body.data).toEqual(ws.Alert);
    expect((await get(g, "")).body).toEqual(ws.Analysis[0]);
    for (const s of speakers) expect(schemaErrors("AnalysisSpeaker", s)).toEqual([]);
    expect(schemaErrors("Transcript", t.body)).toEqual([]);
  });

  it("its stream replays the file's content", async () => {
    const r = await fetch(`${g.url}/v1/analysis/${ID}/stream`, { headers: { "X-API-Key": KEY } });
    const text = await r.text();
    expect(text).toContain("seg_01ReviewSeg00000000002");
    expect(text).toContain("sig_01ReviewSig00000000001");
    expect(text).toContain("event: completed");
  });
});

describe("--fixtures: a completed analysis with only its transcript", () => {
  let g: TestGateway;
  const doc = story();
  const ws = withoutContent(doc.workspaces[WS]!, ["Transcript"]);
  ws.Analysis[0].summary = null;
  ws.Analysis[0].duration_seconds = null;
  beforeAll(async () => {
    g = await withFixtures(doc);
  });
  afterAll(() => g.close());

  it("derives its speakers, signals, alerts and null fields from that transcript, consistently", async () => {
    const t = (await get(g, "/transcript")).body;
    expect(t).toEqual(ws.Transcript[0]);
    const a = (await get(g, "")).body;
    expect(a.duration_seconds).toBe(31.5);
    expect(a.summary).toContain("Onboarding call with Globex");
    const speakers = (await get(g, "/speakers")).body.data;
    expect(speakers.map((s: any) => [s.label, s.segment_count, s.first_segment_start])).toEqual([
      ["SPEAKER_00", 2, 0],
      ["SPEAKER_01", 1, 9.5],
    ]);
    expect(near(speakers[0].talk_time_seconds, 21.5)).toBe(true);
    const signals = (await get(g, "/signals")).body.data;
    expect(signals.length).toBeGreaterThan(0);
    for (const s of signals) {
      expect(schemaErrors("Signal", s)).toEqual([]);
      if (s.start !== null) expect(t.segments.some((x: any) => x.start === s.start && x.end === s.end && x.speaker_label === s.speaker_label && x.text === s.evidence)).toBe(true);
    }
    const alerts = (await get(g, "/alerts")).body.data;
    for (const x of alerts) {
      expect(signals.map((s: any) => s.id)).toContain(x.signal_id);
      expect(x.message).toContain("Onboarding call with Globex");
    }
  });
});

describe("--fixtures: a completed analysis that states its duration, without content", () => {
  let g: TestGateway;
  const doc = story();
  const ws = withoutContent(doc.workspaces[WS]!);
  ws.Analysis[0].duration_seconds = 1204.8;
  beforeAll(async () => {
    g = await withFixtures(doc);
  });
  afterAll(() => g.close());

  it("gets a transcript of that length: its segments fill the stated duration", async () => {
    const t = (await get(g, "/transcript")).body;
    expect(t.duration_seconds).toBe(1204.8);
    expect(t.segments.at(-1).end).toBe(1204.8);
    let at = 0;
    for (const s of t.segments) {
      expect(s.start).toBeGreaterThanOrEqual(at);
      expect(s.end).toBeGreaterThanOrEqual(s.start);
      at = s.start;
    }
    expect((await get(g, "")).body.duration_seconds).toBe(1204.8);
  });
});

describe("--fixtures: content checked against the contract and against itself", () => {
  const model = readModel(contract);
  const parse = (doc: Doc) => {
    try {
      parseFixtures(JSON.stringify(doc, null, 1), "fx.json", contract, model, policy, yamlFixtures.read);
      return "loaded";
    } catch (e) {
      return (e as Error).message;
    }
  };
  /** The story with one change. */
  const broken = (change: (ws: Record<string, any>) => void): Doc => {
    const doc = story();
    change(doc.workspaces[WS]!);
    return doc;
  };
  const at = (p: string) => new RegExp(`^fx\\.json:\\d+:\\d+: workspaces\\.${WS}\\.${p.replaceAll(".", "\\.")}: `);

  it("loads the story as it is", () => expect(parse(story())).toBe("loaded"));

  it.each<[string, (ws: Record<string, any>) => void, RegExp, RegExp]>([
    ["a transcript its schema refuses", (ws) => (ws.Transcript[0].segments[0].speaker_label = "Dana"), at("Transcript.0.segments.0.speaker_label"), /transcript of analysis anl_01ReviewCall0000000000001: must match pattern .* \(schema Transcript, rule "pattern"\)$/],
    ["a transcript of an analysis not in the workspace", (ws) => (ws.Transcript[0].analysis_id = "anl_01Elsewhere00000000000001"), at("Transcript.0.analysis_id"), /no analysis anl_01Elsewhere00000000000001 in workspace ws_CallReview01 \(its parent\)$/],
    ["two transcripts of one analysis", (ws) => ws.Transcript.push(structuredClone(ws.Transcript[0])), at("Transcript.1.analysis_id"), /transcript of analysis anl_01ReviewCall0000000000001 appears twice/],
    ["speakers of an analysis not in the workspace", (ws) => (ws.AnalysisSpeaker = { anl_01Elsewhere00000000000001: ws.AnalysisSpeaker[ID] }), at("AnalysisSpeaker.anl_01Elsewhere00000000000001.0"), /no analysis anl_01Elsewhere00000000000001 in workspace ws_CallReview01 \(its parent\)$/],
    ["content of an analysis still processing", (ws) => Object.assign(ws.Analysis[0], { status: "processing", progress: 40, completed_at: null }), at("Transcript.0"), /transcript of analysis anl_01ReviewCall0000000000001: analysis anl_01ReviewCall0000000000001 is processing; getAnalysisTranscript has content only in state completed \(x-completion\)$/],
    ["speakers without diarization", (ws) => (ws.Analysis[0].features = ["transcription", "signals", "summary"]), at("AnalysisSpeaker.anl_01ReviewCall0000000000001.0"), /analysis anl_01ReviewCall0000000000001 did not ask for them: listAnalysisSpeakers has content only when \{"properties":\{"features":\{"contains":\{"enum":\["diarization","speaker_identification"\]\}\}\}\} \(x-completion completed\)$/],
    ["a speaker label on a segment without diarization", (ws) => { ws.Analysis[0].features = ["transcription"]; withoutContent(ws, ["Transcript"]); ws.Transcript[0].speakers = []; }, at("Transcript.0.segments.0.speaker_label"), /must be null without diarization or speaker_identification \(x-completion by: transcript\)$/],
    ["an identity without speaker_identification", (ws) => (ws.Transcript[0].segments[1].speaker_id = "spk_01HZX7N5D3F1G9H7J5K3L1M9P7"), at("Transcript.0.segments.1.speaker_id"), /must be null without speaker_identification \(x-completion by: transcript\)$/],
    ["a speaker's name without speaker_identification", (ws) => (ws.AnalysisSpeaker[ID][0].name = "Dana Whitfield"), at("AnalysisSpeaker.anl_01ReviewCall0000000000001.0.name"), /speaker SPEAKER_00: must be null without speaker_identification \(x-completion by: speakers\)$/],
    ["a segment ending after the analysis's duration", (ws) => (ws.Transcript[0].segments[2].end = 40), at("Transcript.0.segments.2.end"), /must be within the analysis's duration_seconds 31\.5 \(x-completion by: transcript\)$/],
    ["segments out of order", (ws) => (ws.Transcript[0].segments[2].start = 5), at("Transcript.0.segments.2.start"), /must not be before the previous segment's start 9\.5 \(x-completion by: transcript\)$/],
    ["a segment ending before it starts", (ws) => (ws.Transcript[0].segments[1].end = 9), at("Transcript.0.segments.1.end"), /must not be before its start 9\.5 \(x-completion by: transcript\)$/],
    ["a transcript duration other than the analysis's", (ws) => (ws.Transcript[0].duration_seconds = 30), at("Transcript.0.duration_seconds"), /must equal the analysis's duration_seconds 31\.5 \(x-completion by: media-duration\)$/],
    ["a media transcript without its duration", (ws) => { ws.Transcript[0].duration_seconds = null; ws.Analysis[0].duration_seconds = null; }, at("Transcript.0.duration_seconds"), /must be set for a media analysis \(x-completion by: media-duration\)$/],
    ["timings in a text analysis's transcript", (ws) => { Object.assign(ws.Analysis[0], { media_type: "text", duration_seconds: null, features: ["transcription"] }); withoutContent(ws, ["Transcript"]); ws.Transcript[0].duration_seconds = null; ws.Transcript[0].speakers = []; for (const s of ws.Transcript[0].segments) s.speaker_label = null; }, at("Transcript.0.segments.0.start"), /must be null for a text analysis \(x-completion by: transcript\)$/],
    ["a speaker's segment_count other than its segments", (ws) => (ws.AnalysisSpeaker[ID][0].segment_count = 118), at("AnalysisSpeaker.anl_01ReviewCall0000000000001.0.segment_count"), /speaker SPEAKER_00: must be 2, the transcript's segments labelled SPEAKER_00 \(x-completion by: speakers\)$/],
    ["a speaker's first_segment_start other than its first segment's", (ws) => (ws.AnalysisSpeaker[ID][1].first_segment_start = 3), at("AnalysisSpeaker.anl_01ReviewCall0000000000001.1.first_segment_start"), /must be 9\.5, the start of its first segment/],
    ["a speaker the transcript does not have", (ws) => (ws.AnalysisSpeaker[ID][1].label = "SPEAKER_07"), at("AnalysisSpeaker.anl_01ReviewCall0000000000001.1.label"), /speaker SPEAKER_07: no segment of the transcript has this label \(x-completion by: speakers\)$/],
    ["speakers without a transcript to count from", (ws) => delete ws.Transcript, at("AnalysisSpeaker.anl_01ReviewCall0000000000001.0"), /speaker SPEAKER_00: speakers are counted from the transcript: give the analysis's Transcript too \(x-completion by: speakers\)$/],
    ["a signal by a speaker label the transcript does not have", (ws) => (ws.Signal[0].speaker_label = "SPEAKER_05"), at("Signal.0.speaker_label"), /signal sig_01ReviewSig00000000001: must be a speaker label of the transcript \(SPEAKER_00, SPEAKER_01\) \(x-completion by: signals\)$/],
    ["a signal after the media's end", (ws) => (ws.Signal[0].end = 45), at("Signal.0.end"), /must be within the analysis's duration_seconds 31\.5 \(x-completion by: signals\)$/],
    ["an alert raised by a signal the analysis does not have", (ws) => (ws.Alert[0].signal_id = "sig_01Missing0000000000001"), at("Alert.0.signal_id"), /alert alr_01ReviewAlert0000000001: no signal sig_01Missing0000000000001 of analysis anl_01ReviewCall0000000000001 \(x-completion by: alerts\)$/],
  ])("refuses %s, naming the record, the field and the rule", (_what, change, where, rule) => {
    const message = parse(broken(change));
    expect(message).toMatch(where);
    expect(message).toMatch(rule);
  });

  it("names the line of the field in the file", () => {
    const doc = broken((ws) => (ws.Transcript[0].segments[2].end = 40));
    const text = JSON.stringify(doc, null, 1);
    const line = text.split("\n").findIndex((l) => l.includes('"end": 40')) + 1;
    expect(parse(doc)).toMatch(new RegExp(`^fx\\.json:${line}:`));
  });
});

describe("--fixtures: a fixture analysis that opts into its lifecycle (metadata.lifecycle: run)", () => {
  const STEP = 1000;
  let g: TestGateway;
  const doc = story();
  const ws = withoutContent(doc.workspaces[WS]!);
  const moving = { ...ws.Analysis[0], status: "processing", progress: 40, summary: null, duration_seconds: null, completed_at: null, metadata: { lifecycle: "run" } };
  const resting = { ...moving, id: "anl_01ReviewCall0000000000002", metadata: {} };
  const TEXT = "Pricing is the part I need to take back. Let's meet next week.";
  const text = { ...moving, id: "anl_01ReviewCall0000000000004", media_type: "text", source: { type: "text", url: null, filename: null, content_type: "text/plain", size_bytes: TEXT.length }, features: ["transcription"], metadata: { lifecycle: "run", text: TEXT } };
  ws.Analysis = [moving, resting, text];
  const control = (body: unknown) => getJson(`${g.url}/__mock/clock`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  beforeAll(async () => {
    g = await withFixtures(doc, { stepMs: STEP });
  });
  afterAll(() => g.close());

  it("moves on with the clock to completed, with derived content; without the option it stays as written", async () => {
    await control({ action: "pause" });
    expect((await get(g, "")).body).toMatchObject({ status: "processing", progress: 40 });
    await control({ action: "advance", ms: STEP * 3 });
    const done = (await get(g, "")).body;
    expect(done).toMatchObject({ status: "completed", progress: 100 });
    expect(done.completed_at).not.toBeNull();
    expect(done.summary).toContain("Onboarding call with Globex");
    const t = await get(g, "/transcript");
    expect(t.status).toBe(200);
    expect(near(t.body.duration_seconds, done.duration_seconds)).toBe(true);
    const speakers = (await get(g, "/speakers")).body.data;
    expect(speakers.map((s: any) => s.label)).toEqual([...new Set(t.body.segments.map((s: any) => s.speaker_label))]);
    const still = (await call(g.url, "GET", "/v1/analyses/anl_01ReviewCall0000000000002", { key: KEY })).body;
    expect(still).toMatchObject({ status: "processing", progress: 40, completed_at: null });
  });

  it("a text fixture that runs is processed from its metadata.text", async () => {
    const t = (await call(g.url, "GET", "/v1/analyses/anl_01ReviewCall0000000000004/transcript", { key: KEY })).body;
    expect(t.segments.map((s: any) => s.text)).toEqual(["Pricing is the part I need to take back.", "Let's meet next week."]);
    expect(t.duration_seconds).toBeNull();
  });

  it("refuses an unknown value of the option", () => {
    const bad = story();
    bad.workspaces[WS]!.Analysis[0].metadata = { lifecycle: "go" };
    expect(() => parseFixtures(JSON.stringify(bad), "fx.json", contract, readModel(contract), policy, yamlFixtures.read)).toThrow(/Analysis\.0\.metadata\.lifecycle: analysis anl_01ReviewCall0000000000001: must be "run" or "rest" \(fixture option\)$/);
  });
});

describe("--fixtures: a completed text analysis without content", () => {
  let g: TestGateway;
  const doc = story();
  const ws = withoutContent(doc.workspaces[WS]!);
  const TEXT = "The renewal price went up again. We will look at other vendors! Can you send the numbers?";
  ws.Analysis[0] = { ...ws.Analysis[0], media_type: "text", source: { type: "text", url: null, filename: null, content_type: "text/plain", size_bytes: TEXT.length }, duration_seconds: null, summary: null, features: ["transcription", "signals", "summary"], metadata: { text: TEXT } };
  ws.Analysis[1] = { ...ws.Analysis[0], id: "anl_01ReviewCall0000000000003", features: ["transcription"], summary: null, metadata: {} };
  beforeAll(async () => {
    g = await withFixtures(doc);
  });
  afterAll(() => g.close());

  it("gets the text-derived content: its sentences, untimed, without speakers; summary from them", async () => {
    const t = (await get(g, "/transcript")).body;
    expect(t.duration_seconds).toBeNull();
    expect(t.speakers).toEqual([]);
    expect(t.segments.map((s: any) => s.text)).toEqual(["The renewal price went up again.", "We will look at other vendors!", "Can you send the numbers?"]);
    expect(t.segments.every((s: any) => s.start === null && s.end === null && s.speaker_label === null && s.words.length === 0)).toBe(true);
    const a = (await get(g, "")).body;
    expect(a.duration_seconds).toBeNull();
    expect(a.summary).toBe(TEXT);
    const signals = (await get(g, "/signals")).body.data;
    expect(signals.length).toBeGreaterThan(0);
    for (const s of signals) expect(s.start === null && s.speaker_label === null && t.segments.some((x: any) => x.text === s.evidence)).toBe(true);
  });

  it("without metadata.text, of a few sentences its seed chooses, the same at every start", async () => {
    const other = async () => (await call(g.url, "GET", "/v1/analyses/anl_01ReviewCall0000000000003/transcript", { key: KEY })).body;
    const t = await other();
    expect(t.segments.length).toBeGreaterThanOrEqual(3);
    expect(t.segments.every((s: any) => s.start === null && s.speaker_label === null && /[.!?]$/.test(s.text))).toBe(true);
    await fetch(`${g.url}/__mock/reset`, { method: "POST" });
    expect((await other()).segments.map((s: any) => s.text)).toEqual(t.segments.map((s: any) => s.text));
  });
});

describe("content the mock derives, written back as fixtures, passes the fixture checks (one set of rules)", () => {
  let g: Awaited<ReturnType<typeof startStateful>>;
  beforeAll(async () => {
    g = await startStateful();
  });
  afterAll(() => g.close());
  const USE_CASE = "uc_01HZX1C4S8E2K6M0P3R7T9V5W1";

  it.each([
    [{ media_url: "https://media.example.com/calls/a.mp3", media_type: "audio", title: "Plain", features: ["transcription"] }],
    [{ media_url: "https://media.example.com/calls/b.mp3", media_type: "audio", title: "Labelled", features: ["transcription", "diarization", "signals", "summary"], use_case_id: USE_CASE }],
    [{ media_url: "https://media.example.com/calls/c.mp4", media_type: "video", title: "Identified", features: ["transcription", "speaker_identification", "signals"], use_case_id: USE_CASE }],
    [{ text: "Pricing went up. We may leave! Send the numbers?", media_type: "text", features: ["transcription", "signals", "summary"], use_case_id: USE_CASE }],
  ])("%j", async (body) => {
    const r = await call(g.url, "POST", "/v1/analyses", { body });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const created = r.body;
    for (let i = 0; i < 3; i++) g.clock.advance(STEP_MS);
    const read = async (p: string) => (await call(g.url, "GET", `/v1/analyses/${created.id}${p}`)).body;
    const analysis = { ...(await read("")), workspace_id: WS, use_case_id: null };
    const f: string[] = analysis.features;
    const ws: Record<string, unknown> = { Analysis: [analysis], Transcript: [await read("/transcript")] };
    if (f.includes("diarization") || f.includes("speaker_identification")) ws.AnalysisSpeaker = { [created.id]: (await read("/speakers")).data };
    if (f.includes("signals")) [ws.Signal, ws.Alert] = [(await read("/signals")).data, (await read("/alerts")).data];
    expect(parseFixtures(JSON.stringify({ workspaces: { [WS]: ws } }), "fx.json", contract, readModel(contract), policy, yamlFixtures.read).workspaces.get(WS)!.length).toBeGreaterThan(1);
  });
});
