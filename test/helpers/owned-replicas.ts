// Replicas with workspace ownership (`--ownership`, decision SB29) on a PostgreSQL of their own, for the tests of
// test/mock/engines/postgres/: the database, a client on it, and `n` replicas sharing one keys file.
import pg from "pg";
import { startPostgres, type Engine } from "../../scripts/lib/engines.js";
import { keysFile, startReplicas, type Replica } from "../../scripts/lib/replicas.js";

export interface OwnedCluster {
  db: Engine;
  client: pg.Client;
  replicas: Replica[];
  stop(): Promise<void>;
}

/** `statements`: PostgreSQL with pg_stat_statements loaded and its extension made. */
export async function startOwnedCluster(n: number, keys: readonly object[], o: { statements?: boolean } = {}): Promise<OwnedCluster> {
  const db = await startPostgres(o.statements ? { settings: { shared_preload_libraries: "pg_stat_statements" } } : {});
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  if (o.statements) await client.query("CREATE EXTENSION pg_stat_statements");
  const c: OwnedCluster = {
    db,
    client,
    replicas: await startReplicas(n, ["--state", db.url, "--keys", keysFile(keys), "--limit-scale", "1000", "--ownership"]),
    async stop() {
      await Promise.all(c.replicas.map((r) => r.stop()));
      await client.end();
      await db.stop();
    },
  };
  return c;
}
