// dependency-cruiser's rules for src/: no import circles, type-only imports included (a type-only back-arrow still
// hides which file is the lower layer). `npm test` runs it through `npm run check:circles`.
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
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
  },
};
