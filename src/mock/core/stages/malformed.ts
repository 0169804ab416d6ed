// Stage `malformed`: a request RFC 9112 §3.2 says to refuse answers 400 and closes: an HTTP/1.1 request without
// Host, or any request with more than one Host header. node:http would refuse the first with a bare 400 and take
// the second; both are let through (requireHostHeader: false) so the answer has the contract's body. Such a request
// has no workspace and its path cannot be trusted: it is counted in the anonymous bucket of its address and carries
// that bucket's headers, or is its 429 (decision G26).
import { json } from "../http/reply.js";
import type { Stage, StageFactory } from "../pipeline/stage.js";
import { countAnonymous, unavailable, type Counted } from "../access/rate-answers.js";

export const malformed: StageFactory = (s) => refuseMalformed(countAnonymous(s));

/**
 * Proxy mode: the same refusals, counted nowhere and without rate-limit headers: the proxy keeps no limits (the
 * backend does), so it has no bucket to tell of.
 */
export const malformedUncounted: StageFactory = () => refuseMalformed(null);

function refuseMalformed(count: ((address: string | undefined) => Counted | Promise<Counted>) | null): Stage {
  return function malformed(ctx) {
    const hosts = hostHeaders(ctx.req.rawHeaders);
    const problem =
      hosts > 1
        ? "Malformed HTTP request: send one Host header; this request has several."
        : hosts === 0 && ctx.req.httpVersion === "1.1"
          ? "Malformed HTTP request: an HTTP/1.1 request needs a Host header."
          : null;
    if (!problem) return undefined;
    const close = { Connection: "close" };
    if (!count) return json(400, { detail: problem }, close);
    const c = count(ctx.req.socket.remoteAddress);
    const answer = ({ rate, refused }: Counted) => {
      ctx.rate = rate;
      return refused ? { ...refused, headers: { ...refused.headers, ...close } } : json(400, { detail: problem }, close, rate);
    };
    return c instanceof Promise ? c.then(answer, unavailable) : answer(c);
  };
}

/** How many Host header lines a request has (from the raw list: no object of all headers built on every request). */
function hostHeaders(raw: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === "host") n++;
  return n;
}
