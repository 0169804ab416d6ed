// merge3 (src/mock/engines/postgres/merge-json.ts, decision SB7): two replicas' changes to one snapshot part are both kept.
import { describe, expect, it } from "vitest";
import { merge3 } from "../../../../src/mock/engines/postgres/merge-json.js";

describe("merge3", () => {
  const base = { webhooks: [{ id: "wh_1", url: "a", last: null }], seeded: { k1: { name: "one" } } };

  it("keeps an item each side added, and each side's change of another property", () => {
    const ours = { webhooks: [...base.webhooks, { id: "wh_2", url: "b", last: null }], seeded: { k1: { name: "one" } } };
    const theirs = { webhooks: [{ id: "wh_1", url: "a", last: "12:00" }, { id: "wh_3", url: "c", last: null }], seeded: { k1: { name: "renamed" } } };
    expect(merge3(base, ours, theirs)).toEqual({
      webhooks: [
        { id: "wh_1", url: "a", last: "12:00" },
        { id: "wh_3", url: "c", last: null },
        { id: "wh_2", url: "b", last: null },
      ],
      seeded: { k1: { name: "renamed" } },
    });
  });

  it("an item either side removed stays removed; where both changed one value, ours wins", () => {
    const ours = { webhooks: [], seeded: { k1: { name: "ours" } } };
    const theirs = { webhooks: [{ id: "wh_1", url: "a", last: "12:00" }], seeded: { k1: { name: "theirs" } } };
    expect(merge3(base, ours, theirs)).toEqual({ webhooks: [], seeded: { k1: { name: "ours" } } });
    expect(merge3(base, base, theirs)).toEqual(theirs);
  });
});
