// Reading a file the options name by path (--keys, --fixtures): the one file-system access of the core. It asks the
// runtime for its file module (process.getBuiltinModule, Node ≥ 20.16) instead of importing node:fs, so the core
// bundles for a browser with no node:* import; there, where no file system exists, a path is refused with a clear
// error (pass the document itself: createSimulation's `fixtures` takes an object).

/** The file's text; `makeError` gets "<file>: cannot read the <what> (<why>)". */
export function readTextFile(file: string, what: string, makeError: (message: string) => Error): string {
  const fs = globalThis.process?.getBuiltinModule?.("node:fs");
  if (!fs) throw makeError(`${file}: cannot read the ${what} (no file system here: pass its content instead of a path)`);
  try {
    return fs.readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw makeError(`${file}: cannot read the ${what} (${code === "ENOENT" ? "no such file" : (e as Error).message})`);
  }
}
