// Typed test data (src/testing/factories.ts): valid against the contract, deterministic from a seed, overrides
// type-checked and validated, and accepted by the simulation as its own records (fixtures).
import { describe, expect, it } from "vitest";
import { createFactories, FactoryError } from "../../src/testing/factories.js";
import { createSimulation } from "../../src/mock/homes/node/simulation.js";
import { contract, schemaErrors } from "../helpers/mock.js";

describe("factories", () => {
  it("build valid values, with overrides, the same for the same seed", () => {
    const { build } = createFactories({ seed: 7, contract });
    const done = build.analysis({ status: "completed" });
    expect(done.status).toBe("completed");
    expect(schemaErrors("Analysis", done)).toEqual([]);
    const list = build.analysisList(3);
    expect(list).toHaveLength(3);
    for (const a of list) expect(schemaErrors("Analysis", a)).toEqual([]);
    expect(new Set(list.map((a) => a.id)).size).toBe(3);
    const again = createFactories({ seed: 7, contract }).build;
    expect(again.analysis({ status: "completed" })).toEqual(done);
    expect(createFactories({ seed: 8, contract }).build.analysis({ status: "completed" })).not.toEqual(done);
  });

  it("refuse an override the contract does not allow, naming the field", () => {
    const { build } = createFactories({ contract });
    // @ts-expect-error: not a status of Analysis
    expect(() => build.analysis({ status: "exploded" })).toThrow(FactoryError);
    expect(() => build.analysis({ progress: 1000 })).toThrow(/\/progress/);
  });

  it("make records the simulation takes as fixtures", async () => {
    const { build } = createFactories({ seed: 3, contract });
    const ws = "ws_Factory00001";
    // References (x-references) are not followed by the factories: a referenced id is given, or null where allowed.
    const analysis = build.analysis({ workspace_id: ws, status: "completed", use_case_id: null });
    const sim = createSimulation({ fixtures: { keys: [{ key: "pk_test_factory_demo", workspace_id: ws, plan: "pro" }], workspaces: { [ws]: { Analysis: [analysis] } } } });
    const res = await sim.fetch(`${sim.baseUrl}/v1/analyses/${analysis.id}`, { headers: { "X-API-Key": "pk_test_factory_demo" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id: string }).id).toBe(analysis.id);
    await sim.close();
  });
});
