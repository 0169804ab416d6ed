// What a page that turns the browser simulation on loads first (issue 45, Weight; decision MC11): the bundle's
// entry and the chunks it imports statically, read from esbuild's metafile. What only a rare request needs is a
// chunk loaded on demand, and the bundle, run as built (here under Node: it needs no DOM), still answers it.
import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Metafile } from "esbuild";
import { firstOutputs, sources } from "../../../../scripts/lib/browser-bundle.js";
import { REPO_ROOT } from "../../../../src/mock/homes/node/contract-files.js";
import { builtBrowserSimulation, type BuiltBrowserSimulation } from "../../../helpers/browser-build.js";
import { parse } from "yaml";
import { createSimulation as nodeSimulation } from "../../../../src/mock/homes/node/simulation.js";

let built: BuiltBrowserSimulation;
let meta: Metafile;
let createSimulation: BuiltBrowserSimulation["createSimulation"];

/** The inputs of the outputs a page loads first (packages by name, files by path). */
const loadedFirst = (m: Metafile): string[] => sources([...firstOutputs(m)].flatMap((o) => Object.keys(m.outputs[o]!.inputs)));

beforeAll(async () => {
  built = await builtBrowserSimulation();
  ({ meta, createSimulation } = built);
}, 120_000);

afterAll(async () => {
  await built?.dispose();
});

describe("the browser simulation's first load", () => {
  it("leaves the YAML text of the contract to a chunk of its own", () => {
    const first = loadedFirst(meta);
    expect(first).toContain("src/mock/core/pipeline/pipeline.ts");
    expect(first).not.toContain("generated/openapi.yaml");
    const lazy = Object.values(meta.outputs).filter((o) => Object.keys(o.inputs).includes("generated/openapi.yaml"));
    expect(lazy).toHaveLength(1);
  });

  it("serves /openapi.yaml byte for byte from that chunk, on the first request and after", async () => {
    const sim = createSimulation();
    try {
      const file = await fs.readFile(path.join(REPO_ROOT, "generated/openapi.yaml"));
      for (let i = 0; i < 2; i++) {
        const res = await sim.fetch(`${sim.baseUrl}/openapi.yaml`);
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toBe("application/yaml; charset=utf-8");
        expect(Buffer.from(await res.arrayBuffer()).equals(file)).toBe(true);
      }
      const head = await sim.fetch(`${sim.baseUrl}/openapi.yaml`, { method: "HEAD" });
      expect([head.status, (await head.arrayBuffer()).byteLength]).toEqual([200, 0]);
    } finally {
      await sim.close();
    }
  });


  it("has no YAML parser anywhere in the bundle, loaded first or on demand", () => {
    expect(sources(Object.keys(meta.inputs))).toContain("jose");
    expect(sources(Object.keys(meta.inputs))).not.toContain("yaml");
  });

  it("loads a fixtures object without it, as the Node simulation does, and a bad one names where", async () => {
    const fixtures = parse(await fs.readFile(path.join(REPO_ROOT, "docs/mock-fixtures.example.yaml"), "utf8"));
    const [browser, node] = [createSimulation({ fixtures }), nodeSimulation({ fixtures })];
    try {
      const headers = { "X-API-Key": "pk_test_dashboard_demo" };
      const list = async (s: typeof browser) => (await s.fetch(`${s.baseUrl}/v1/analyses?limit=50`, { headers })).text();
      const answer = await list(browser);
      expect(answer).toContain("anl_01DashCall00000000000001");
      expect(answer).toBe(await list(node));
    } finally {
      await browser.close();
      await node.close();
    }
    const bad = { workspaces: { ws_Other000001: { Analysis: [{ id: 3 }] } } };
    expect(() => createSimulation({ fixtures: bad })).toThrow(/^fixtures:\d+:\d+: workspaces\.ws_Other000001\.Analysis\.0/);
  });
});
