// The one MSW route of a simulation, given msw's `http` (msw.ts imports it; simulation.ts loads it on first use,
// msw being an optional peer): every request to its base URL, whatever the method or path, to `sim.fetch`.
import type { HttpHandler, http as MswHttp } from "msw";

export function handlersWith(http: typeof MswHttp, sim: { baseUrl: string; fetch: (request: Request) => Promise<Response> }): HttpHandler[] {
  return [http.all(`${sim.baseUrl}/*`, ({ request }) => sim.fetch(request))];
}
