// Fair shares of connections (issue 29 item 9, decision SH14 in docs/decisions/edge.md): one client address holds at most a
// share of --max-connections, so 150 idle sockets from one address leave room for /health and for everyone else;
// and a connection with no request in progress is closed at the documented time (--connection-idle-ms, 60 s).
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { getJson, startGateway, type TestGateway } from "../../../helpers/mock.js";

const open: TestGateway[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const g of open.splice(0)) await g.close();
});

/** An idle connection from `from`: resolves once connected, with what it received until it closed (if it did). */
function idle(port: number, from: string): Promise<{ socket: net.Socket; closed: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: "127.0.0.1", localAddress: from });
    sockets.push(socket);
    let got = "";
    const closed = new Promise<string>((r) => socket.on("data", (c) => (got += c)).on("close", () => r(got)));
    socket.once("error", () => {}); // a refused one is closed by the gateway; `closed` says what it got
    socket.once("connect", () => resolve({ socket, closed }));
    socket.once("error", reject);
  });
}

/** /health through a socket from `from` (fetch cannot choose its local address). */
function health(port: number, from: string): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: "127.0.0.1", localAddress: from }, () => s.write("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    sockets.push(s);
    let got = "";
    s.on("data", (c) => (got += c)).on("close", () => resolve(got)).on("error", () => resolve(got));
  });
}

describe("connections: a fair share per address, idle ones closed", () => {
  it("150 idle sockets from one address with --max-connections 150: /health from another address answers 200", async () => {
    const g = await startGateway({ limits: { connections: 150 } });
    open.push(g);
    const port = Number(new URL(g.url).port);
    const idles = await Promise.all(Array.from({ length: 150 }, () => idle(port, "127.0.0.1")));
    // Half of them (the default share, 50%) are refused at once with the contract's 503.
    const refused = await Promise.race([Promise.all(idles.slice(75).map((i) => i.closed)), new Promise<string[]>((r) => setTimeout(() => r([]), 5000))]);
    expect(refused.length).toBe(75);
    for (const text of refused) {
      expect(text).toMatch(/^HTTP\/1\.1 503 /);
      expect(text).toContain('"error":"capacity_exceeded"');
      expect(text).toContain("--address-connection-share 50%");
    }
    expect(await health(port, "127.0.0.2")).toMatch(/^HTTP\/1\.1 200 /);
    expect((await getJson(`${g.url}/v1/analyses`, { headers: { "X-API-Key": "pk_test_demo_pro" } })).status).toBe(503); // fetch comes from 127.0.0.1, whose share is taken
  }, 30_000);

  it("a connection with no request in progress is closed after --connection-idle-ms", async () => {
    const g = await startGateway({ limits: { connectionIdleMs: 300 } });
    open.push(g);
    const port = Number(new URL(g.url).port);
    const { closed } = await idle(port, "127.0.0.1");
    const got = await Promise.race([closed, new Promise<string>((r) => setTimeout(() => r("still open"), 5000))]);
    expect(got).toBe("");
  });
});

describe("answers node:http gives by itself", () => {
  it("a request the HTTP parser refuses (a control byte in a header) answers 400 with the CORS header and the contract's body", async () => {
    const g = await startGateway();
    open.push(g);
    const port = Number(new URL(g.url).port);
    const text = await new Promise<string>((resolve) => {
      const s = net.connect({ port, host: "127.0.0.1" }, () => s.write("GET /v1/analyses HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n"));
      sockets.push(s);
      let got = "";
      s.on("data", (c) => (got += c)).on("close", () => resolve(got)).on("error", () => resolve(got));
    });
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).toMatch(/\r\nAccess-Control-Allow-Origin: \*\r\n/i);
    expect(JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4))).toMatchObject({ detail: "Malformed HTTP request." });
  });
});
