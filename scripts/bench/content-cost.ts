// What completing an analysis's content costs (issue 31: under 5 ms at the 95th percentile): the mock derives each
// media analysis's transcript, speakers, signals, alerts and summary from its seed (src/mock/core/content/content.ts) when it
// completes. Measured in this process while a load run keeps the gateway (and the machine) busy, one analysis at
// a time with a turn of the event loop between, over varied ids, titles and features; the copy the store keeps
// (structuredClone) is counted, as the store clones what it inserts. Both wall time and this process's CPU time
// are kept: on a shared machine the OS preempts the loop, and the wall p95 then measures the others' load; the goal
// (p95 < 5 ms) is read on CPU time, the work's own cost, with the wall figures beside it.
import { performance } from "node:perf_hooks";
import { mediaContent } from "../../src/mock/core/content/content.js";
import { loadContract } from "../../src/mock/homes/node/contract-files.js";
import { readTemplates } from "../../src/mock/core/events/events.js";

export interface ContentCost {
  samples: number;
  /** Wall time: on a loaded machine it includes the time the OS gave other processes. */
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** CPU time of this process (user + system) over the same calls: what the work itself costs. */
  cpuP50Ms: number;
  cpuP95Ms: number;
}

const FEATURES = ["diarization", "speaker_identification", "signals", "summary"];

/** Derives analyses' content until `during` settles; the latencies' quantiles. */
export async function contentCost(during: Promise<unknown>): Promise<ContentCost> {
  const templates = readTemplates(loadContract());
  let done = false;
  void during.finally(() => (done = true));
  const ms: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; !done || ms.length < 200; i++) {
    const features = ["transcription", ...FEATURES.filter((_, k) => (i >> k) & 1)];
    const id = `anl_01BENCH${String(i).padStart(17, "0")}`;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    structuredClone(mediaContent(templates, { seed: id, analysisId: id, title: `Call ${i} with Northwind`, features }));
    ms.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
    await new Promise((r) => setImmediate(r));
  }
  const q = (xs: number[], p: number) => xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
  return { samples: ms.length, p50Ms: q(ms, 0.5), p95Ms: q(ms, 0.95), maxMs: q(ms, 1), cpuP50Ms: q(cpu, 0.5), cpuP95Ms: q(cpu, 0.95) };
}
