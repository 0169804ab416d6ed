// Where a node of a block-style YAML bundle starts, found on demand by indentation (decision VG19), instead of
// `yaml`'s document API over the whole file (~0.5 s for the ~0.6 MB bundle, the gate's largest own cost on a cold
// run). The gate asks for a few hundred pointers at most, each a descent through the lines of its ancestors.
//
// It reads the layout `npm run generate` writes (`yaml`'s stringify: block maps and sequences, keys plain or
// quoted, `- ` items, scalars on the key's line or in a `|`/`>` block). Anything else it does not guess at: a
// pointer it cannot follow returns undefined, and the caller falls back to a full parse. test/scripts/lib/diff/
// yaml-lines.test.ts checks that it gives `yaml`'s answer for every node of both committed bundles.

/** A line's content start: its indentation and the text after it. */
interface Line {
  indent: number;
  text: string;
}

/** A node's content: lines [from, to) at `indent`; `head` stands for the first line when it starts after a dash. */
interface Block {
  from: number;
  to: number;
  indent: number;
  head?: Line;
}

interface Found {
  at: [number, number];
  block?: Block;
}

/** The 1-based line and column where the node at `pointer` ("#/a/b~1c/0") starts, as `yaml`'s LineCounter gives them. */
export type Locator = (pointer: string) => [number, number] | undefined;

export function yamlLocator(source: string): Locator {
  const lines: Line[] = source.split("\n").map((raw) => {
    const text = raw.replace(/\r$/, "").trimStart();
    // A comment line holds no node (inside a block scalar it is text, but no pointer reaches into one).
    return { indent: raw.length - raw.trimStart().length, text: text.startsWith("#") ? "" : text };
  });
  return (pointer) => {
    if (pointer === "#") return firstContent(lines, 0, lines.length, 0);
    const segs = pointer.replace(/^#\//, "").split("/").map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
    // The node being descended: its block (lines [from, to)) at `indent`, or its start on a key's or item's line.
    let block: Block = { from: 0, to: lines.length, indent: 0 };
    let at: [number, number] | undefined;
    for (let i = 0; i < segs.length; i++) {
      const found = child(lines, block, segs[i]!);
      if (!found) return undefined;
      at = found.at;
      if (i < segs.length - 1) {
        if (!found.block) return undefined;
        block = found.block;
      }
    }
    return at;
  };
}

function firstContent(lines: Line[], from: number, to: number, minIndent: number): [number, number] | undefined {
  for (let n = from; n < to; n++) if (lines[n]!.text && lines[n]!.indent >= minIndent) return [n + 1, lines[n]!.indent + 1];
  return undefined;
}

/** How a key is written: plain, or double- or single-quoted. */
function keyForms(key: string): string[] {
  return [`${key}:`, `${JSON.stringify(key)}:`, `'${key.replaceAll("'", "''")}':`];
}

/** The end (exclusive) of the lines more indented than `indent` from `from`, blank lines included. */
function blockEnd(lines: Line[], from: number, to: number, indent: number, seqAtSameIndent: boolean): number {
  let n = from;
  while (n < to) {
    const l = lines[n]!;
    if (l.text && (l.indent < indent || (l.indent === indent && !(seqAtSameIndent && /^-( |$)/.test(l.text))))) break;
    n++;
  }
  return n;
}

/**
 * The child `seg` of the node whose content is the block: for a map, the line at the block's indentation holding
 * `seg:`; for a sequence, its `seg`-th `- ` item. Its start, and its own block when it has one.
 */
function child(all: Line[], block: Block, seg: string): Found | undefined {
  // A map item's first line is the dash's: seen from the map, it starts at the first key.
  const line = (n: number) => (n === block.from && block.head ? block.head : all[n]!);
  let start = block.from;
  while (start < block.to && !(line(start).text && line(start).indent >= block.indent)) start++;
  if (start >= block.to) return undefined;
  const indent = line(start).indent;
  const isSeq = /^-( |$)/.test(line(start).text);
  if (isSeq) {
    if (!/^\d+$/.test(seg)) return undefined;
    let count = -1;
    for (let n = start; n < block.to; n++) {
      const l = line(n);
      if (!l.text || l.indent !== indent) continue;
      if (!/^-( |$)/.test(l.text)) return undefined;
      if (++count === Number(seg)) return item(all, n, block.to, indent);
    }
    return undefined;
  }
  const forms = keyForms(seg);
  for (let n = start; n < block.to; n++) {
    const l = line(n);
    if (!l.text || l.indent !== indent) continue;
    const form = forms.find((f) => l.text.startsWith(f) && (l.text.length === f.length || l.text[f.length] === " "));
    if (form) return value(all, n, block.to, indent, indent + form.length, l);
  }
  return undefined;
}

/** A `- ` item at line n: its content starts after the dash (a map item's first key is on that line). */
function item(lines: Line[], n: number, to: number, indent: number): Found | undefined {
  const text = lines[n]!.text;
  const rest = text.slice(1).trimStart();
  const col = indent + (text.length - rest.length);
  if (!rest) return value(lines, n, to, indent, indent + 1);
  const end = blockEnd(lines, n + 1, to, indent + 1, false);
  // A map item (its keys at the column of the first one, on the dash's line) or a sequence's first item there.
  if (/^-( |$)/.test(rest) || /^("[^"]*"|'[^']*'|[^\s"'#|>{[][^:]*):( |$)/.test(rest)) return { at: [n + 1, col + 1] as [number, number], block: { from: n, to: end, indent: col, head: { indent: col, text: rest } } };
  return { at: [n + 1, col + 1] as [number, number], block: { from: n + 1, to: end, indent: col } };
}

/** The value of a key (or an empty `-`) ending at column `after` on line n: on that line, or the block below it. */
function value(lines: Line[], n: number, to: number, indent: number, after: number, line: Line = lines[n]!): Found | undefined {
  const text = line.text;
  const restRaw = text.slice(after - indent);
  const rest = restRaw.trimStart();
  if (rest) {
    const col = after + (restRaw.length - rest.length);
    return { at: [n + 1, col + 1] as [number, number], block: { from: n + 1, to: blockEnd(lines, n + 1, to, indent + 1, false), indent: indent + 1 } };
  }
  const end = blockEnd(lines, n + 1, to, indent + 1, true);
  const at = firstContent(lines, n + 1, end, indent);
  return at ? { at, block: { from: n + 1, to: end, indent } } : undefined;
}
