// The store's simulated clock (store/sim-time.ts, decision MC2) over a hand-driven base: its tasks run in order of
// time at their own time, not while paused, and the base scheduler beneath keeps one timer for the earliest.
import { describe, expect, it } from "vitest";
import { ManualScheduler } from "../../../../src/mock/core/clock/scheduler.js";
import { SimulatedTime } from "../../../../src/mock/core/clock/simulated.js";
import { ManualClock } from "../../../helpers/mock.js";

function setup() {
  const base = new ManualClock(0);
  const baseScheduler = new ManualScheduler(base);
  const time = new SimulatedTime(base, baseScheduler);
  const ran: Array<[string, number]> = [];
  const task = (name: string) => () => ran.push([name, time.clock.now()]);
  return { base, baseScheduler, time, ran, task };
}

describe("SimulatedTime", () => {
  it("runs its tasks when the base scheduler's time comes, each at its own time, in order, with one base timer", () => {
    const { baseScheduler, time, ran, task } = setup();
    time.scheduler.after(300, task("c"));
    time.scheduler.after(100, task("a"));
    time.scheduler.after(200, task("b"));
    expect(baseScheduler.pending).toBe(1);
    baseScheduler.advance(250);
    expect(ran).toEqual([["a", 100], ["b", 200]]);
    expect(time.clock.now()).toBe(250);
  });

  it("paused: nothing runs and time stands; advance runs what falls due; resume runs on from there", () => {
    const { base, baseScheduler, time, ran, task } = setup();
    time.scheduler.after(100, task("a"));
    time.scheduler.after(1000, task("b"));
    time.pause();
    baseScheduler.advance(5000);
    expect([ran, time.clock.now(), time.state().paused]).toEqual([[], 0, true]);
    time.advance(150);
    expect(ran).toEqual([["a", 100]]);
    expect(time.clock.now()).toBe(150);
    time.resume();
    expect(time.state()).toMatchObject({ paused: false, offset_ms: 150 - base.now(), pending: 1 });
    baseScheduler.advance(849);
    expect(ran.length).toBe(1);
    baseScheduler.advance(1);
    expect(ran).toEqual([["a", 100], ["b", 1000]]);
  });

  it("a task scheduled by a running task runs in the same advance when it falls due; a cancelled one never", () => {
    const { time, ran, task } = setup();
    time.pause();
    time.scheduler.after(100, () => {
      ran.push(["first", time.clock.now()]);
      time.scheduler.after(50, task("chained"));
    });
    const cancel = time.scheduler.after(120, task("cancelled"));
    cancel();
    time.advance(1000);
    expect(ran).toEqual([["first", 100], ["chained", 150]]);
  });

  it("reset: back to the base clock, running", () => {
    const { base, time } = setup();
    time.pause();
    time.advance(60_000);
    time.reset();
    expect(time.state()).toMatchObject({ paused: false, offset_ms: 0 });
    expect(time.clock.now()).toBe(base.now());
  });
});
