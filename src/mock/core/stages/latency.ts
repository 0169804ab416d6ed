// Stage `latency` (MOCK_LATENCY_MS, --latency, option `latencyMs`): holds every answer under /v1, /aria and /ws
// for a fixed time or a time drawn uniformly from a range, so a frontend sees its loading states. Placed after
// `apiPrefix`, so health, documentation and CORS preflights answer at once; in the pipeline only when set.
import type { StageFactory } from "../pipeline/stage.js";

export const latency: StageFactory = (s) => {
  const [lo, hi] = s.settings.latency!;
  const sleep = s.settings.sleep;
  return async function latency() {
    await sleep(lo + Math.floor(Math.random() * (hi - lo + 1)));
    return undefined;
  };
};
