// The files a report's download_url points at (stages/files.ts, decision SH13): the link is signed and expires, and
// the signature is checked before any work, so a request without credentials never loads or creates a workspace
// (issue 29: 1,000 requests for /__files/ws_<new>/… filled --max-workspaces and locked every new tenant out).
import type { SimulatedClock } from "../../../../src/mock/core/clock/simulated.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, contract, freshKey, startStateful, STEP_MS, type TestGateway } from "../../../helpers/mock.js";

let g: TestGateway & { clock: SimulatedClock };
const tenants = [freshKey("pro"), freshKey("pro")];
beforeAll(async () => {
  g = await startStateful({ limits: { workspaces: 3 }, extraKeys: tenants });
});
afterAll(() => g.close());

const report = async (key: string) => {
  const created = await call(g.url, "POST", "/v1/reports", { key, body: { ...structuredClone(contract.doc.components.examples.ReportCreate.value), format: "pdf" } });
  expect(created.status).toBe(202);
  for (let i = 0; i < 8; i++) g.clock.advance(STEP_MS);
  return (await call(g.url, "GET", `/v1/reports/${created.body.id}`, { key })).body;
};

describe("/__files/ links", () => {
  it("serve the report with their signature, and refuse one altered, unsigned or expired", async () => {
    const rep = await report(tenants[0]!.key);
    const url = new URL(rep.download_url);
    expect(url.searchParams.get("signature")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Number(url.searchParams.get("expires")) * 1000).toBe(Date.parse(rep.download_expires_at));
    expect((await fetch(url)).status).toBe(200);
    const altered = new URL(url);
    altered.searchParams.set("signature", "A".repeat(43));
    expect((await fetch(altered)).status).toBe(404);
    expect((await fetch(`${url.origin}${url.pathname}`)).status).toBe(404);
    const later = new URL(url);
    later.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 3600));
    expect((await fetch(later)).status).toBe(404);
    g.clock.set(Date.parse(rep.download_expires_at) + 1000);
    expect((await fetch(url)).status).toBe(404);
  });

  it("an answer holding such a link says where it differs from the contract's HTTPS link (X-Mock-Notice)", async () => {
    const rep = await report(tenants[0]!.key);
    expect(rep.download_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/__files\//);
    const one = await call(g.url, "GET", `/v1/reports/${rep.id}`, { key: tenants[0]!.key });
    expect(one.headers.get("x-mock-notice")).toMatch(/download_url is plain http:\/\/ on this mock's loopback address.*HTTPS/);
    const page = await call(g.url, "GET", "/v1/reports", { key: tenants[0]!.key });
    expect(page.headers.get("x-mock-notice")).toBe(one.headers.get("x-mock-notice"));
    expect((await call(g.url, "GET", "/v1/boards", { key: tenants[0]!.key })).headers.get("x-mock-notice")).toBeNull();
  });

  it("a flood of unsigned links to new workspaces costs nothing: no workspace is made, tenants still get in", async () => {
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${g.url}/__files/ws_Flood${String(i).padStart(8, "0")}/reports/rpt_01HZX000000000000000000${String(i).padStart(3, "0")}.pdf`);
      expect(res.status).toBe(404);
    }
    const r = await call(g.url, "GET", "/v1/boards", { key: tenants[1]!.key });
    expect(r.status).toBe(200);
  });
});
