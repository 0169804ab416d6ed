// Content derived per analysis (issue 31): each media analysis's transcript, speakers, signals and alerts come
// from a generator seeded by the analysis's id, so they differ between analyses, agree with each other and with
// the features asked for (x-completion in Analysis.yaml), and are valid against the contract.
import type { SimulatedClock } from "../../../../src/mock/core/clock/simulated.js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, schemaErrors, startStateful, STEP_MS, type TestGateway } from "../../../helpers/mock.js";

let g: TestGateway & { clock: SimulatedClock };
beforeAll(async () => {
  g = await startStateful();
});
afterAll(async () => {
  await g.close();
});

const USE_CASE = "uc_01HZX1C4S8E2K6M0P3R7T9V5W1";
type Body = Record<string, unknown>;

/** A call that waits out the plan's rate limit: 200 creates outrun it, and the manual clock moves on instead of sleeping. */
async function api(method: string, path: string, body?: unknown) {
  for (;;) {
    const r = await call(g.url, method, path, { body });
    if (r.status !== 429) return r;
    g.clock.advance(r.body.retry_after * 1000);
  }
}

/** Creates an analysis, lets it complete, and reads everything it produced. */
async function completed(body: Body) {
  const created = await api("POST", "/v1/analyses", body);
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  const id = created.body.id as string;
  for (let i = 0; i < 3; i++) g.clock.advance(STEP_MS);
  const get = async (path: string) => (await api("GET", `/v1/analyses/${id}${path}`)).body;
  const analysis = await get("");
  const transcript = await get("/transcript");
  const diarized = analysis.features.includes("diarization") || analysis.features.includes("speaker_identification");
  const speakers = diarized ? (await get("/speakers")).data : [];
  const signals = analysis.features.includes("signals") ? (await get("/signals")).data : [];
  const alerts = analysis.features.includes("signals") ? (await get("/alerts")).data : [];
  return { analysis, transcript, speakers, signals, alerts };
}

type Content = Awaited<ReturnType<typeof completed>>;
const near = (a: number, b: number) => Math.abs(a - b) < 0.011;

/** Every way the content contradicts the contract or itself (empty when it tells one consistent story). */
function problems({ analysis: a, transcript: t, speakers, signals, alerts }: Content): string[] {
  const out: string[] = [];
  const check = (ok: boolean, what: string) => ok || out.push(what);
  out.push(...schemaErrors("Analysis", a), ...schemaErrors("Transcript", t));
  for (const s of speakers) out.push(...schemaErrors("AnalysisSpeaker", s));
  for (const s of signals) out.push(...schemaErrors("Signal", s));
  for (const x of alerts) out.push(...schemaErrors("Alert", x));
  const f = new Set<string>(a.features);
  if (f.has("speaker_identification")) f.add("diarization"); // AnalysisFeature.yaml: identification implies diarization
  const text = a.media_type === "text";
  check(a.status === "completed" && a.completed_at !== null, "completed with completed_at");
  check(t.analysis_id === a.id, "transcript names its analysis");
  check(t.text === t.segments.map((s: { text: string }) => s.text).join("\n"), "transcript text is its segments'");
  if (text) {
    check(t.duration_seconds === null && a.duration_seconds === null, "text has no duration");
    check(t.speakers.length === 0 && t.segments.every((s: any) => s.start === null && s.speaker_label === null && s.words.length === 0), "text has no timings or speakers");
  } else {
    check(t.segments.length > 0, "media has segments");
    check(near(t.duration_seconds, a.duration_seconds), "transcript duration is the analysis's");
    let at = 0;
    for (const s of t.segments) {
      check(near(s.start, at) && s.end > s.start, `segment ${s.id} follows the one before`);
      at = s.end;
    }
    check(near(at, t.duration_seconds), "segments add up to the duration");
  }
  const labels = [...new Set(t.segments.map((s: any) => s.speaker_label).filter((l: unknown) => l !== null))];
  if (!f.has("diarization") || text) check(labels.length === 0 && t.speakers.length === 0 && speakers.length === 0, "no speaker labels without diarization");
  else {
    check(t.segments.every((s: any) => s.speaker_label !== null), "every segment has a label with diarization");
    check(JSON.stringify(speakers.map((s: any) => s.label)) === JSON.stringify(labels), "speakers are the labels in order of first speech");
    check(JSON.stringify(t.speakers.map((s: any) => s.label)) === JSON.stringify(labels), "transcript speakers are the labels");
    for (const s of speakers) {
      const own = t.segments.filter((x: any) => x.speaker_label === s.label);
      check(s.segment_count === own.length, `${s.label} segment_count matches the transcript`);
      check(near(s.first_segment_start, own[0].start), `${s.label} first_segment_start`);
      check(near(s.talk_time_seconds, own.reduce((n: number, x: any) => n + x.end - x.start, 0)), `${s.label} talk time`);
    }
  }
  const identified = [...speakers, ...t.speakers, ...t.segments].filter((s: any) => s.speaker_id !== null || (s.name ?? null) !== null);
  if (!f.has("speaker_identification")) check(identified.length === 0, "no identities without speaker_identification");
  for (const s of signals) {
    check(s.analysis_id === a.id, "signal names its analysis");
    if (s.speaker_label !== null) check(labels.includes(s.speaker_label), "signal speaker is a label of the transcript");
    if (s.start !== null) check(s.end <= (t.duration_seconds ?? 0) + 0.011, "signal within the media");
  }
  for (const x of alerts) {
    check(x.analysis_id === a.id && signals.some((s: any) => s.id === x.signal_id), "alert raised by a signal of the analysis");
    if (a.title) check(x.message.includes(a.title), "alert names the analysis's title");
  }
  if (f.has("summary") && a.title && !text) check(a.summary.includes(a.title), "summary names the title");
  return out;
}

