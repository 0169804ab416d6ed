// The client's opt-in `validate` option with `responseValidator()` of `@avt/api-contract/zod` (issue 45, finding 3):
// a response body that does not match its operation's schema makes the call throw, naming the operation and the
// JSON path; a right response passes; without the option the same wrong body is returned as it is.
import { describe, expect, it } from "vitest";
import { createClient } from "../../src/client/index.js";
import { createSimulation } from "../../src/mock/index.js";
import { ResponseValidationError, responseValidator } from "../../src/zod/index.js";

/** The simulation, with the body of `GET /v1/analyses` rewritten by `spoil` (a server that drifted from the contract). */
function drifted(spoil: (body: any) => void) {
  const sim = createSimulation({ seed: 7 });
  const fetch = async (input: Request, init?: RequestInit) => {
    const res = await sim.fetch(input, init);
    if (input.method !== "GET" || !new URL(input.url).pathname.endsWith("/v1/analyses")) return res;
    const body = await res.json();
    spoil(body);
    return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
  };
  return { sim, fetch };
}

const MEDIA = { media_url: "https://media.example.com/calls/q4-review.mp3", media_type: "audio" } as const;

describe("createClient({ validate: responseValidator() })", () => {
  it("throws a ResponseValidationError naming the operation and the JSON path of a wrong response", async () => {
    const { sim, fetch } = drifted((body) => (body.data[0].status = "exploded"));
    const api = createClient({ baseUrl: sim.baseUrl, apiKey: sim.keys.pro, fetch, retry: false, validate: responseValidator() });
    try {
      await api.POST("/v1/analyses", { body: MEDIA });
      const error = await api.GET("/v1/analyses").then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ResponseValidationError);
      expect(error).toMatchObject({ operationId: "listAnalyses", status: 200, path: ["data", 0, "status"] });
      expect((error as Error).message).toMatch(/^listAnalyses: the 200 response's body does not match the contract at \/data\/0\/status: /);
    } finally {
      await sim.close();
    }
  });

  it("passes right responses (a create, a read, a list, an error body) through unchanged", async () => {
    const sim = createSimulation({ seed: 7 });
    const api = createClient({ baseUrl: sim.baseUrl, apiKey: sim.keys.pro, fetch: sim.fetch, retry: false, validate: responseValidator() });
    try {
      const created = await api.POST("/v1/analyses", { body: MEDIA });
      expect(created.response.status).toBe(202);
      const id = created.data!.id;
      expect((await api.GET("/v1/analyses/{analysis_id}", { params: { path: { analysis_id: id } } })).data?.id).toBe(id);
      expect((await api.GET("/v1/analyses")).data?.data.map((a) => a.id)).toContain(id);
      const missing = await api.GET("/v1/analyses/{analysis_id}", { params: { path: { analysis_id: "anl_0000000000000000" } } });
      expect(missing.response.status).toBe(404);
      expect(missing.error).toBeDefined();
    } finally {
      await sim.close();
    }
  });

  it("is off by default: the same wrong body is returned as it is", async () => {
    const { sim, fetch } = drifted((body) => (body.data[0].status = "exploded"));
    const api = createClient({ baseUrl: sim.baseUrl, apiKey: sim.keys.pro, fetch, retry: false });
    try {
      await api.POST("/v1/analyses", { body: MEDIA });
      expect((await api.GET("/v1/analyses")).data?.data[0]?.status).toBe("exploded");
    } finally {
      await sim.close();
    }
  });
});
