// The body size limits (the JSON limit derived from the contract, DEFAULT_MAX_BODY_BYTES for forms and multipart,
// MAX_UPLOAD_BYTES for raw uploads):
// a body over the limit answers 400 with the contract's error body, at once when its Content-Length says so and
// as soon as the limit is passed when it is streamed, and the connection is closed so the rest is never read or
// buffered. Exactly the limit is still accepted.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MAX_BODY_BYTES, MAX_UPLOAD_BYTES } from "../../../../src/mock/index.js";
import { RequestValidator } from "../../../../src/mock/core/contract/validation.js";
import { freshKey, schemaErrors, startGateway, type TestGateway } from "../../../helpers/mock.js";
import { header, keepAliveAgent, rawExchange, rawRequest, type RawResponse } from "../../../helpers/robustness/http.js";
import { ContractOracle } from "../../../helpers/robustness/oracle.js";

const key = freshKey("business");
let g: TestGateway;
let small: TestGateway;
let oracle: ContractOracle;
/** Requests sent with it do not ask for Connection: close themselves, so a `close` in the answer is the gateway's. */
const keepAlive = keepAliveAgent();
const SMALL = 1024;

beforeAll(async () => {
  g = await startGateway({ extraKeys: [key] });
  small = await startGateway({ extraKeys: [key], maxBodyBytes: SMALL });
  oracle = new ContractOracle(g.gateway.contract);
  await g.gateway.ready;
});
afterAll(async () => {
  keepAlive.destroy();
  await g.close();
  await small.close();
});

const auth: Array<[string, string]> = [["X-API-Key", key.key]];
const jsonHeaders: Array<[string, string]> = [...auth, ["Content-Type", "application/json"]];
const MIB = 1024 ** 2;
/** The JSON limit of the contract: 12 bytes for each of the 500,000 characters of `AnalysisCreate.text`, + 1 MiB. */
const JSON_LIMIT = 7 * MIB;

/**
 * Streams `total` bytes of `chunk` (chunked) and records how much had been written when the answer came and
 * whether the server then closed the connection.
 */
function streamUntilAnswered(base: string, path: string, headers: Array<[string, string]>, total: number): Promise<{ res: RawResponse; sentBeforeAnswer: number; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const req = http.request({ host: url.hostname, port: url.port, method: "POST", path, headers: Object.fromEntries([...headers, ["Transfer-Encoding", "chunked"]]) });
    const chunk = Buffer.alloc(1 << 20, "a");
    let sent = 0;
    let sentBeforeAnswer = -1;
    let answered = false;
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    req.on("error", () => {}); // EPIPE/ECONNRESET once the server has closed: expected
    req.on("response", (res) => {
      answered = true;
      sentBeforeAnswer = sent;
      const body: Buffer[] = [];
      res.on("data", (c: Buffer) => body.push(c));
      res.on("end", () => {
        const headersOut: Array<[string, string]> = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) headersOut.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!]);
        const out = { status: res.statusCode!, headers: headersOut, body: Buffer.concat(body), closed: true };
        // The server must close the connection itself (it stops reading); `close` comes without our destroying it.
        const timer = setTimeout(() => resolve({ res: out, sentBeforeAnswer, closed: false }), 2000);
        req.socket?.once("close", () => {
          clearTimeout(timer);
          resolve({ res: out, sentBeforeAnswer, closed: true });
        });
        if (req.socket?.destroyed) {
          clearTimeout(timer);
          resolve({ res: out, sentBeforeAnswer, closed: true });
        }
      });
    });
    req.setTimeout(30_000, () => reject(new Error("no answer while streaming")));
    pump();
  });
}

function expectTooLarge(res: RawResponse, method: string, path: string, limitText: string) {
  expect(res.status).toBe(400);
  const body = JSON.parse(res.body.toString());
  expect(schemaErrors("Error", body)).toEqual([]);
  expect(body.detail).toBe(`Request body is larger than the mock accepts (${limitText}).`);
  expect(header(res, "connection")).toBe("close");
  expect(oracle.check(method, path, res)).toEqual([]); // declared status, rate-limit headers
}

