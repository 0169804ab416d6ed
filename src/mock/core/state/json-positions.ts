// Where a value sits in a JSON text: the offset of the value at a path, so an error names the line and column of
// what is wrong (json-file.ts). JSON.parse gives values, not where they are; yaml's parser knows positions but is
// ~30 KiB gzip in the browser simulation (decision MC11), and jsonc-parser, which would do it, cannot be bundled
// for Node by esbuild (its main is a UMD build whose requires esbuild leaves unresolved; its ESM build has no module
// marker Node honours): so the text is scanned here: one pass over the members
// on the way to the path, strings skipped with their escapes. The text must be valid JSON (it was parsed first).
const WS = new Set([0x20, 0x0a, 0x0d, 0x09]);

function skipWs(text: string, i: number): number {
  while (i < text.length && WS.has(text.charCodeAt(i))) i++;
  return i;
}

/** The index just past the string starting at `i` (a `"`). */
function endOfString(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x5c /* \ */) j++;
    else if (c === 0x22 /* " */) return j + 1;
  }
  return text.length;
}

/** The index just past the value starting at `i`. */
function endOfValue(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return endOfString(text, i);
  if (c !== "{" && c !== "[") {
    let j = i;
    while (j < text.length && !WS.has(text.charCodeAt(j)) && !",]}".includes(text[j]!)) j++;
    return j;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const d = text[j];
    if (d === '"') j = endOfString(text, j) - 1;
    else if (d === "{" || d === "[") depth++;
    else if ((d === "}" || d === "]") && --depth === 0) return j + 1;
  }
  return text.length;
}

/** The offset of the member or item `key` of the object or array starting at `i`, or -1 when it has none. */
function child(text: string, i: number, key: string | number): number {
  const array = text[i] === "[";
  if (array ? typeof key === "string" && !/^\d+$/.test(key) : typeof key !== "string") return -1;
  let j = skipWs(text, i + 1);
  for (let n = 0; j < text.length && text[j] !== "}" && text[j] !== "]"; n++) {
    let name: unknown = n;
    if (!array) {
      const end = endOfString(text, j);
      name = JSON.parse(text.slice(j, end));
      j = skipWs(text, skipWs(text, end) + 1); // past the colon
    }
    if (array ? n === Number(key) : name === key) return j;
    j = skipWs(text, endOfValue(text, j));
    if (text[j] === ",") j = skipWs(text, j + 1);
  }
  return -1;
}

/** The offset where the value at `path` starts in `text` (valid JSON), or 0 (the document) when there is none there. */
export function jsonValueOffset(text: string, path: ReadonlyArray<string | number>): number {
  let i = skipWs(text, 0);
  for (const key of path) {
    if (text[i] !== "{" && text[i] !== "[") return 0;
    i = child(text, i, key);
    if (i < 0) return 0;
  }
  return i;
}
