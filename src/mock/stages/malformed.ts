// Stage `malformed`: an HTTP/1.1 request without Host (RFC 9112 §3.2) answers 400 and closes. node:http would
// refuse it with a bare 400; it is let through (requireHostHeader: false) so the answer has the contract's body.
import { json } from "../http/reply.js";
import type { StageFactory } from "../stage.js";

export const malformed: StageFactory = () =>
  function malformed(ctx) {
    if (ctx.req.httpVersion === "1.1" && ctx.req.headers.host === undefined) {
      return json(400, { detail: "Malformed HTTP request: an HTTP/1.1 request needs a Host header." }, { Connection: "close" });
    }
    return undefined;
  };
