// A broken `$ref` is one problem: lint reports it at the `$ref`, and skips what can't be checked because of it.
// Input: Redocly's stylish text; output: the same text less the knock-on problems, with the count recounted.
// What a broken `$ref` taints:
// - the scope holding it: in a path file (or openapi.yaml) the operation (or path entry); in any other file the file;
// - up: the scope of every `$ref` to a tainted file, until nothing changes (an operation using a broken component);
// - down: a file every `$ref` to which sits in a tainted scope (an example only that operation uses);
// - the file the broken `$ref` meant (same name): its "referenced by nothing" is the same mistake.
// A problem inside a tainted scope is skipped; `no-unresolved-refs` problems are always kept, and each one says which
// file of the same name exists, written relative to the file holding the `$ref`.
import fs from 'node:fs';
import path from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';

const HEADER = /^(\S.*\.(ya?ml|json)):$/;
const PROBLEM = /^\s+(\d+):(\d+)\s+(error|warning)\s+(\S+)\s+(.*)$/;
const WHOLE = [1, Infinity];

/** Every YAML file under dir, absolute. */
function yamlFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return yamlFiles(p);
    return /\.ya?ml$/.test(e.name) ? [p] : [];
  });
}

/** One file's `$ref`s: { line, target (absolute file), scope [fromLine, toLine] }, and the scope of any line. */
function readFile(file, root) {
  const counter = new LineCounter();
  let doc;
  try {
    doc = parseDocument(fs.readFileSync(file, 'utf8'), { lineCounter: counter });
  } catch {
    return { refs: [], scopeOf: () => WHOLE };
  }
  const line = (offset) => counter.linePos(offset).line;
  // Operation-level scopes: a path file's top keys (methods), openapi.yaml's path entries.
  const scopes = [];
  const isPathFile = path.basename(path.dirname(file)) === 'paths' || file === root;
  const top = file === root ? doc.get('paths', true) : doc.contents;
  if (isPathFile && isMap(top)) {
    for (const pair of top.items) if (pair.key?.range && pair.value?.range) scopes.push([line(pair.key.range[0]), line(pair.value.range[1])]);
  }
  const scopeOf = (l) => scopes.find(([a, b]) => a <= l && l <= b) ?? WHOLE;
  const refs = [];
  const walk = (node) => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? pair.key.value : undefined;
        if (key === '$ref' && isScalar(pair.value) && typeof pair.value.value === 'string') {
          const rel = pair.value.value.split('#')[0];
          if (rel) {
            const l = line(pair.value.range[0]);
            refs.push({ line: l, target: path.resolve(path.dirname(file), rel), scope: scopeOf(l) });
          }
        } else walk(pair.value);
      }
    } else if (isSeq(node)) node.items.forEach(walk);
  };
  walk(doc.contents);
  return { refs, scopeOf };
}

/** Parses stylish text into [{ header, file, problems: [{ text, line, rule, message }] }] and the other lines. */
function parseStylish(text, cwd) {
  const groups = [];
  const lines = text.split('\n');
  const out = [];
  let group;
  for (const l of lines) {
    const h = HEADER.exec(l);
    if (h && !/validated in/.test(l)) {
      group = { header: l, file: path.resolve(cwd, h[1]), problems: [] };
      groups.push(group);
      out.push(group);
      continue;
    }
    const m = PROBLEM.exec(l);
    if (m && group) group.problems.push({ text: l, line: Number(m[1]), rule: m[4], message: m[5] });
    else if (group && l.trim() === '') continue;
    else {
      group = undefined;
      out.push(l);
    }
  }
  return { groups, out };
}

