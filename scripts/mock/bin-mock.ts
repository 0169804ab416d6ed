// The `avt-mock` command of the mock package (scripts/publish/build-packages.ts): `npm start`'s own main, every flag
// and --help, speaking as installed (`npx avt-mock`, start.ts INSTALLED); `avt-mock token` is `npm run mock:token`'s.
import { mockToken, processOutput } from "./mock-token.js";
import { INSTALLED, main } from "./start.js";

const [first, ...rest] = process.argv.slice(2);
if (first === "token") process.exitCode = await mockToken(rest, processOutput(), INSTALLED.token);
else await main(INSTALLED);
