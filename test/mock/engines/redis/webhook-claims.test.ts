// Webhook deliveries claimed across a sandbox's replicas (decision SB13): the attempt a replica claims is named by
// the resource, the event type and how many times that resource emitted that type, so every replica that runs the
// step names the same attempt. Those counts are forgotten once Redis has let the claim go (CLAIM_TTL_MS, real time):
// a sandbox that runs for months keeps no count per event it ever emitted, and a count that starts over names no
// attempt a replica still holds.
import { describe, expect, it } from "vitest";
import { CLAIM_TTL_MS, Webhooks } from "../../../../src/mock/core/events/webhooks.js";
import { contract, ManualClock } from "../../../helpers/mock.js";

/** A replica's webhooks whose claims are recorded and never won (so nothing is sent anywhere). */
function replica(wall: ManualClock) {
  const claimed: string[] = [];
  const webhooks = new Webhooks(contract, {
    clock: new ManualClock(),
    wallClock: wall,
    deliveryDelayMs: 3_600_000, // the sample deliveries after registering: cancelled by close()
    log: () => {},
    allowLoopback: true,
    claim: async (key) => {
      claimed.push(key.slice(0, key.lastIndexOf(":http")));
      return false;
    },
  });
  webhooks.register("ws_DemoPro00000", { url: "http://127.0.0.1:9/hook", event_types: ["analysis.completed"] });
  // The claim is asked for as the event is emitted (nothing awaited before it).
  const emit = (id: string) => webhooks.emit("ws_DemoPro00000", "analysis.completed", { analysis: { id } });
  return { webhooks, claimed, emit };
}

describe("webhook claims across replicas", () => {
  it("counts a resource's emits of a type while its claims live, and starts over after", async () => {
    const wall = new ManualClock();
    const { webhooks, claimed, emit } = replica(wall);
    emit("anl_A");
    emit("anl_A");
    emit("anl_B");
    wall.advance(CLAIM_TTL_MS - 1);
    emit("anl_A");
    wall.advance(CLAIM_TTL_MS);
    emit("anl_A");
    expect(claimed).toEqual([
      "ws_DemoPro00000:analysis.completed:anl_A:1:attempt-1",
      "ws_DemoPro00000:analysis.completed:anl_A:2:attempt-1",
      "ws_DemoPro00000:analysis.completed:anl_B:1:attempt-1",
      "ws_DemoPro00000:analysis.completed:anl_A:3:attempt-1",
      "ws_DemoPro00000:analysis.completed:anl_A:1:attempt-1",
    ]);
    await webhooks.close();
  });

  it("keeps no count older than a claim: 10,000 resources over three days leave one day's", async () => {
    const wall = new ManualClock();
    const { webhooks, emit } = replica(wall);
    for (let i = 0; i < 10_000; i++) {
      emit(`anl_${i}`);
      wall.advance(30_000); // 10,000 emits 30 s apart: 83 hours
    }
    // Those of the last 24 hours: 2,880 emits 30 s apart.
    expect(webhooks.countsKept).toBe(CLAIM_TTL_MS / 30_000);
    await webhooks.close();
  });
});
