// The gateway's own paths take GET and HEAD only, as the contract lists them: any other method (TRACE, which
// Schemathesis sent, and the rest) answers 405 with `Allow`, as the API's own paths do, not 404.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type TestGateway } from "../../../helpers/mock.js";

let g: TestGateway;
beforeAll(async () => {
  g = await startGateway();
});
afterAll(() => g.close());

/** One request by node:http (fetch refuses TRACE): status, `Allow` and the body as JSON. */
function send(method: string, url: string): Promise<{ status: number; allow: string | undefined; body: { detail?: string } }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method }, (res) => {
      let text = "";
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode!, allow: res.headers.allow, body: JSON.parse(text || "{}") }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("methods on the gateway's own paths", () => {
  for (const path of ["/health", "/healthz", "/openapi.yaml", "/swagger.html"]) {
    it(`${path}: GET 200; TRACE, POST, PUT, PATCH, DELETE 405 with Allow: GET, HEAD`, async () => {
      expect((await fetch(g.url + path)).status).toBe(200);
      for (const method of ["TRACE", "POST", "PUT", "PATCH", "DELETE"]) {
        const res = await send(method, g.url + path);
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.allow).toBe("GET, HEAD");
        expect(res.body.detail).toBe(`${method} is not allowed on ${path}; use GET, HEAD.`);
      }
    });
  }

  it("a path that is neither the gateway's nor the API's still answers 404", async () => {
    expect((await fetch(g.url + "/elsewhere", { method: "POST" })).status).toBe(404);
  });
});
