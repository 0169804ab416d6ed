// The `avt-mock` command of the mock package (scripts/build-packages.ts): `npm start`'s own main, every flag and --help.
import { main } from "./start.js";

await main();
