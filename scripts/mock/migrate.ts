// `avt-mock migrate --state postgres://…` (in this repository `npm start -- migrate --state URL`): brings the state
// database of a sandbox to this mock's schema version, once (decision SB22), before its replicas start on it.
// Replicas never run DDL on a database in use; one on a database of another version refuses to start, naming both.
import { parseArgs } from "node:util";
import { migrateDatabase, StateDatabaseError } from "../../src/mock/engines/postgres/migrate.js";
import { redact } from "../../src/mock/core/pipeline/log.js";

const USAGE = "avt-mock migrate --state postgres://user@host:port/db   (MOCK_STATE_FILE works too)";

/** Runs the command; returns the exit code (0 migrated or nothing to do, 1 refused, 2 bad usage). */
export async function runMigrate(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let url: string | undefined;
  try {
    url = parseArgs({ args: [...argv], options: { state: { type: "string" } } }).values.state ?? env.MOCK_STATE_FILE;
  } catch (e) {
    console.error(`${(e as Error).message}\nUsage: ${USAGE}`);
    return 2;
  }
  if (!url || !/^postgres(ql)?:\/\//i.test(url)) {
    console.error(`migrate needs the state database's URL (postgres://…)${url ? `; got ${redact(url)}` : ""}.\nUsage: ${USAGE}`);
    return 2;
  }
  try {
    const { from, to } = await migrateDatabase(url);
    console.log(from === to ? `${redact(url)}: the schema is already version ${to}; nothing to do.` : `${redact(url)}: schema migrated from version ${from} to ${to}.`);
    return 0;
  } catch (e) {
    console.error(`${redact(url)}: ${e instanceof StateDatabaseError ? e.message : `cannot migrate: ${(e as Error).message}`}`);
    return 1;
  }
}
