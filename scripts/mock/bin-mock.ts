// The `avt-mock` command of the mock package (scripts/publish/build-packages.ts): `npm start`'s own main, every flag and --help.
import { main } from "./start.js";

await main();
