import { startPostgres } from "./lib/engines.js";
import { createGateway } from "../src/mock/gateway.js";
import { freshKey } from "../test/mock/helpers.js";
const db = await startPostgres();
const k = { key: "pk_test_probe", workspace_id: "ws_Probe00001", plan: "pro" };
const g = await createGateway({ ...(process.env.MEM ? {} : { stateFile: db.url }), log: null, extraKeys: [k] } as never);
const url = await g.listen(0);
const post = () => fetch(`${url}/v1/boards`, { method: "POST", headers: { "X-API-Key": "pk_test_probe", "Content-Type": "application/json" }, body: JSON.stringify({ name: "x", widgets: [] }) }).then((r) => r.status);
console.log(await post());
const { PgState } = await import("../src/mock/state-pg.js");
for (const name of ["lock", "commit", "refresh", "syncParts"] as const) {
  const orig = (PgState.prototype as any)[name];
  (PgState.prototype as any)[name] = async function (...a: unknown[]) { const t = performance.now(); try { return await orig.apply(this, a); } finally { console.log(name, (performance.now() - t).toFixed(1)); } };
}
for (let i = 0; i < 30; i++) { const t = performance.now(); await post(); console.log("total", (performance.now() - t).toFixed(1)); }
await g.close(); await db.stop();
