// The content of one media analysis, derived from the analysis itself (issue 31): a generator seeded by the
// analysis's id makes its transcript, speakers, signals and alerts, so two analyses differ, the same analysis
// always gets the same content, and every part agrees with the others and with the features asked for
// (`x-completion` in Analysis.yaml and its grammar in spec/README.md):
//   - segments follow each other from 0 without gaps: the last one's end is the media's `duration_seconds`;
//   - speaker labels only with `diarization` (or `speaker_identification`, which implies it), numbered in order of first speech; an identity (`speaker_id`,
//     `name`) only with `speaker_identification`, taken from the contract's example of an identified speaker;
//   - a speaker's `segment_count`, talk time, ratio and first start are counted from the transcript;
//   - one signal per skill of the contract's example signals (its score within 0.1 of the example's), a timed one over a segment it quotes as evidence
//     (attributed to that segment's label), and an alert for each example alert, naming the analysis's title and
//     the speaker;
//   - the summary names the title and the speakers, then the first lines.
// The skills, identities and sentences come from the contract's examples (events.ts Templates); only the
// choices among them and the timings come from the seed.
import type { Json } from "../contract/contract-build.js";
import type { Templates } from "../events/events.js";
import { seeded } from "../util/ids.js";

/** What the content of an analysis is derived from. */
export interface ContentRequest {
  /** The seed: the analysis's id (or a fixture's `seed`). */
  seed: string;
  analysisId: string;
  title: string | null;
  features: readonly string[];
  /** The media's length when the analysis already states it (a fixture's `duration_seconds`): the segments fill it. */
  duration?: number | null;
}

export interface MediaContent {
  duration: number;
  segments: Json[];
  /** AnalysisSpeaker records, in order of first speech (empty without diarization). */
  speakers: Json[];
  /** The transcript's `speakers` (TranscriptSpeaker). */
  transcriptSpeakers: Json[];
  signals: Json[];
  alerts: Json[];
  /** The summary, when asked for. */
  summary: string;
}

/** Lines a call is made of, besides the contract's example segments. */
const LINES = [
  "Thanks for joining, let's go through where things stand.",
  "We rolled the new workflow out to the support team last month.",
  "The main concern on our side is the onboarding time for new agents.",
  "Can you walk me through what changed in the latest release?",
  "Our usage went up about twenty percent this quarter.",
  "I'd like to get the security review scheduled before we sign.",
  "Pricing is the part I need to take back to my manager.",
  "That makes sense, I'll send over the numbers after the call.",
  "We had two outages in the spring and that hurt us with customers.",
  "If we can get the integration working, the rest is straightforward.",
  "Let's set up a follow-up for next week with the whole team.",
  "Honestly the reporting has been the best part for us.",
];

const round2 = (n: number) => Math.round(n * 100) / 100;

/** A text of 3 to 6 of the lines, from a seed: what a `text` fixture without `metadata.text` was made from. */
export function seededText(seed: string): string {
  const rnd = seeded(seed);
  const n = 3 + Math.floor(rnd() * 4);
  return Array.from({ length: n }, () => LINES[Math.floor(rnd() * LINES.length)]!).join(" ");
}

