// What Schemathesis found where the mock answered 422 to requests the contract allows: an e-mail address whose
// domain has no dot (`format: email` takes it), and an upload of zero bytes to a raw-bytes body with no `minLength`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKey, startGateway, type TestGateway } from "../../../helpers/mock.js";

let g: TestGateway;
beforeAll(async () => {
  g = await startGateway();
});
afterAll(() => g.close());

const post = (path: string, body: BodyInit, type: string) => fetch(g.url + path, { method: "POST", headers: { ...apiKey("pk_test_demo_business"), "Content-Type": type }, body });

describe("requests the contract allows are not refused", () => {
  it("format: email takes an address whose domain has no dot (0@com), and still refuses one without @", async () => {
    const erase = (email: string) => post("/v1/privacy/deletions", JSON.stringify({ subject: { type: "email", email }, scope: "all", reason: "test" }), "application/json");
    const ok = await erase("0@com");
    expect(ok.status, await ok.text()).toBe(202);
    const bad = await erase("not-an-address");
    expect(bad.status).toBe(422);
    expect(JSON.stringify(await bad.json())).toContain("email");
  });

  it("an upload of zero bytes to the raw stream upload (no minLength) is taken, not 422", async () => {
    const res = await post("/v1/analysis/stream-upload?media_type=audio", new Uint8Array(0), "application/octet-stream");
    expect(res.status, await res.clone().text()).toBe(202);
  });
});
