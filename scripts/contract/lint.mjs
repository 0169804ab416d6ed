// `npm run lint`: Redocly lint of the contract with this project's rules (redocly.yaml), as Redocly prints it
// (stylish: each file under spec/, then line:col, rule and what to add), less two lines: Redocly's Node-version
// banner, and its footer suggesting `--generate-ignore-file`, which would hide the problems in an ignore file.
// The policy is 0 errors and 0 warnings with no ignore file, so the footer says that instead.
// A `$ref` that does not resolve is reported once, at the `$ref`: its knock-ons are skipped (lint-knock-on.mjs).
// Plain Node (no tsx) so the gate stays as fast as Redocly itself.  Usage: npm run lint -- [redocly lint options]
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipKnockOns } from './lint-knock-on.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'node_modules/.bin/redocly');
const POLICY = 'The contract keeps 0 errors and 0 warnings, with no ignore file: fix each problem where it names the file (spec/README.md says what each rule asks).';

const child = spawn(BIN, ['lint', '--format=stylish', ...process.argv.slice(2)], { cwd: process.cwd(), env: { ...process.env, REDOCLY_TELEMETRY: 'off' } });
let out = '';
child.stdout.on('data', (d) => (out += d));
child.stderr.on('data', (d) => (out += d));
child.on('close', (code) => {
  const lines = out.split('\n').filter((l) => !/[║╔╚]/.test(l));
  const printed = lines.map((l) => (/--generate-ignore-file/.test(l) ? POLICY : l)).join('\n').replace(/^\n+/, '');
  const root = path.resolve(process.argv.slice(2).find((a) => /\.(ya?ml|json)$/.test(a) && !a.startsWith('-')) ?? 'spec/openapi.yaml');
  const text = skipKnockOns(printed, { cwd: process.cwd(), root });
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  process.exitCode = code ?? 1;
});