/** Scopes tainted by the broken `$ref`s: Map file → [fromLine, toLine][]; and the names the `$ref`s meant. */
function taint(broken, root) {
  const files = yamlFiles(path.dirname(root));
  const info = new Map(files.map((f) => [f, readFile(f, root)]));
  const tainted = new Map();
  const add = (file, scope) => {
    const list = tainted.get(file) ?? [];
    if (list.some(([a, b]) => a <= scope[0] && scope[1] <= b)) return false;
    tainted.set(file, [...list, scope]);
    return true;
  };
  const inTaint = (file, l) => (tainted.get(file) ?? []).some(([a, b]) => a <= l && l <= b);
  const whole = (file) => (tainted.get(file) ?? []).some(([a, b]) => a === 1 && b === Infinity);
  for (const b of broken) add(b.file, info.get(b.file)?.scopeOf(b.line) ?? WHOLE);
  const referrers = new Map();
  for (const [file, { refs }] of info) for (const r of refs) referrers.set(r.target, [...(referrers.get(r.target) ?? []), { file, ...r }]);
  for (let changed = true; changed; ) {
    changed = false;
    for (const [file, { refs }] of info) for (const r of refs) if (whole(r.target) && add(file, r.scope)) changed = true;
    for (const [target, from] of referrers) {
      if (!info.has(target) || whole(target)) continue;
      if (from.every((r) => inTaint(r.file, r.line)) && add(target, WHOLE)) changed = true;
    }
  }
  return { inTaint, files };
}

/** Names the file of the same name that exists (in a folder of the same name if several), relative to the file holding the `$ref`. */
function suggest(problem, file, files) {
  const missing = /no such file or directory '([^']+)'/.exec(problem.message)?.[1];
  if (!missing) return undefined;
  const named = files.filter((f) => path.basename(f) === path.basename(missing));
  const folder = (f) => path.basename(path.dirname(f));
  const same = named.length > 1 ? named.filter((f) => folder(f) === folder(missing)) : named;
  if (same.length !== 1) return undefined;
  return path.relative(path.dirname(file), same[0]).split(path.sep).join('/');
}

/** The stylish text less the knock-ons of broken `$ref`s; unchanged when no `$ref` is broken. */
export function skipKnockOns(text, { cwd, root }) {
  const { groups, out } = parseStylish(text, cwd);
  const broken = groups.flatMap((g) => g.problems.filter((p) => p.rule === 'no-unresolved-refs').map((p) => ({ ...p, file: g.file })));
  if (broken.length === 0 || !fs.existsSync(root)) return text;
  const { inTaint, files } = taint(broken, root);
  const meant = new Set(broken.map((b) => /no such file or directory '([^']+)'/.exec(b.message)?.[1]).filter(Boolean).map((m) => path.basename(m)));
  let skipped = 0;
  let kept = { error: 0, warning: 0 };
  for (const g of groups) {
    g.problems = g.problems.flatMap((p) => {
      if (p.rule === 'no-unresolved-refs') {
        const s = suggest(p, g.file, files);
        return [{ ...p, text: s ? `${p.text} (did you mean \`${s}\`?)` : p.text }];
      }
      const knock = inTaint(g.file, p.line) || (p.rule === 'policy/unreferenced-files' && meant.has(path.basename(g.file)));
      if (knock) skipped++;
      return knock ? [] : [p];
    });
    for (const p of g.problems) kept[/^\s+\d+:\d+\s+(error|warning)/.exec(p.text)[1]]++;
  }
  const note = `Skipped ${skipped} problem${skipped === 1 ? '' : 's'} that follow from the $ref that does not resolve: fix the $ref and lint again.`;
  const lines = out.flatMap((item) => {
    if (typeof item !== 'string') return item.problems.length ? [item.header, ...item.problems.map((p) => p.text), ''] : [];
    if (/Validation failed with/.test(item)) {
      const parts = [kept.error && `${kept.error} error${kept.error === 1 ? '' : 's'}`, kept.warning && `${kept.warning} warning${kept.warning === 1 ? '' : 's'}`].filter(Boolean);
      return [item.replace(/with .*\./, `with ${parts.join(' and ')}.`), note];
    }
    return [item];
  });
  return lines.join('\n');
}
