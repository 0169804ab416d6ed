// Event ids are unique per analysis (issue 31): two analyses whose ids share their first 20 characters used to
// get the same event ids, so a client resuming with Last-Event-ID could get the other analysis's events.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import YAML from "yaml";
import { REPO_ROOT } from "../../../../src/mock/homes/node/contract-files.js";
import { startGateway, type TestGateway } from "../../../helpers/mock.js";

const KEY = "pk_test_dashboard_demo";
const [A, B] = ["anl_01DashCall00000000000001", "anl_01DashCall00000000000002"];
let g: TestGateway;
let dir: string;
beforeAll(async () => {
  const doc = YAML.parse(fs.readFileSync(path.join(REPO_ROOT, "docs/mock-fixtures.example.yaml"), "utf8"));
  const ws = doc.workspaces.ws_Dashboard01;
  ws.Analysis.push({ ...ws.Analysis[0], id: B });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "event-ids-"));
  fs.writeFileSync(path.join(dir, "fixtures.yaml"), YAML.stringify(doc));
  g = await startGateway({ fixtures: path.join(dir, "fixtures.yaml") });
});
afterAll(async () => {
  await g.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The ids of the first two events of an analysis's stream (it stays open while the analysis processes). */
async function eventIds(id: string): Promise<string[]> {
  const res = await fetch(`${g.url}/v1/analysis/${id}/stream`, { headers: { "X-API-Key": KEY } });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const ids = () => [...text.matchAll(/^id: (.*)$/gm)].map((m) => m[1]!);
  while (ids().length < 2) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
  }
  await reader.cancel();
  return ids();
}

it("differ between analyses whose ids share their first 20 characters", async () => {
  const [a, b] = [await eventIds(A), await eventIds(B)];
  expect(a.length).toBeGreaterThan(0);
  expect(b.length).toBeGreaterThan(0);
  expect(a.filter((id) => b.includes(id))).toEqual([]);
});
