// The consumer the type-cost and toolchain figures type-check: an integrator's file calling ten operations of the
// contract and narrowing their results the way application code does. `npm run bench` checks it with its own
// tsconfig (tsc --noEmit --extendedDiagnostics) against the client's emitted declarations, as a package consumer
// sees them, for the real contract and for grown copies of it; and, for comparison, a copy whose client block is
// replaced by bare openapi-fetch (scripts/bench/toolchain/toolchain.ts, BARE_CLIENT). It is never run.
// --- client ---
import { createClient } from "../../../../src/index.js";

const api = createClient({ baseUrl: "http://127.0.0.1:4010", apiKey: "pk_test_demo_pro" });
// --- end client ---

const analysisId = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0";

export async function consumer(): Promise<string[]> {
  const seen: string[] = [];

  const list = await api.GET("/v1/analyses", { params: { query: { limit: 20, status: "completed" } } });
  if (list.data) seen.push(...list.data.data.map((a) => a.id));

  const created = await api.POST("/v1/analyses", { body: { media_type: "text", text: "Hello there." } });
  if (created.data) seen.push(created.data.id);

  const one = await api.GET("/v1/analyses/{analysis_id}", { params: { path: { analysis_id: analysisId } } });
  if (one.error) seen.push(String(one.error.detail));
  else seen.push(one.data.status);

  const transcript = await api.GET("/v1/analyses/{analysis_id}/transcript", { params: { path: { analysis_id: analysisId } } });
  if (transcript.data) seen.push(transcript.data.text);

  const speakers = await api.GET("/v1/speakers", { params: { query: { limit: 5 } } });
  if (speakers.data) seen.push(...speakers.data.data.map((s) => s.name));

  const speaker = await api.POST("/v1/speakers", { body: { name: "Dana Whitfield" } });
  if (speaker.data) seen.push(speaker.data.id);

  const answer = await api.POST("/v1/query", { body: { question: "Why did customers ask for refunds?" } });
  if (answer.data) seen.push(answer.data.answer);

  const board = await api.PATCH("/v1/boards/{board_id}", {
    params: { path: { board_id: "brd_01HZX4A9B7C5D3E1F2G4H6J8K0" } },
    body: { name: "Retention overview" },
  });
  if (board.data) seen.push(board.data.name);

  const usage = await api.GET("/v1/billing/usage");
  if (usage.data) seen.push(usage.data.plan);

  const removed = await api.DELETE("/v1/speakers/{speaker_id}", { params: { path: { speaker_id: "spk_01HZX4A9B7C5D3E1F2G4H6J8K0" } } });
  seen.push(String(removed.response.status));

  return seen;
}
