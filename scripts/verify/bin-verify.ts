// The `avt-verify` command of the mock package (scripts/publish/build-packages.ts): `npm run verify`'s own main.
import { main } from "./verify.js";

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (e: Error) => {
    process.stderr.write(`verify: internal error: ${e.stack ?? e.message}\n`);
    process.exitCode = 2;
  },
);
