// The consistency of an analysis's content written by hand (a fixture's transcript, speakers, signals, alerts;
// decision RM21): the rules the `x-completion` fillers follow when they derive it (the `by` table in spec/README.md,
// content.ts), checked on content they did not make. Each problem names the field (a path inside the record) and
// the filler whose rule it breaks:
//   transcript   a text analysis: no timings, no speakers, no duration (Transcript.yaml); a media one: segments
//                timed, the transcript's duration set, ordered by start, each ending after it starts and within the analysis's `duration_seconds`
//                (media-duration: the transcript's is the analysis's); `speaker_label` only with diarization (or
//                speaker_identification, which implies it), identities (`speaker_id`, `name`) only with
//                speaker_identification
//   speakers     counted from the transcript: each label is one of its segments', `segment_count`,
//                `first_segment_start`, `talk_time_seconds` and `talk_time_ratio` are its segments'; identities only
//                with speaker_identification
//   signals      a `speaker_label` only with diarization and one of the transcript's; times within the media
//   alerts       raised by a signal of the same analysis
import type { Json } from "../contract/contract-build.js";
import type { JsonPath } from "../state/json-file.js";

/** What one record of content is checked against: its analysis and the rest of its content. */
export interface ContentStory {
  analysis: Json;
  transcript: Json | undefined;
  signals: readonly Json[];
}

export interface ContentProblem {
  path: JsonPath;
  message: string;
}

/** Rounding of the derived figures (two decimals): values this close agree. */
const EPSILON = 0.011;

const problem = (path: JsonPath, message: string, by: string): ContentProblem => ({ path, message: `${message} (x-completion by: ${by})` });

/** The features as the fillers read them: speaker_identification implies diarization (AnalysisFeature.yaml). */
function featuresOf(a: Json): { diarized: boolean; identified: boolean; text: boolean } {
  const f = new Set<string>(Array.isArray(a.features) ? a.features : []);
  const identified = f.has("speaker_identification");
  return { identified, diarized: identified || f.has("diarization"), text: a.media_type === "text" };
}

/** The first way `value`, content of `by`, contradicts its analysis or the rest of its content; null when none. */
export function contentProblem(by: string, value: Json, story: ContentStory): ContentProblem | null {
  switch (by) {
    case "transcript":
      return transcriptProblem(value, story.analysis);
    case "speakers":
      return speakerProblem(value, story);
    case "signals":
      return signalProblem(value, story);
    case "alerts":
      return story.signals.some((s) => s.id === value.signal_id) ? null : problem(["signal_id"], `no signal ${value.signal_id} of analysis ${story.analysis.id}`, by);
    default:
      return null;
  }
}

/** Fields that must be null: the first that is not. */
function nonNull(value: Json, fields: readonly string[], at: JsonPath, why: string, by: string): ContentProblem | null {
  const field = fields.find((f) => (value[f] ?? null) !== null);
  return field ? problem([...at, field], `must be null ${why}`, by) : null;
}

function transcriptProblem(t: Json, a: Json): ContentProblem | null {
  const f = featuresOf(a);
  const segments: Json[] = t.segments ?? [];
  const speakers: Json[] = t.speakers ?? [];
  if (f.text) {
    if (t.duration_seconds !== null) return problem(["duration_seconds"], "must be null for a text analysis", "transcript");
    if (speakers.length) return problem(["speakers"], "must be empty for a text analysis", "transcript");
    for (const [i, s] of segments.entries()) {
      const p = nonNull(s, ["start", "end", "speaker_label", "speaker_id"], ["segments", i], "for a text analysis", "transcript");
      if (p) return p;
      if (s.words?.length) return problem(["segments", i, "words"], "must be empty for a text analysis", "transcript");
    }
    return null;
  }
  if (typeof t.duration_seconds !== "number") return problem(["duration_seconds"], "must be set for a media analysis", "media-duration");
  if (a.duration_seconds !== null && t.duration_seconds !== a.duration_seconds) {
    return problem(["duration_seconds"], `must equal the analysis's duration_seconds ${a.duration_seconds}`, "media-duration");
  }
  const duration: number = t.duration_seconds;
  let previous: number | null = null;
  for (const [i, s] of segments.entries()) {
    const p = segmentTimes(s, ["segments", i], previous, duration) ?? identityProblem(s, ["segments", i], f, ["speaker_label"], ["speaker_id"], "transcript");
    if (p) return p;
    previous = s.start;
  }
  if (speakers.length && !f.diarized) return problem(["speakers"], "must be empty without diarization or speaker_identification", "transcript");
  for (const [i, s] of speakers.entries()) {
    const p = identityProblem(s, ["speakers", i], f, [], ["speaker_id", "name"], "transcript");
    if (p) return p;
  }
  return null;
}

