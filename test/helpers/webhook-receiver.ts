// A webhook receiver on loopback for the sandbox's tests: counts `analysis.completed` deliveries per
// `workspace/analysis` (pg-lifecycle.test.ts, rolling-restart.test.ts).
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface CompletedReceiver {
  /** `workspace/analysis` → how many distinct `analysis.completed` events it had (a redelivery of one event id counts once). */
  deliveries: Map<string, number>;
  url: () => string;
  close: () => void;
}

export async function completedReceiver(): Promise<CompletedReceiver> {
  const deliveries = new Map<string, number>();
  // A receiver deduplicates on the event's `id`, as the contract tells it to (spec/webhooks/analysis.completed.yaml):
  // a delivery made again after a replica died before marking it made (SB23: at least once) is the same event.
  const seen = new Set<string>();
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c));
    req.on("end", () => {
      const event = JSON.parse(body) as { id?: string; type: string; workspace_id: string; data?: { analysis?: { id: string } } };
      const id = `${event.workspace_id}/${event.data?.analysis?.id}`;
      const again = event.id !== undefined && seen.has(event.id);
      if (event.id !== undefined) seen.add(event.id);
      if (event.type === "analysis.completed" && !again) deliveries.set(id, (deliveries.get(id) ?? 0) + 1);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { deliveries, url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, close: () => server.close() };
}
