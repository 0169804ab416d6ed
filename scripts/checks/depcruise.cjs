// dependency-cruiser's rules for src/ and scripts/ (`npm run check:circles`, in `npm test`): no import circle anywhere,
// type-only imports included (a type-only back-arrow still hides which file is the lower layer), and the layers of
// src/mock (docs/architecture.md): the core is platform-neutral and knows no engine and no home; engines and homes
// import the core, never the reverse; what a browser loads reaches no Node module. test/scripts/checks/circles.test.ts
// plants a violation of each rule and watches it fail.
const NODE = "^(node:)?(assert|async_hooks|buffer|child_process|cluster|crypto|dgram|diagnostics_channel|dns|events|fs|fs/promises|http|http2|https|inspector|module|net|os|path|perf_hooks|process|querystring|readline|stream|stream/promises|string_decoder|timers|timers/promises|tls|tty|url|util|v8|vm|worker_threads|zlib)$";
const CORE = "^src/mock/core/";
const ENGINES = "^src/mock/engines/";
const HOMES = "^src/mock/homes/";
/** The engines' drivers: only engines/ loads them. */
const DRIVERS = "(^|node_modules/)(ioredis|pg|pg-[^/]+|better-sqlite3|@types/(pg|better-sqlite3))(/|$)";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "A circle hides which module is the lower layer: move the shared piece below both.",
      from: {},
      to: { circular: true },
    },
    {
      name: "core-no-node",
      severity: "error",
      comment:
        "The core runs in a browser (MSW's service worker) as well as in Node: it imports no Node module. The one " +
        "exception is the types of node:http, node:net and node:stream (type-only, no code): the request and response " +
        "the pipeline works on have node:http's shape, which homes/fetch/in-process.ts gives in a browser.",
      from: { path: CORE },
      to: { path: NODE, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "core-no-node-types",
      severity: "error",
      comment: "Type-only, the core may name node:http's, node:net's and node:stream's types, and no other Node module's.",
      from: { path: CORE },
      to: { path: NODE, pathNot: "^(node:)?(http|net|stream)$" },
    },
    {
      name: "core-no-engine",
      severity: "error",
      comment: "The core knows no engine: a home hands it what an engine gives (services.ts `Engines`).",
      from: { path: CORE },
      to: { path: [ENGINES, DRIVERS] },
    },
    {
      name: "core-no-home",
      severity: "error",
      comment: "Homes and the proxy import the core, never the reverse.",
      from: { path: CORE },
      to: { path: [HOMES, "^src/mock/proxy/", "^src/mock/index\\.ts$"] },
    },
    {
      name: "engines-no-home",
      severity: "error",
      comment: "An engine serves any home: it imports the core and its driver, never a home.",
      from: { path: ENGINES },
      to: { path: [HOMES, "^src/mock/proxy/", "^src/mock/index\\.ts$"] },
    },
    {
      name: "drivers-only-in-engines",
      severity: "error",
      comment: "A database or Redis driver is loaded by its engine only (the homes pick an engine, they never talk to a driver).",
      from: { path: "^src/", pathNot: ENGINES },
      to: { path: DRIVERS, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "fetch-and-browser-no-node",
      severity: "error",
      comment: "homes/fetch and homes/browser run in a browser: no Node module, as in the core.",
      from: { path: "^src/mock/homes/(fetch|browser)/" },
      to: { path: NODE, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "browser-no-node-home",
      severity: "error",
      comment: "The browser entry reaches nothing of the Node home nor of an engine, however indirectly.",
      from: { path: "^src/mock/homes/browser/" },
      to: { path: ["^src/mock/homes/node/", ENGINES, "^src/mock/proxy/", DRIVERS], reachable: true },
    },
    {
      name: "client-no-zod",
      severity: "error",
      comment: "The client never loads zod: validation comes in through the `validate` option, from src/zod/ (decision FE5).",
      from: { path: ["^src/client/", "^src/index\\.ts$"] },
      to: { path: ["^src/zod/", "(^|/)zod(/|$)"], dependencyTypesNot: ["type-only"] },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
  },
};
