// `@avt/api-contract/react`: React hooks over the client's helpers.
import { useEffect, useState } from "react";
import type { ApiClient } from "../client/client.js";
import { streamAnalysisEvents, type AnalysisStreamEvent } from "../client/streaming.js";

export interface AnalysisEventsState {
  /** Every event received so far, in order. */
  events: AnalysisStreamEvent[];
  /** The last event, or undefined before the first. */
  last: AnalysisStreamEvent | undefined;
  /** `open` while the stream runs; `done` once it ended (the analysis finished); `error` when it failed. */
  status: "idle" | "open" | "done" | "error";
  /** The `ApiError` (or `StreamError`) that ended it, when `status` is `error`. */
  error: unknown;
}

const IDLE: AnalysisEventsState = { events: [], last: undefined, status: "idle", error: undefined };

/**
 * The SSE event stream of an analysis (`GET /v1/analysis/{id}/stream`, reconnecting after the last event id as
 * `streamAnalysisEvents` does), as component state. Opens when `analysisId` is set; closes on unmount or when it
 * changes (the request is aborted). Pass `undefined` to open nothing.
 */
export function useAnalysisEvents(client: ApiClient, analysisId: string | undefined): AnalysisEventsState {
  const [state, setState] = useState<AnalysisEventsState>(IDLE);
  useEffect(() => {
    setState(analysisId === undefined ? IDLE : { ...IDLE, status: "open" });
    if (analysisId === undefined) return;
    const controller = new AbortController();
    const run = async () => {
      try {
        for await (const event of streamAnalysisEvents(client, analysisId, { signal: controller.signal })) {
          setState((s) => ({ ...s, events: [...s.events, event], last: event }));
        }
        if (!controller.signal.aborted) setState((s) => ({ ...s, status: "done" }));
      } catch (error) {
        if (!controller.signal.aborted) setState((s) => ({ ...s, status: "error", error }));
      }
    };
    void run();
    return () => controller.abort();
  }, [client, analysisId]);
  return state;
}
