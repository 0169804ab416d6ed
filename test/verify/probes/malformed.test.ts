// Malformed requests over a raw socket (src/verify/probes/malformed.ts, decision Y40): a control byte in a header value, a
// bad request line, a header line without a colon, each with an Origin, judged by the contract's error and CORS
// rules. The mock answers each with the declared 400 (its error body, rate-limit headers, Access-Control-Allow-Origin);
// the planted "400 without CORS" is a case of defects.test.ts (malformed-without-cors).
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { malformedRequestRefused } from "../../../src/verify/checks/malformed-request-refused.js";
import { MALFORMED_KINDS } from "../../../src/verify/probes/malformed.js";
import { parseResponse, rawReproduction, sendRaw } from "../../../src/verify/session/raw-http.js";
import { startDefectiveServer, type DefectiveServer } from "../fixtures/defective-server.js";
import { BUSINESS_KEY, listed, useMock } from "../helpers.js";
import type { Exchange } from "../../../src/verify/types.js";

const mock = useMock();
let server: DefectiveServer | null = null;
let raw: net.Server | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  await new Promise<void>((r) => (raw ? raw.close(() => r()) : r()));
  raw = null;
});

/** A TCP server that answers every connection with `answer` (or closes it at once when null). */
async function rawServer(answer: string | null): Promise<URL> {
  raw = net.createServer((s) => {
    s.on("error", () => {});
    s.once("data", () => (answer === null ? s.destroy() : s.end(answer)));
  });
  await new Promise<void>((r) => raw!.listen(0, "127.0.0.1", r));
  return new URL(`http://127.0.0.1:${(raw.address() as net.AddressInfo).port}`);
}

const exchange = (status: number, kind: "control-byte" | "request-line" | "no-colon") =>
  ({ response: { status }, malformed: { kind, mustRefuse: kind !== "control-byte" } }) as unknown as Exchange;

describe("malformed requests", () => {
  it("against the mock: each of the three is answered 400 with the contract's error body, limits and CORS: 0 violations", async () => {
    const report = await mock.run(mock.g.url, { operations: "listAnalyses" });
    expect(report.violations, listed(report)).toEqual([]);
    expect(report.checks.find((c) => c.rule === "malformed-request-refused")!.run).toBe(3);
    const cases = report.operations.find((o) => o.operationId === "listAnalyses")!;
    // response-headers ran on the 400s, so Access-Control-Allow-Origin was looked for.
    expect(cases.checks["response-headers"]!.run).toBeGreaterThanOrEqual(3);
  });

  it("the planted 400 without Access-Control-Allow-Origin: one cause, reproduced by a printf | nc line", async () => {
    server = await startDefectiveServer({ upstream: mock.g.url, defect: "malformed-without-cors", key: BUSINESS_KEY });
    // The malformed kinds alone: the input probe's control byte in a header (Y56) is a malformed request too.
    const report = await mock.run(server.url, { operations: "listAnalyses", inputBudget: 0 });
    expect(report.groups).toHaveLength(1);
    const v = report.violations[0]!;
    expect(v.message).toMatch(/lacks the required Access-Control-Allow-Origin/);
    expect(v.cases.sort()).toEqual(MALFORMED_KINDS.map((m) => m.label).sort());
    expect(v.reproduction!.curl).toMatch(/^printf 'GET \/v1\/analyses HTTP\/1\.1.*\\r\\n.*' \| nc 127\.0\.0\.1 \d+$/);
    expect(v.reproduction!.request.headers.origin).toBe("https://verify.invalid");
  });

  it("malformed-request-refused: a bad request line or a colon-less header needs 400; a control byte may be kept; 429 is inconclusive", () => {
    const check = malformedRequestRefused();
    expect(check.check(exchange(400, "request-line"))).toEqual([]);
    expect(check.check(exchange(401, "request-line"))).toEqual(["answered 401 to a bad request line; expected 400"]);
    expect(check.check(exchange(200, "no-colon"))).toEqual(["answered 200 to a header line without a colon; expected 400"]);
    expect(check.check(exchange(401, "control-byte"))).toEqual([]);
    expect(check.check(exchange(500, "control-byte"))).toEqual(["answered 500 to a control byte in a header value; expected 400"]);
    expect(check.check(exchange(429, "no-colon"))).toBeNull();
    expect(check.check({ response: { status: 200 } } as unknown as Exchange)).toBeNull();
  });

  it("a connection closed without a byte is no answer (null), and a whole answer is read without waiting for the close", async () => {
    expect(await sendRaw(await rawServer(null), Buffer.from("GET / HTTP/1.1 x\r\n\r\n"), 5_000)).toBeNull();
    await new Promise<void>((r) => raw!.close(() => r()));
    const answered = await sendRaw(await rawServer('HTTP/1.1 400 Bad Request\r\nContent-Length: 13\r\n\r\n{"detail":"x"}'), Buffer.from("GET / HTTP/1.1 x\r\n\r\n"), 5_000);
    expect(answered!.status).toBe(400);
    expect(Buffer.from(answered!.body).toString()).toBe('{"detail":"x"');
  });

  it("parseResponse reads chunked bodies and tells a whole response from a part", () => {
    const chunked = parseResponse(Buffer.from("HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"de\r\n0\r\n\r\n"));
    expect(chunked.complete).toBe(true);
    expect(Buffer.from(chunked.response.body).toString()).toBe('{"de');
    expect(parseResponse(Buffer.from("HTTP/1.1 400 Bad Request\r\nContent-Length: 10\r\n\r\nab")).complete).toBe(false);
    expect(parseResponse(Buffer.from("garbage")).response.status).toBe(0);
  });

  it("the reproduction line escapes control bytes, quotes and %", () => {
    expect(rawReproduction(new URL("http://127.0.0.1:4010"), "GET /'% HTTP/1.1\r\nX: a\x01b\r\n\r\n")).toBe(String.raw`printf 'GET /'\''%% HTTP/1.1\r\nX: a\001b\r\n\r\n' | nc 127.0.0.1 4010`);
  });
});
