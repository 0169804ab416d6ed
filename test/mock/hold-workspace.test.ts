// Stage `holdWorkspace` (decision DB12): with a database, where a workspace may leave memory (DB6), an admitted
// request holds its workspace until its response closes; in memory only, where none ever leaves, it holds nothing
// and adds no `close` listener to the response (a listener per request cost the gateway, npm run bench).
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import type { RequestContext } from "../../src/mock/context.js";
import type { Services } from "../../src/mock/services.js";
import { holdWorkspace } from "../../src/mock/stages/hold-workspace.js";

function run(unloads: boolean) {
  const held: string[] = [];
  const released: string[] = [];
  const store = { unloads, hold: (id: string) => (held.push(id), () => void released.push(id)) };
  const res = new EventEmitter() as EventEmitter & { closed: boolean };
  res.closed = false;
  const ctx = { principal: { workspaceId: "ws_1" }, res } as unknown as RequestContext;
  expect(holdWorkspace({ store } as unknown as Services)(ctx)).toBeUndefined();
  return { held, released, res };
}

describe("holdWorkspace", () => {
  it("with a database, holds the workspace until the response closes", () => {
    const { held, released, res } = run(true);
    expect([held, released, res.listenerCount("close")]).toEqual([["ws_1"], [], 1]);
    res.emit("close");
    expect(released).toEqual(["ws_1"]);
  });

  it("in memory only, holds nothing and listens to nothing", () => {
    const { held, res } = run(false);
    expect([held, res.listenerCount("close")]).toEqual([[], 0]);
  });
});
