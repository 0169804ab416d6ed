// What a finished resource carries (`x-completion` on a resource schema, spec/README.md): on entering a state,
// properties the service fills (`property`, `by`) and the operations that then have content (`operation`),
// each perhaps only `when` the resource matches a JSON Schema (an analysis that asked for `summary`). Filled
// once, when the resource enters the state (never on a read), from what the resource was created with.
//   summary            a short abstract of the content: the first sentences of the text or transcript; for a
//                      report, what it covers
//   detected-language  the language of the text (by its most frequent function words) or of the transcript
//   media-duration     the transcript's duration (never for text, whose duration stays null)
//   run-output         the agent's summary of its work and the actions it proposed (the contract's example's)
//   download-link      a URL on this mock serving a file of the report's `format`; download-expiry: an hour on
import { FileLinks } from "../content/file-links.js";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { COMPLETION_KEY, type FILLERS } from "../../../contract/contract-rules.js";
import type { Step } from "../../../contract/lifecycle.js";
import type { Json } from "../contract/contract-build.js";
import type { ResourceHooks } from "./driver.js";
import type { StoreModel } from "./model.js";
import type { Rec, WorkspaceData } from "./records.js";

export { COMPLETION_KEY } from "../../../contract/contract-rules.js";

export interface CompletionEntry {
  property?: string;
  operation?: string;
  by: (typeof FILLERS)[number];
  when?: Json;
}

const ajv = new Ajv2020({ strict: false, validateFormats: false });
const compiled = new WeakMap<object, ValidateFunction>();

/** Does `value` match an entry's `when` (always, without one)? */
export function applies(e: CompletionEntry, value: Json): boolean {
  if (!e.when) return true;
  let v = compiled.get(e.when);
  if (!v) compiled.set(e.when, (v = ajv.compile(e.when)));
  return v(value) as boolean;
}

/** The `x-completion` entries of a schema for entering `state`. */
export function completionOf(model: StoreModel, schema: string, state: string): CompletionEntry[] {
  return model.contract.doc.components?.schemas?.[schema]?.[COMPLETION_KEY]?.[state] ?? [];
}

/** Does a resource in `state` promise content from `operation` (`getAnalysisTranscript`)? */
export function promises(model: StoreModel, schema: string, state: string, operation: string, value: Json): boolean {
  return completionOf(model, schema, state).some((e) => e.operation === operation && applies(e, value));
}

/** Sentences of a text, as a text analysis' transcript has them. */
export function sentences(text: string): string[] {
  const parts = text.replace(/\s+/g, " ").trim().match(/[^.!?]+(?:[.!?]+|$)/g) ?? [];
  return parts.map((s) => s.trim()).filter(Boolean);
}

/** A short abstract: the first sentences, at most 300 characters. */
export function summaryOf(text: string): string | null {
  let out = "";
  for (const s of sentences(text)) {
    if (out && out.length + s.length > 300) break;
    out = out ? `${out} ${s}` : s;
  }
  return out ? out.slice(0, 300) : null;
}

/** Function words of a few languages, to tell which one a text is in. */
const FUNCTION_WORDS: Record<string, string[]> = {
  en: ["the", "and", "is", "to", "of", "i", "you", "my", "for", "please", "was", "it", "we"],
  de: ["der", "die", "und", "ist", "nicht", "ich", "sie", "das", "mit", "bitte", "wir", "ein"],
  fr: ["le", "la", "et", "est", "les", "je", "vous", "pas", "une", "pour", "nous", "des"],
  es: ["el", "la", "y", "es", "los", "que", "por", "una", "para", "no", "usted", "las"],
  it: ["il", "che", "è", "per", "non", "una", "sono", "gli", "della", "grazie", "mi"],
  pt: ["o", "que", "não", "uma", "para", "com", "os", "obrigado", "você", "é", "do"],
  nl: ["de", "het", "en", "een", "niet", "ik", "u", "van", "is", "wij", "dat"],
};

/** The language of a text: the one whose function words it uses most; `en` when none is found. */
export function detectLanguage(text: string): string {
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  let best = "en";
  let score = 0;
  for (const [lang, list] of Object.entries(FUNCTION_WORDS)) {
    const set = new Set(list);
    const n = words.filter((w) => set.has(w)).length;
    if (n > score) [best, score] = [lang, n];
  }
  return best;
}

/** What the fillers of resources without hooks of their own read from the store. */
export interface CompletionContext {
  model: StoreModel;
  now(): number;
  /** The mock's base URL (`http://127.0.0.1:4010`), for links to its own files. */
  baseUrl(): string;
  /** Signs a link to one of the mock's files (file-links.ts). */
  links: FileLinks;
  /** The first example record of a collection (the contract's own). */
  example(schema: string): Json | undefined;
  lookup(ws: WorkspaceData, schema: string, id: string): Json | undefined;
}

