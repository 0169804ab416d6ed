// The departures proxy mode has seen: each written as one log line the moment it is found, and kept in a bounded
// list for GET /__mock/violations (the newest last; the oldest dropped past `capacity`, and counted). Entries have
// the verify report's shape (operationId, method, path template, status, rule, message, request) plus `seq`, a
// number that only grows (`?since=` takes it), and `timestamp`. Secrets are redacted before anything is kept.
import type { Violation } from "../../verify/types.js";
import { redact, type LogSink } from "../core/pipeline/log.js";

/**
 * One departure: a violation of the verify report (Y15) without `count` (each exchange is listed); `operationId` is
 * null for a request no operation of the contract describes, and `path` then the request's path.
 */
export type Finding = Omit<Violation, "count" | "operationId" | "cases" | "reproduction"> & { operationId: string | null };

export interface ListedViolation extends Finding {
  seq: number;
  timestamp: string;
}

export const DEFAULT_MAX_VIOLATIONS = 1000;

export class ViolationList {
  private items: ListedViolation[] = [];
  private seq = 0;
  /** Recorded since the start or the last clear; `dropped` of them fell off the front. */
  private total = 0;
  private dropped = 0;

  constructor(
    private readonly now: () => number,
    private readonly sink: LogSink | null,
    private readonly capacity = DEFAULT_MAX_VIOLATIONS,
  ) {}

  record(f: Finding): ListedViolation {
    const v: ListedViolation = {
      seq: ++this.seq,
      timestamp: new Date(this.now()).toISOString(),
      operationId: f.operationId,
      method: f.method,
      path: redact(f.path),
      status: f.status,
      rule: f.rule,
      message: oneLine(redact(f.message)),
      request: oneLine(redact(f.request)),
    };
    this.items.push(v);
    this.total++;
    if (this.items.length > this.capacity) {
      this.items.splice(0, this.items.length - this.capacity);
      this.dropped = this.total - this.capacity;
    }
    this.sink?.(formatViolationLine(v));
    return v;
  }

  /** The list as GET /__mock/violations answers it; `since` keeps the entries after that `seq`. */
  view(since = 0): { total: number; dropped: number; violations: ListedViolation[] } {
    return { total: this.total, dropped: this.dropped, violations: since > 0 ? this.items.filter((v) => v.seq > since) : [...this.items] };
  }

  /** Forgets every entry (`seq` goes on counting, so a `since` taken before still works). */
  clear(): void {
    this.items = [];
    this.total = 0;
    this.dropped = 0;
  }
}

/** `<time> violation <operationId> <METHOD> <path> <status> <rule>: <message> (<request>)`, one line. */
export function formatViolationLine(v: ListedViolation): string {
  return `${v.timestamp} violation ${v.operationId ?? "-"} ${v.method} ${v.path} ${v.status} ${v.rule}: ${v.message} (${v.request})`;
}

function oneLine(s: string): string {
  return s.replace(/\s*[\r\n]+\s*/g, " ");
}
