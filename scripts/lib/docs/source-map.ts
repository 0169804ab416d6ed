// Maps a JSON pointer into the bundle (generated/openapi.json) back to the source file under spec/ and its line, so
// a finding on the bundle (OWASP via Spectral) names the file to edit. Redocly's bundler keeps no source map, so
// the pointer is walked through the unbundled documents instead: each `$ref` to a file is followed into that file,
// and a bundled component the root does not declare (`#/components/schemas/Tag`) is the file named after it
// (`components/schemas/Tag.yaml`, spec/README.md's one-thing-per-file rule). Where the walk meets something the
// source does not have (text `npm run generate` rendered), it stops at the deepest node it found.
import fs from "node:fs";
import path from "node:path";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from "yaml";
import { SPEC_ROOT } from "../paths.js";

export interface SourcePlace {
  /** Absolute path of the source file. */
  file: string;
  /** 1-based line of the node (or of the deepest node found). */
  line: number;
}

interface Parsed {
  doc: Document;
  lines: LineCounter;
}

/** The segments of a JSON pointer (`#/a/b~1c` → `a`, `b/c`). */
export function pointerSegments(pointer: string): string[] {
  const body = pointer.replace(/^#?\/?/, "");
  return body === "" ? [] : body.split("/").map((s) => decodeURIComponent(s).replaceAll("~1", "/").replaceAll("~0", "~"));
}

export class SourceMap {
  private readonly files = new Map<string, Parsed | null>();
  constructor(private readonly root = SPEC_ROOT) {}

  private load(file: string): Parsed | null {
    if (!this.files.has(file)) {
      let parsed: Parsed | null = null;
      try {
        const lines = new LineCounter();
        parsed = { doc: parseDocument(fs.readFileSync(file, "utf8"), { lineCounter: lines }), lines };
      } catch {
        parsed = null;
      }
      this.files.set(file, parsed);
    }
    return this.files.get(file)!;
  }

  /** The source file and line of a bundle pointer; undefined when not even the root can be read. */
  locate(pointer: string): SourcePlace | undefined {
    const segments = pointerSegments(pointer);
    let file = this.root;
    let parsed = this.load(file);
    if (!parsed) return undefined;
    let node: unknown = parsed.doc.contents;
    let i = 0;
    // A component the root does not declare was bundled from the file named after it.
    if (segments[0] === "components" && segments.length >= 3 && !parsed.doc.hasIn(segments.slice(0, 3))) {
      const own = path.join(path.dirname(this.root), "components", segments[1]!, `${segments[2]}.yaml`);
      const p = this.load(own);
      if (p) [file, parsed, node, i] = [own, p, p.doc.contents, 3];
    }
    for (; i < segments.length; i++) {
      const followed = this.follow(node, file);
      if (followed) [file, parsed, node] = [followed.file, followed.parsed, followed.parsed.doc.contents];
      const next = child(node, segments[i]!);
      if (next === undefined) break;
      node = next;
    }
    const offset = (node as { range?: [number, number, number] } | null)?.range?.[0] ?? 0;
    return { file, line: parsed!.lines.linePos(offset).line };
  }

  /** The file a `{$ref: other.yaml}` node points to, parsed; undefined for anything else. */
  private follow(node: unknown, from: string): { file: string; parsed: Parsed } | undefined {
    if (!isMap(node)) return undefined;
    const ref = node.get("$ref");
    if (typeof ref !== "string" || ref.startsWith("#")) return undefined;
    const file = path.resolve(path.dirname(from), ref.split("#")[0]!);
    const parsed = this.load(file);
    return parsed ? { file, parsed } : undefined;
  }
}

/** The child node of a YAML map or sequence by key or index. */
function child(node: unknown, key: string): unknown {
  if (isMap(node)) {
    const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === key);
    return pair ? (pair.value ?? pair.key) : undefined;
  }
  if (isSeq(node)) return node.items[Number(key)];
  return undefined;
}