/** A media segment's times: set, ordered by start, each ending after it starts and within the media. */
function segmentTimes(s: Json, at: JsonPath, previous: number | null, duration: number): ContentProblem | null {
  for (const k of ["start", "end"]) if (typeof s[k] !== "number") return problem([...at, k], "must be set for a media analysis", "transcript");
  if (previous !== null && s.start < previous) return problem([...at, "start"], `must not be before the previous segment's start ${previous}`, "transcript");
  if (s.end < s.start) return problem([...at, "end"], `must not be before its start ${s.start}`, "transcript");
  if (s.end > duration + EPSILON) return problem([...at, "end"], `must be within the analysis's duration_seconds ${duration}`, "transcript");
  return null;
}

/** Labels only with diarization, identities only with speaker_identification. */
function identityProblem(value: Json, at: JsonPath, f: ReturnType<typeof featuresOf>, labels: readonly string[], identities: readonly string[], by: string): ContentProblem | null {
  return (f.diarized ? null : nonNull(value, labels, at, "without diarization or speaker_identification", by)) ?? (f.identified ? null : nonNull(value, identities, at, "without speaker_identification", by));
}

function speakerProblem(s: Json, { analysis, transcript }: ContentStory): ContentProblem | null {
  if (!transcript) return problem([], "speakers are counted from the transcript: give the analysis's Transcript too", "speakers");
  const own = (transcript.segments as Json[]).filter((x) => x.speaker_label === s.label);
  if (!own.length) return problem(["label"], "no segment of the transcript has this label", "speakers");
  if (s.segment_count !== own.length) return problem(["segment_count"], `must be ${own.length}, the transcript's segments labelled ${s.label}`, "speakers");
  if (Math.abs(s.first_segment_start - own[0]!.start) > EPSILON) return problem(["first_segment_start"], `must be ${own[0]!.start}, the start of its first segment`, "speakers");
  const talk = own.reduce((n, x) => n + (x.end - x.start), 0);
  if (Math.abs(s.talk_time_seconds - talk) > EPSILON) return problem(["talk_time_seconds"], `must be ${Math.round(talk * 100) / 100}, the length of its segments`, "speakers");
  const duration = analysis.duration_seconds ?? transcript.duration_seconds;
  if (duration && Math.abs(s.talk_time_ratio - talk / duration) > EPSILON) return problem(["talk_time_ratio"], `must be ${Math.round((talk / duration) * 100) / 100}, its talk time over the duration`, "speakers");
  return identityProblem(s, [], featuresOf(analysis), [], ["speaker_id", "name", "match_confidence"], "speakers");
}

function signalProblem(s: Json, { analysis, transcript }: ContentStory): ContentProblem | null {
  const f = featuresOf(analysis);
  if (f.text) return nonNull(s, ["start", "end", "speaker_label"], [], "for a text analysis", "signals");
  const p = identityProblem(s, [], f, ["speaker_label"], [], "signals");
  if (p) return p;
  const labels = [...new Set(((transcript?.segments ?? []) as Json[]).map((x) => x.speaker_label).filter((l) => l !== null))];
  if (transcript && s.speaker_label !== null && !labels.includes(s.speaker_label)) return problem(["speaker_label"], `must be a speaker label of the transcript (${labels.join(", ")})`, "signals");
  const duration = analysis.duration_seconds ?? transcript?.duration_seconds ?? null;
  if (typeof s.start === "number" && typeof s.end === "number" && s.end < s.start) return problem(["end"], `must not be before its start ${s.start}`, "signals");
  if (duration !== null && typeof s.end === "number" && s.end > duration + EPSILON) return problem(["end"], `must be within the analysis's duration_seconds ${duration}`, "signals");
  return null;
}