/** The whole content of a media analysis, from its seed. */
export function mediaContent(t: Templates, req: ContentRequest): MediaContent {
  const rnd = seeded(req.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const { identified, diarized } = speakerFeatures(req.features);
  const pool = [...t.segments.map((s) => String(s.text)), ...LINES];
  const nSpeakers = 2 + Math.floor(rnd() * 2);
  const segments = timedSegments(rnd, pool, pick, nSpeakers, diarized);
  if (typeof req.duration === "number" && segments.length) stretch(segments, req.duration);
  const duration = segments.length ? segments.at(-1)!.end : 0;
  const ids = identified ? identities(t) : [];
  const c = around(t, req, rnd, segments, duration, (_label, i) => ids[i]);
  if (identified) for (const s of segments) s.speaker_id = c.speakers.find((x) => x.label === s.speaker_label)?.speaker_id ?? null;
  return c;
}

/**
 * The content around a transcript written elsewhere (a fixture's, decision RM22): speakers counted from its
 * segments (identities from its own speakers, with speaker_identification), signals over its segments, alerts,
 * summary; seeded as mediaContent is, so the same transcript always gets the same rest.
 */
export function transcriptContent(t: Templates, req: ContentRequest, transcript: Json): MediaContent {
  const segments: Json[] = transcript.segments ?? [];
  const duration = typeof transcript.duration_seconds === "number" ? transcript.duration_seconds : (segments.at(-1)?.end ?? 0);
  const own: Json[] = speakerFeatures(req.features).identified ? (transcript.speakers ?? []) : [];
  return around(t, req, seeded(req.seed), segments, duration, (label) => own.find((s) => s.label === label && (s.speaker_id ?? s.name ?? null) !== null));
}

/** Who is labelled and who identified: speaker_identification implies diarization (AnalysisFeature.yaml). */
function speakerFeatures(features: readonly string[]): { identified: boolean; diarized: boolean } {
  const f = new Set(features);
  const identified = f.has("speaker_identification");
  return { identified, diarized: identified || f.has("diarization") };
}

/** Speakers, signals, alerts and summary of a transcript's segments; `identity` names a label's speaker, if known. */
function around(t: Templates, req: ContentRequest, rnd: () => number, segments: Json[], duration: number, identity: (label: string, i: number) => Json | undefined): MediaContent {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const { diarized } = speakerFeatures(req.features);
  const speakers = diarized ? speakerStats(segments, duration, identity, rnd) : [];
  const transcriptSpeakers = speakers.map(({ label, speaker_id, name, talk_time_seconds }) => ({ label, speaker_id, name, talk_time_seconds }));
  const who = (label: string | null) => (label === null ? null : (speakers.find((s) => s.label === label)?.name ?? label));
  const timed = segments.filter((s) => typeof s.start === "number");
  const signals = t.signals.map((tpl, i) => {
    const seg = tpl.start === null || tpl.start === undefined || !timed.length ? null : pick(timed);
    // Near the example's score, so a skill that raised an alert in the example still scores high enough to.
    const score = round2(Math.min(1, Math.max(0, Number(tpl.score) + (rnd() - 0.5) * 0.2)));
    return { ...tpl, id: `sig_${i.toString().padStart(8, "0")}`, analysis_id: req.analysisId, score, start: seg?.start ?? null, end: seg?.end ?? null, speaker_label: seg?.speaker_label ?? null, evidence: seg ? String(seg.text).slice(0, 2000) : null };
  });
  const alerts = t.alerts.flatMap((tpl) => {
    const sig = signals[t.signals.findIndex((s) => s.id === tpl.signal_id)];
    if (!sig) return [];
    const by = who(sig.speaker_label);
    const message = `${sig.name} scored ${sig.score} in "${req.title ?? "an untitled analysis"}"${by ? `, said by ${by}` : ""}.`.slice(0, 1000);
    return [{ ...tpl, analysis_id: req.analysisId, signal_id: sig.id, message }];
  });
  const names = speakers.map((s) => s.name ?? s.label);
  const head = `${req.title ? `"${req.title}"` : "The recording"}: ${Math.round(duration)} s${names.length ? ` with ${names.join(", ")}` : ""}.`;
  const summary = `${head} ${segments.slice(0, 2).map((s) => s.text).join(" ")}`.slice(0, 10000);
  return { duration, segments, speakers, transcriptSpeakers, signals, alerts, summary };
}

/** 4 to 12 segments back to back from 0, each spoken by one of `nSpeakers` (labelled only when diarized). */
function timedSegments(rnd: () => number, pool: string[], pick: <T>(xs: readonly T[]) => T, nSpeakers: number, diarized: boolean): Json[] {
  const n = 4 + Math.floor(rnd() * 9);
  const order = new Map<number, string>(); // speaker number → label in order of first speech
  let at = 0;
  const out: Json[] = [];
  for (let i = 0; i < n; i++) {
    const text = pick(pool);
    const start = at;
    const end = round2(start + 2 + rnd() * 38);
    at = end;
    const who = Math.floor(rnd() * nSpeakers);
    if (!order.has(who)) order.set(who, `SPEAKER_${String(order.size).padStart(2, "0")}`);
    const confidence = round2(0.8 + rnd() * 0.19);
    out.push({ id: `seg_${i.toString().padStart(8, "0")}`, start, end, speaker_label: diarized ? order.get(who)! : null, speaker_id: null, text, confidence, words: words(text, start, end, confidence) });
  }
  return out;
}

/** Segments (and their words) scaled so the last ends at `duration`: rounding keeps the order. */
function stretch(segments: Json[], duration: number): void {
  const f = duration / segments.at(-1)!.end;
  for (const s of segments) {
    for (const x of [s, ...s.words]) [x.start, x.end] = [round2(x.start * f), round2(x.end * f)];
  }
  const last = segments.at(-1)!;
  last.end = duration;
  if (last.words.length) last.words.at(-1).end = duration;
}

/** The words of a segment, sharing its time evenly. */
function words(text: string, start: number, end: number, confidence: number): Json[] {
  const list = text.split(/\s+/).filter(Boolean);
  const step = (end - start) / Math.max(1, list.length);
  return list.map((w, i) => ({ text: w, start: round2(start + i * step), end: i === list.length - 1 ? end : round2(start + (i + 1) * step), confidence }));
}

/** The identified speakers of the contract's example (`speaker_id`, `name`). */
function identities(t: Templates): Json[] {
  return t.speakers.filter((s) => typeof s.speaker_id === "string");
}

/** Each label's share of the transcript, counted from its segments; `identity` names a label's speaker. */
function speakerStats(segments: Json[], duration: number, identity: (label: string, i: number) => Json | undefined, rnd: () => number): Json[] {
  const labels = [...new Set(segments.map((s) => s.speaker_label as string | null).filter((l): l is string => l !== null))];
  return labels.map((label, i) => {
    const own = segments.filter((s) => s.speaker_label === label);
    const talk = round2(own.reduce((n, s) => n + (s.end - s.start), 0));
    const id = identity(label, i);
    return {
      label,
      speaker_id: id?.speaker_id ?? null,
      name: id?.name ?? null,
      match_confidence: id ? round2(0.7 + rnd() * 0.29) : null,
      talk_time_seconds: talk,
      talk_time_ratio: duration ? Math.min(1, round2(talk / duration)) : 0,
      segment_count: own.length,
      first_segment_start: own[0]!.start,
    };
  });
}
