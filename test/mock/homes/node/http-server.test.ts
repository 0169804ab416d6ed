// The node:http server's header deadline (docs/limits.md: headers within 60 s, else 408), counted from the
// connection's first byte: a client sending a header line every so often cannot extend it (issue 47: 86.6 s).
import net from "node:net";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createHttpServer } from "../../../../src/mock/homes/node/http-server.js";

describe("the header deadline", () => {
  it("partial headers, a line every 200 ms, are answered 408 at the deadline, not extended by each line", async () => {
    const deadlineMs = 1_500;
    const server = createHttpServer({ request: (_q, r) => r.end("ok"), upgrade: async () => {}, headersTimeoutMs: deadlineMs });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    try {
      const socket = net.connect(port, "127.0.0.1");
      let answer = "";
      socket.on("data", (d) => (answer += d));
      socket.on("error", () => {});
      const closed = new Promise<void>((r) => socket.once("close", () => r()));
      socket.write("GET /v1/x HTTP/1.1\r\nHost: a\r\n");
      // Lines are sent, not timed: 100 lines every 200 ms is 20 s, over ten times the deadline; the deadline is
      // met when the 408 comes before the client ran out of lines.
      let lines = 0;
      const drip = setInterval(() => {
        if (socket.destroyed) return clearInterval(drip);
        if (lines >= 100) return socket.destroy(); // never answered: the deadline was extended
        socket.write(`X-Slow-${lines++}: 1\r\n`);
      }, 200);
      await closed;
      clearInterval(drip);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(lines).toBeLessThan(100);
    } finally {
      server.close();
    }
  }, 60_000);
});
