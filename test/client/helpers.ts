// Test doubles for the client: a fake clock (no real sleeps), a scripted fetch, and readers of the
// contract's own error examples (from generated/openapi.json, never retyped).
import { createClient, type ClientOptions, type Timers } from "../../src/client/index.js";
import { deref, doc } from "../helpers/contract.js";
// The write path, which the client loads with import() on a first POST, PUT or PATCH (decision C9), imported here
// up front as a page has it once loaded: under vitest a first import() transforms the file, which outlasts the fake
// clock's waits (untilTimer). The client still takes it through its own import() (write-chunk-fallback.test.ts
// covers a chunk that cannot be loaded).
import "../../src/client/write.js";

export const BASE = "https://api.example.test";
export const API_KEY = "pk_test_5ecretKEYvalue0123456789";

/** A clock whose time moves only when the test says so. */
export class FakeClock implements Timers {
  time = 0;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();

  now = () => this.time;
  setTimeout = (fn: () => void, ms: number) => {
    this.timers.set(++this.seq, { at: this.time + ms, fn });
    return this.seq;
  };
  clearTimeout = (handle: unknown) => {
    this.timers.delete(handle as number);
  };

  /** Delays (from now) of the timers waiting, soonest first. */
  get pending(): number[] {
    return [...this.timers.values()].map((t) => t.at - this.time).sort((a, b) => a - b);
  }

  /** Lets promise callbacks and I/O callbacks run (one event-loop turn; no time passes on this clock). */
  async settle(turns = 5): Promise<void> {
    for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
  }

  /** Settles until some timer is waiting (the code under test has started to wait). */
  async untilTimer(): Promise<number> {
    for (let i = 0; i < 200; i++) {
      if (this.timers.size) return this.pending[0]!;
      await new Promise((r) => setImmediate(r));
    }
    throw new Error("no timer was set");
  }

  /** Moves time forward by `ms`, firing due timers in order and settling after each. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.timers) if (e[1].at <= end && (!next || e[1].at < next[1].at)) next = e;
      if (!next) break;
      this.timers.delete(next[0]);
      this.time = next[1].at;
      next[1].fn();
      await this.settle();
    }
    this.time = end;
    await this.settle();
  }
}

export interface Call {
  request: Request;
  /** The init the client passed to fetch (its `signal` is the attempt's). */
  init: RequestInit | undefined;
  method: string;
  url: URL;
  headers: Headers;
  body: string;
}

export type Reply = (call: Call, n: number) => Response | Promise<Response>;

/**
 * A fetch that records every attempt (with its body, read as text) and answers with `reply`. It honours the
 * signal it is given, as a real fetch does.
 */
export function scriptedFetch(reply: Reply) {
  const calls: Call[] = [];
  const fetch = async (input: Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const body = request.body ? await request.clone().text() : "";
    const call: Call = { request, init, method: request.method, url: new URL(request.url), headers: request.headers, body };
    calls.push(call);
    if (request.signal.aborted) throw request.signal.reason;
    return await Promise.race([
      reply(call, calls.length),
      new Promise<never>((_, reject) => request.signal.addEventListener("abort", () => reject(request.signal.reason))),
    ]);
  };
  return { fetch, calls };
}

/** Answers in turn with each of `responses` (the last one repeats). */
export function replies(...responses: Array<() => Response | Promise<Response>>): Reply {
  return (_call, n) => responses[Math.min(n, responses.length) - 1]!();
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

/** The rejection of a promise that must reject (fails the test if it resolves). */
export async function caught(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (v) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(v)?.slice(0, 100)}`);
    },
    (e: unknown) => e,
  );
}

/** A fetch that never answers (until aborted). */
export const hang: Reply = () => new Promise<Response>(() => {});

/** A client with a fake clock and a scripted fetch; extra options override. */
export function testClient(reply: Reply, options: Partial<ClientOptions> = {}) {
  const clock = new FakeClock();
  const { fetch, calls } = scriptedFetch(reply);
  const client = createClient({ baseUrl: BASE, apiKey: API_KEY, fetch, timers: clock, ...options } as ClientOptions);
  return { client, clock, calls };
}

// ---- the contract's error examples -----------------------------------------------------------------------

export interface ErrorExample {
  status: number;
  name: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Every named example of every shared error response (one per error status of the contract). */
export function errorExamples(): ErrorExample[] {
  const out: ErrorExample[] = [];
  for (const [status, name] of Object.entries<string>({
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    409: "Conflict",
    422: "UnprocessableEntity",
    429: "TooManyRequests",
    500: "InternalServerError",
  })) {
    const response = deref(doc.components.responses[name]);
    for (const [exampleName, example] of Object.entries<any>(response.content["application/json"].examples)) {
      out.push({ status: Number(status), name: exampleName, body: deref(example).value });
    }
  }
  return out;
}

/** The first named example of a schema's media type in an operation's response. */
export function responseExample(path: string, method: string, status: number): any {
  const response = deref(doc.paths[path][method].responses[status]);
  const media = Object.values<any>(response.content)[0];
  return deref(Object.values<any>(media.examples)[0]).value;
}

export { doc, deref };