describe("body size limits", () => {
  it("documents 7 MiB for JSON (derived from the contract), 64 MiB for forms and multipart, 2 GiB for raw uploads", () => {
    expect(new RequestValidator(g.gateway.contract).maxJsonBodyBytes).toBe(JSON_LIMIT);
    expect(DEFAULT_MAX_BODY_BYTES).toBe(64 * MIB);
    expect(MAX_UPLOAD_BYTES).toBe(2 * 1024 ** 3);
  });

  it("reads the largest JSON request the contract allows: 500,000 characters, each escaped as a surrogate pair", async () => {
    // As Python's json.dumps writes it by default (ensure_ascii): 12 bytes per emoji.
    const escape = (json: string) => json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    const body = (n: number) => Buffer.from(escape(JSON.stringify({ media_type: "text", title: "Longest text", text: "😀".repeat(n) })));
    const largest = body(500_000);
    expect(largest.length).toBeGreaterThan(6_000_000);
    const ok = await rawRequest(new URL(g.url), { method: "POST", path: "/v1/analyses", headers: jsonHeaders, body: largest, timeoutMs: 30_000 });
    expect(ok.status).toBe(202);
    const tooLong = await rawRequest(new URL(g.url), { method: "POST", path: "/v1/analyses", headers: jsonHeaders, body: body(500_001), timeoutMs: 30_000 });
    expect(tooLong.status).toBe(422); // read, then refused by the contract's maxLength, not by its size
  }, 60_000);

  it("refuses a declared Content-Length over the JSON limit at once, without waiting for the body", async () => {
    // Only 10 bytes of the declared length are sent; rawRequest waits for the answer without sending more.
    const res = await rawRequest(new URL(g.url), { method: "POST", path: "/v1/speakers", headers: jsonHeaders, body: Buffer.from('{"name":"x'), declaredLength: JSON_LIMIT + 1, timeoutMs: 5000 });
    expectTooLarge(res, "POST", "/v1/speakers", "7 MiB");
  });

  it("refuses a declared multipart Content-Length over 64 MiB at once, and reads one over the JSON limit", async () => {
    const multipart: Array<[string, string]> = [...auth, ["Content-Type", "multipart/form-data; boundary=b0undary"]];
    const refused = await rawRequest(new URL(g.url), { method: "POST", path: "/v1/analyses/upload", headers: multipart, body: Buffer.from("--b0undary\r\n"), declaredLength: DEFAULT_MAX_BODY_BYTES + 1, timeoutMs: 5000 });
    expectTooLarge(refused, "POST", "/v1/analyses/upload", "64 MiB");
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(JSON_LIMIT + MIB)], { type: "audio/mpeg" }), "call.mp3");
    const encoded = new Response(form);
    const body = Buffer.from(await encoded.arrayBuffer());
    const ok = await rawRequest(new URL(g.url), { method: "POST", path: "/v1/analyses/upload", headers: [...auth, ["Content-Type", encoded.headers.get("content-type")!]], body, timeoutMs: 30_000 });
    expect(ok.status).toBe(202);
  }, 60_000);

  it("refuses a streamed (chunked) JSON body as soon as it passes the JSON limit, then closes instead of reading on", async () => {
    const total = 1024 * MIB; // the client would send 1 GiB if the gateway kept reading
    const { res, sentBeforeAnswer, closed } = await streamUntilAnswered(g.url, "/v1/speakers", jsonHeaders, total);
    expectTooLarge(res, "POST", "/v1/speakers", "7 MiB");
    expect(sentBeforeAnswer).toBeGreaterThan(JSON_LIMIT);
    expect(sentBeforeAnswer).toBeLessThan(JSON_LIMIT + 32 * MIB); // socket buffers, not the whole GiB
    expect(closed).toBe(true);
  }, 60_000);

  it("refuses a raw upload declared over 2 GiB at once", async () => {
    const path = "/v1/analysis/stream-upload?media_type=audio";
    const res = await rawRequest(new URL(g.url), { method: "POST", path, headers: [...auth, ["Content-Type", "application/octet-stream"]], body: Buffer.from("RIFF"), declaredLength: MAX_UPLOAD_BYTES + 1, timeoutMs: 5000 });
    expectTooLarge(res, "POST", path, "2048 MiB");
  });

  it("takes exactly the limit and refuses one byte more, declared or streamed (configured limit of 1 KiB)", async () => {
    const base = new URL(small.url);
    const exactly = Buffer.from(JSON.stringify({ name: "x".repeat(SMALL - 11) }));
    expect(exactly.length).toBe(SMALL);
    const over = Buffer.concat([exactly, Buffer.from(" ")]);
    for (const chunked of [false, true]) {
      const ok = await rawRequest(base, { method: "POST", path: "/v1/speakers", headers: jsonHeaders, body: exactly, chunked });
      expect(ok.status, `exactly ${SMALL} bytes${chunked ? ", chunked" : ""}`).toBe(422); // read and validated: the name is too long
      const refused = await rawRequest(base, { method: "POST", path: "/v1/speakers", headers: jsonHeaders, body: over, chunked });
      expectTooLarge(refused, "POST", "/v1/speakers", `${SMALL} bytes`);
    }
  });

  it("refuses a body of a content type the operation does not take at once, before reading it, and closes", async () => {
    const GIB = 1024 ** 3;
    const cases: Array<[string, string, string]> = [
      ["/v1/speakers", "text/plain", "application/json"],
      ["/v1/speakers", "application/octet-stream", "application/json"],
      ["/v1/speakers", "multipart/form-data; boundary=b0undary", "application/json"],
      ["/v1/analyses/upload", "application/json", "multipart/form-data"],
      ["/v1/analysis/stream-upload?media_type=audio", "text/plain", "application/octet-stream"],
    ];
    for (const [path, contentType, accepted] of cases) {
      // 300 MiB, then 1 GiB declared: only 10 bytes are sent, and the answer must not wait for the rest.
      for (const declared of [300 * MIB, GIB]) {
        const res = await rawRequest(new URL(g.url), { method: "POST", path, headers: [...auth, ["Content-Type", contentType]], body: Buffer.from("0123456789"), declaredLength: declared, timeoutMs: 5000 }, keepAlive);
        expect(res.status, `${contentType} to ${path}`).toBe(400);
        expect(JSON.parse(res.body.toString()).detail).toBe(`Content-Type ${contentType.split(";")[0]} is not accepted here; send ${accepted}.`);
        expect(header(res, "connection")).toBe("close");
        expect(oracle.check("POST", path, res)).toEqual([]);
      }
    }
    const none = await rawRequest(new URL(g.url), { method: "POST", path: "/v1/speakers", headers: auth, body: Buffer.from("{}"), declaredLength: GIB, timeoutMs: 5000 });
    expect([none.status, JSON.parse(none.body.toString()).detail]).toEqual([400, "Content-Type (none) is not accepted here; send application/json."]);
  });

  it("refuses a streamed text/plain body at once: the gateway reads none of it", async () => {
    const { res, sentBeforeAnswer, closed } = await streamUntilAnswered(g.url, "/v1/speakers", [...auth, ["Content-Type", "text/plain"]], 300 * MIB);
    expect(res.status).toBe(400);
    expect(sentBeforeAnswer).toBeLessThan(32 * MIB); // socket buffers at most, never the 300 MiB
    expect(closed).toBe(true);
  }, 60_000);

  it("refuses a body sent to an operation that takes none, at once, whatever its length", async () => {
    for (const [method, path] of [["GET", "/v1/analyses"], ["DELETE", "/v1/speakers/spk_01HZX4A9B7C5D3E1F2G4H6J8K0"], ["GET", "/v1/billing/plan"]] as const) {
      const res = await rawRequest(new URL(g.url), { method, path, headers: [...auth, ["Content-Type", "application/json"]], body: Buffer.from("{}"), declaredLength: 1024 ** 3, timeoutMs: 5000 }, keepAlive);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(JSON.parse(res.body.toString()).detail).toMatch(/takes no request body/);
      expect(header(res, "connection")).toBe("close");
      expect(oracle.check(method, path, res)).toEqual([]);
    }
    // An empty body is no body: a chunked one that ends at once is taken, and so is Content-Length: 0.
    const empty = await rawRequest(new URL(g.url), { method: "GET", path: "/v1/analyses", headers: auth, body: Buffer.alloc(0), chunked: true });
    expect(empty.status).toBe(200);
    const zero = await rawRequest(new URL(g.url), { method: "GET", path: "/v1/billing/plan", headers: [...auth, ["Content-Length", "0"]] });
    expect(zero.status).toBe(200);
  });

  it("answers Expect: 100-continue with the refusal itself, never inviting a body it would not read", async () => {
    const base = new URL(g.url);
    const head = (lines: string[]) => Buffer.from([...lines, `Host: ${base.host}`, `X-API-Key: ${key.key}`, "Expect: 100-continue", "Content-Length: 1073741824", "", ""].join("\r\n"));
    const refused = await rawExchange(base, head(["POST /v1/speakers HTTP/1.1", "Content-Type: text/plain"]));
    expect(refused?.status).toBe(400);
    const anonymous = await rawExchange(base, Buffer.from(head(["POST /v1/speakers HTTP/1.1", "Content-Type: application/json"]).toString().replace(/X-API-Key: .*\r\n/, "")));
    expect(anonymous?.status).toBe(401);
  });

  it("closes a connection whose body was never read, whatever answered first (401 here), instead of reading it to the end", async () => {
    const res = await rawRequest(new URL(g.url), { method: "POST", path: "/v1/speakers", headers: [["Content-Type", "application/json"]], body: Buffer.from('{"name":'), declaredLength: 1024 ** 3, timeoutMs: 5000 }, keepAlive);
    expect(res.status).toBe(401);
    expect(header(res, "connection")).toBe("close");
  });

  it("keeps serving on the same gateway afterwards", async () => {
    const res = await rawRequest(new URL(g.url), { method: "GET", path: "/v1/analyses", headers: auth });
    expect(res.status).toBe(200);
  });
});
