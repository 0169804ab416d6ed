import { startPostgres } from "./lib/engines.js";
import { keysFile, startReplica } from "./lib/replicas.js";
import pg from "pg";
const db = await startPostgres();
const file = keysFile([{ key: "pk_test_probe", workspace_id: "ws_Probe00001", plan: "pro" }]);
const rs = [await startReplica(["--state", db.url, "--keys", file])];
rs.push(await startReplica(["--state", db.url, "--keys", file]));
const post = (u: string) => fetch(`${u}/v1/boards`, { method: "POST", headers: { "X-API-Key": "pk_test_probe", "Content-Type": "application/json" }, body: JSON.stringify({ name: "x", widgets: [] }) }).then((r) => r.status);
for (const r of rs) console.log(await post(r.url));
for (const mode of ["one", "rr"]) {
  const t = performance.now();
  for (let i = 0; i < 20; i++) await post(rs[mode === "one" ? 0 : i % 2]!.url);
  console.log(mode, ((performance.now() - t) / 20).toFixed(1), "ms/create");
}
const c = new pg.Client(db.url); await c.connect();
console.log((await c.query("select coll, count(*), sum(length(value)+length(extra)) from records group by coll")).rows);
await c.end();
for (const r of rs) await r.stop();
await db.stop();
