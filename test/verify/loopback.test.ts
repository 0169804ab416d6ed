// Issue 22: `verify` sent a key in clear to http://[::ffff:7f00:1] (127.0.0.1, IPv4-mapped), taking it for a remote
// host. Loopback is judged by address, in any spelling (src/loopback.ts), for the verifier and the mock alike.
import { describe, expect, it } from "vitest";
import { isLoopbackHost } from "../../src/mock/homes/node/secret.js";
import { isLoopback, parseTarget } from "../../src/verify/index.js";
import { queryTokensAllowed } from "../../src/verify/target.js";

const LOOPBACK = ["127.0.0.1", "127.1.2.3", "localhost", "api.localhost", "::1", "[::1]", "[0:0:0:0:0:0:0:1]", "[::ffff:7f00:1]", "::ffff:127.0.0.1", "[::FFFF:127.9.9.9]"];
const REMOTE = ["10.0.0.1", "128.0.0.1", "0.0.0.0", "::", "[::ffff:a00:1]", "[::7f00:1]", "example.com", "127.0.0.1.example.com"];

describe("loopback, in every spelling", () => {
  it("is loopback for the verifier and the mock alike", () => {
    for (const h of LOOPBACK) expect([isLoopback(h), isLoopbackHost(h)], h).toEqual([true, true]);
    for (const h of REMOTE) expect([isLoopback(h), isLoopbackHost(h)], h).toEqual([false, false]);
  });

  it("an IPv4-mapped loopback target may carry query tokens over plain HTTP; a mapped remote one may not", () => {
    expect(parseTarget("http://[::ffff:7f00:1]:4010").loopback).toBe(true);
    expect(queryTokensAllowed(parseTarget("http://[::ffff:127.0.0.1]:4010"))).toBe(true);
    expect(queryTokensAllowed(parseTarget("http://[::ffff:10.0.0.1]:4010"))).toBe(false);
  });
});
