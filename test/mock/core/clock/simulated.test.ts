// The simulated clock (core/clock/simulated.ts, decision MC2) over a hand-driven base (another SimulatedClock, held
// paused): its tasks run in order of time at their own time, not while paused, and it keeps one timer on the base.
import { describe, expect, it } from "vitest";
import { systemClock } from "../../../../src/mock/core/clock/clock.js";
import { SimulatedClock } from "../../../../src/mock/core/clock/simulated.js";

function setup() {
  const base = new SimulatedClock(systemClock, { frozenAt: 0 });
  const baseScheduler = { advance: (ms: number) => base.advance(ms), get pending() { return base.state().pending; } };
  const time = new SimulatedClock(base);
  const ran: Array<[string, number]> = [];
  const task = (name: string) => () => ran.push([name, time.now()]);
  return { base, baseScheduler, time, ran, task };
}

describe("SimulatedClock", () => {
  it("runs its tasks when the base clock's time comes, each at its own time, in order, with one base timer", () => {
    const { baseScheduler, time, ran, task } = setup();
    time.after(300, task("c"));
    time.after(100, task("a"));
    time.after(200, task("b"));
    expect(baseScheduler.pending).toBe(1);
    baseScheduler.advance(250);
    expect(ran).toEqual([["a", 100], ["b", 200]]);
    expect(time.now()).toBe(250);
  });

  it("paused: nothing runs and time stands; advance runs what falls due; resume runs on from there", () => {
    const { base, baseScheduler, time, ran, task } = setup();
    time.after(100, task("a"));
    time.after(1000, task("b"));
    time.pause();
    baseScheduler.advance(5000);
    expect([ran, time.now(), time.state().paused]).toEqual([[], 0, true]);
    time.advance(150);
    expect(ran).toEqual([["a", 100]]);
    expect(time.now()).toBe(150);
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
    time.after(100, () => {
      ran.push(["first", time.now()]);
      time.after(50, task("chained"));
    });
    const cancel = time.after(120, task("cancelled"));
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
    expect(time.now()).toBe(base.now());
  });

  it("set: forward runs what falls due, as advance does; back runs nothing and the tasks keep their times", () => {
    const { time, ran, task } = setup();
    time.pause();
    time.after(100, task("a"));
    time.set(-500);
    expect([ran, time.now()]).toEqual([[], -500]);
    time.set(100);
    expect(ran).toEqual([["a", 100]]);
  });
});