/** Fills, on entering a state, the properties its `x-completion` names that are still null. */
export function fillCompletion(ctx: CompletionContext, ws: WorkspaceData, rec: Rec, state: string, fill: (by: string) => unknown, refills: ReadonlySet<string> = NONE): void {
  for (const e of completionOf(ctx.model, rec.coll.schema, state)) {
    if (!e.property || (rec.value[e.property] !== null && !refills.has(e.by)) || !applies(e, rec.value)) continue;
    const v = fill(e.by);
    if (v !== undefined) rec.value[e.property] = v;
  }
}

const NONE: ReadonlySet<string> = new Set();
/** Fillers that also update a value set on an earlier state (a run's output grows as its actions are decided). */
const REFILLS: ReadonlySet<string> = new Set(["run-output"]);
/** What a run's proposed actions become when it enters each state (RunAction.status's description). */
const ACTION_STATUS: Record<string, string> = { awaiting_approval: "pending_approval", succeeded: "executed", failed: "failed", canceled: "canceled" };

/** What a waiting action becomes once its approval is decided. */
const DECIDED: Record<string, string> = { approved: "executed", rejected: "rejected", expired: "expired" };

/** The file extension of a report format, in its download link. */
export const FORMAT_EXTENSIONS: Record<string, string> = { pdf: "pdf", docx: "docx", markdown: "md", json: "json" };

/** The completion of resources without hooks of their own (a run's output, a report's download). */
export class CompletionHooks implements ResourceHooks {
  constructor(private readonly ctx: CompletionContext) {}

  afterStep(ws: WorkspaceData, rec: Rec, step: Step): void {
    if (step.from === null) return;
    fillCompletion(this.ctx, ws, rec, step.to, (by) => this.fill(by, ws, rec), REFILLS);
  }

  private fill(by: string, ws: WorkspaceData, rec: Rec): unknown {
    const v = rec.value;
    switch (by) {
      case "run-output":
        return this.runOutput(ws, rec);
      case "download-link":
        return `${this.ctx.baseUrl()}${this.ctx.links.sign(`/__files/${ws.id}/reports/${rec.key}.${FORMAT_EXTENSIONS[v.format] ?? "bin"}`, FileLinks.expiry(this.ctx.now()))}`;
      case "download-expiry":
        return new Date(FileLinks.expiry(this.ctx.now()) * 1000).toISOString();
      case "summary":
        return this.reportSummary(ws, v);
      default:
        return undefined;
    }
  }

  /** What the agent found and proposed: the contract's example actions, over the run's own input. */
  private runOutput(ws: WorkspaceData, rec: Rec): Json | undefined {
    const run = rec.value;
    const approval = typeof run.approval_id === "string" ? this.ctx.lookup(ws, "Approval", run.approval_id) : undefined;
    // Back to `running` after its approval: the waiting actions take the decision; at the end, the run's outcome.
    const status = run.status === "running" ? DECIDED[approval?.status] : ACTION_STATUS[run.status];
    if (run.output) {
      for (const a of run.output.actions ?? []) if (a.status === "pending_approval" && status) a.status = status;
      return run.output;
    }
    if (run.status !== "awaiting_approval" && run.status !== "succeeded") return undefined; // null until it proposes
    const example = this.ctx.example(rec.coll.schema)?.output;
    if (!example) return undefined;
    const agent = typeof run.agent_id === "string" ? this.ctx.lookup(ws, "Agent", run.agent_id) : undefined;
    const n = run.input?.analysis_ids?.length ?? 0;
    const over = n ? `${n} ${n === 1 ? "analysis" : "analyses"}` : "the workspace";
    const actions = (structuredClone(example.actions) as Json[]).map((a) => ({ ...a, status: status ?? a.status }));
    return { summary: `${agent?.name ?? "The agent"} reviewed ${over}. ${example.summary}`.slice(0, 10000), actions };
  }

  /** What a report covers: its analyses' titles and summaries. */
  private reportSummary(ws: WorkspaceData, report: Json): string {
    const ids: string[] = report.analysis_ids ?? [];
    const parts = ids.map((id) => this.ctx.lookup(ws, "Analysis", id)).map((a) => a?.summary ?? a?.title).filter((x): x is string => typeof x === "string");
    return `${report.title ?? "Report"}: ${ids.length} ${ids.length === 1 ? "analysis" : "analyses"}.${parts.length ? " " + parts.join(" ") : ""}`.slice(0, 10000);
  }
}
