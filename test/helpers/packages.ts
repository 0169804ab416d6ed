// Installing a packed tarball into a fresh project outside the repository, as a user would, and reading what that
// brought in (`npm ls --omit=dev`). Needs the tarball's dependencies from the npm cache or registry.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { expect } from "vitest";

export const run = promisify(execFile);
export const NPM_ENV = { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" };

/** A new folder `name` under `tmp` with a package.json of its own (ESM), and these packages installed into it. */
export async function freshProject(tmp: string, name: string, install: string[]): Promise<string> {
  const project = path.join(tmp, name);
  await fs.mkdir(project);
  await fs.writeFile(path.join(project, "package.json"), JSON.stringify({ name, private: true, type: "module" }));
  if (install.length) await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", ...install], { cwd: project, env: NPM_ENV, maxBuffer: 1 << 24 });
  return project;
}

/** Lifecycle scripts npm runs when a package is installed (the install-script warning). */
const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall", "prepare"];

interface Installed {
  path?: string;
  version?: string;
  dependencies?: Record<string, Installed>;
}

/**
 * Every package a project's runtime tree holds (`npm ls --omit=dev --all`), each read from disk, and those that are
 * a native module (binding.gyp, `gypfile`) or run a script on install; optional peers not installed are left out.
 */
export async function runtimeTree(project: string): Promise<{ names: string[]; offending: string[] }> {
  const ls = await run("npm", ["ls", "--omit=dev", "--all", "--long", "--json"], { cwd: project, env: NPM_ENV, maxBuffer: 1 << 24 });
  const names: string[] = [];
  const offending: string[] = [];
  const walk = async (deps: Record<string, Installed> | undefined) => {
    for (const [name, dep] of Object.entries(deps ?? {})) {
      if (dep.version === undefined) continue; // an optional peer not installed ("UNMET OPTIONAL DEPENDENCY")
      names.push(name);
      if (dep.path === undefined) continue; // deduped: read where it is installed
      const manifest = JSON.parse(await fs.readFile(path.join(dep.path, "package.json"), "utf8")) as { scripts?: Record<string, string>; gypfile?: boolean };
      const scripts = INSTALL_SCRIPTS.filter((s) => manifest.scripts?.[s] !== undefined);
      const gyp = manifest.gypfile === true || (await fs.stat(path.join(dep.path, "binding.gyp")).then(() => true, () => false));
      if (scripts.length || gyp) offending.push(`${name}: ${[...scripts, ...(gyp ? ["binding.gyp"] : [])].join(", ")}`);
      await walk(dep.dependencies);
    }
  };
  await walk((JSON.parse(ls.stdout) as Installed).dependencies);
  return { names, offending };
}

/** The project's runtime tree holds `pkg`, none of `absent`, and no native module nor install script. */
export async function expectLeanTree(project: string, pkg: string, absent: string[]): Promise<string[]> {
  const { names, offending } = await runtimeTree(project);
  expect(names).toContain(pkg);
  for (const name of absent) expect(names).not.toContain(name);
  expect(offending).toEqual([]);
  return names;
}

/** What the client package's `npm pack` reads: its manifest, its build's sources and configs, and what it ships. */
const CLIENT_SOURCES = ["package.json", "README.md", "tsconfig.json", "tsconfig.build.json", "src/index.ts", "src/client", "src/query", "src/react", "src/zod", "generated/schema.d.ts"];

/**
 * The client package (@avt/api-contract) packed by `npm pack`, its prepack included (which builds dist/), in a copy of
 * what it reads under `dir` (the repository's node_modules linked in): so test files packing it at once never build
 * the same dist/ together. Answers the tarball's path and the files it holds.
 */
export async function packClientPackage(root: string, dir: string): Promise<{ file: string; files: string[] }> {
  const copy = path.join(dir, "client-package");
  for (const source of CLIENT_SOURCES) await fs.cp(path.join(root, source), path.join(copy, source), { recursive: true });
  await fs.symlink(path.join(root, "node_modules"), path.join(copy, "node_modules"));
  const out = await run("npm", ["pack", "--json", "--pack-destination", dir], { cwd: copy, env: NPM_ENV, maxBuffer: 1 << 24 });
  const [info] = JSON.parse(out.stdout.slice(out.stdout.indexOf("["))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return { file: path.join(dir, info!.filename), files: info!.files.map((f) => f.path) };
}
