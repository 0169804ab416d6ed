// Form bodies by media type (src/client/forms.ts, the generated types): a consumer's code, with no casts, that
// type-checks (tsc covers test/) and runs against the mock over HTTP: a FormData upload, an object upload with a
// Blob, and object-bodied OAuth calls sent urlencoded with no header set by hand.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type ApiClient } from "../../src/client/index.js";
import { freshKey, startGateway, type TestGateway } from "../helpers/mock.js";

let g: TestGateway;
let client: ApiClient;
const key = freshKey("business");
beforeAll(async () => {
  g = await startGateway({ extraKeys: [key] });
  client = createClient({ baseUrl: g.url, apiKey: key.key });
});
afterAll(() => g.close());

/** Never called: only compiled. */
async function mistakes(c: ApiClient) {
  // @ts-expect-error: the file part is a Blob or File, not a string
  await c.POST("/v1/analyses/upload", { body: { file: "hello" } });
  // @ts-expect-error: the file part is required
  await c.POST("/v1/analyses/upload", { body: { title: "No file" } });
  // @ts-expect-error: grant_type is a closed set
  await c.POST("/v1/oauth/token", { body: { grant_type: "password", client_id: "app" } });
}
void mistakes;

describe("form bodies by media type", () => {
  it("a FormData upload", async () => {
    const form = new FormData();
    form.append("file", new Blob(["Hello from a form."], { type: "text/plain" }), "note.txt");
    form.append("title", "Form upload");
    const { data, response } = await client.POST("/v1/analyses/upload", { body: form });
    expect(response.status).toBe(202);
    expect(data?.title).toBe("Form upload");
  });

  it("an object upload: a Blob is the file part, an array one part per item, an object its JSON", async () => {
    const file = new File(["Hello from an object."], "object.txt", { type: "text/plain" });
    const { data, error, response } = await client.POST("/v1/analyses/upload", {
      body: { file, title: "Object upload", features: ["transcription", "summary"], metadata: { team: "support" } },
    });
    expect([response.status, error]).toEqual([202, undefined]);
    expect(data?.title).toBe("Object upload");
    expect(data?.features).toEqual(["transcription", "summary"]);
    expect(data?.metadata).toEqual({ team: "support" });
    expect(data?.source).toMatchObject({ filename: "object.txt" });
  });

  it("object-bodied OAuth token and revoke calls, sent urlencoded without a hand-set Content-Type", async () => {
    const token = await client.POST("/v1/oauth/token", { body: { grant_type: "client_credentials", client_id: "northwind-crm-connector" } });
    expect(token.response.status).toBe(200);
    const access = token.data?.access_token;
    expect(typeof access).toBe("string");
    const revoked = await client.POST("/v1/oauth/revoke", { body: { token: access ?? "", token_type_hint: "access_token" } });
    expect(revoked.response.status).toBe(200);
  });
});