const media = (features: string[], title = "Q4 call"): Body => ({ media_url: "https://media.example.com/calls/q4.mp3", media_type: "audio", title, features, ...(features.includes("signals") ? { use_case_id: USE_CASE } : {}) });

describe("content derived per analysis", () => {
  it("differs between two analyses of media, and tells one consistent story", async () => {
    const one = await completed(media(["transcription", "diarization", "signals", "summary"], "Renewal with Acme"));
    const two = await completed(media(["transcription", "diarization", "signals", "summary"], "Onboarding with Globex"));
    expect(problems(one)).toEqual([]);
    expect(problems(two)).toEqual([]);
    expect(one.transcript.text).not.toEqual(two.transcript.text);
    expect(one.analysis.duration_seconds).not.toEqual(two.analysis.duration_seconds);
  });

  it("is the same for the same seed (metadata.seed, as a fixture sets it), whatever the id", async () => {
    const seeded = { ...media(["transcription", "diarization"]), metadata: { seed: "demo-1" } };
    const [one, two] = [await completed(seeded), await completed(seeded)];
    expect(one.analysis.id).not.toEqual(two.analysis.id);
    expect(one.transcript.text).toEqual(two.transcript.text);
    expect(one.speakers).toEqual(two.speakers);
  });

  it("has no speaker labels without diarization, and no identities without speaker_identification", async () => {
    const plain = await completed(media(["transcription"]));
    expect(problems(plain)).toEqual([]);
    expect(plain.transcript.segments.map((s: any) => s.speaker_label)).not.toContain("SPEAKER_00");
    const labelled = await completed(media(["transcription", "diarization"]));
    expect(problems(labelled)).toEqual([]);
    expect(labelled.speakers.map((s: any) => s.name)).not.toContain("Dana Whitfield");
    const identified = await completed(media(["transcription", "diarization", "speaker_identification"]));
    expect(problems(identified)).toEqual([]);
  });

  it("labels and identifies speakers with speaker_identification alone, since it implies diarization (AnalysisFeature.yaml)", async () => {
    const identified = await completed(media(["transcription", "speaker_identification"]));
    expect(problems(identified)).toEqual([]);
    expect(identified.speakers.length).toBeGreaterThan(0);
    expect(identified.speakers.some((s: any) => s.speaker_id !== null)).toBe(true);
  });

  it("the seeded processing analysis, once completed, has a transcript as long as the duration it states", async () => {
    const own = await startStateful(); // a workspace no other test has moved
    try {
      const id = "anl_01HZXB3M5N7P9Q1R3S5T7V9W2X";
      const before = (await call(own.url, "GET", `/v1/analyses/${id}`)).body;
      expect(before.status).toBe("processing");
      for (let i = 0; i < 3; i++) own.clock.advance(STEP_MS);
      const after = (await call(own.url, "GET", `/v1/analyses/${id}`)).body;
      const t = (await call(own.url, "GET", `/v1/analyses/${id}/transcript`)).body;
      expect(after.status).toBe("completed");
      expect(t.duration_seconds).toBe(before.duration_seconds);
      expect(t.segments.at(-1).end).toBe(before.duration_seconds);
    } finally {
      await own.close();
    }
  });

  it("for 200 random creates, every completed analysis and its content are valid and consistent", async () => {
    const feature = fc.subarray(["diarization", "speaker_identification", "signals", "summary"]);
    const body = fc.oneof(
      fc.record({ features: feature, title: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim().length > 0), media_type: fc.constantFrom("audio", "video") }).map(({ features, title, media_type }) => ({ ...media(["transcription", ...features], title), media_type })),
      fc.record({ features: fc.subarray(["signals", "summary"]), text: fc.lorem({ mode: "sentences", maxCount: 6 }) }).map(({ features, text }) => ({ text, media_type: "text", features: ["transcription", ...features], ...(features.includes("signals") ? { use_case_id: USE_CASE } : {}) })),
    );
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        expect(problems(await completed(b)), JSON.stringify(b)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  }, 120_000);
});
