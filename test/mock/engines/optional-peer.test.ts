// The optional peers' one loader (src/mock/engines/optional-peer.ts): a peer that is installed is returned; a missing one
// fails with the caller's error, naming the flag's need and the package to install.
import { describe, expect, it } from "vitest";
import { optionalPeer } from "../../../src/mock/engines/optional-peer.js";

class SetupError extends Error {}

describe("optionalPeer", () => {
  it("returns an installed peer", () => {
    const pg = optionalPeer<{ Pool: unknown }>("pg", "--state postgres://… keeps the state in PostgreSQL", (m) => new SetupError(m));
    expect(typeof pg.Pool).toBe("function");
  });

  it("a missing peer fails with the caller's error, naming what needs it and the package to install", () => {
    const load = () => optionalPeer("avt-no-such-peer", "--flag keeps something", (m) => new SetupError(m));
    expect(load).toThrow(SetupError);
    expect(load).toThrow("--flag keeps something through avt-no-such-peer, which is not installed: npm install avt-no-such-peer");
  });
});
