// JSON pointers into a bundled contract, and the words a person reads for them ("GET /v1/speakers response 200
// field `data[].name`"). Shared by the versioning gate's own rules, its report and the changelog.
import type { Json } from "../contract.js";

export const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

const unescape = (s: string) => s.replace(/~1/g, "/").replace(/~0/g, "~");
const escape = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** `#/paths/~1v1~1speakers/get` → ["paths", "/v1/speakers", "get"]. */
export function splitPointer(pointer: string): string[] {
  const body = pointer.replace(/^#\/?/, "");
  return body === "" ? [] : body.split("/").map(unescape);
}

/** ["paths", "/v1/speakers", "get"] → `#/paths/~1v1~1speakers/get`. */
export function toPointer(segments: Array<string | number>): string {
  return "#" + segments.map((s) => "/" + escape(String(s))).join("");
}

/** Follows a local `$ref` (also chains of them); anything else is returned as it is. */
export function deref(doc: Json, node: Json): Json {
  for (let i = 0; node && typeof node === "object" && typeof node.$ref === "string" && node.$ref.startsWith("#/") && i < 20; i++) {
    node = splitPointer(node.$ref).reduce((acc: Json, key) => acc?.[key], doc);
  }
  return node;
}

/**
 * The node at a pointer, following `$ref`s on the way, because `redocly diff` reports logical pointers that
 * walk through references (`#/paths/.../schema/properties/data/items/properties/name`).
 */
export function resolvePointer(doc: Json, pointer: string): Json {
  let node = doc;
  for (const key of splitPointer(pointer)) {
    node = deref(doc, node)?.[key];
    if (node === undefined) return undefined;
  }
  return deref(doc, node);
}

const COMPONENT_WORDS: Record<string, string> = {
  schemas: "schema",
  securitySchemes: "security scheme",
  headers: "header",
  responses: "response",
  parameters: "parameter",
  examples: "example",
  requestBodies: "request body",
};

/**
 * A readable place for a pointer: the operation (or webhook, component, root key) first, then the response or
 * request body, header or parameter, then the schema field path. `docs` (head first, then base) name parameters.
 */
export function describePointer(pointer: string, docs: Json[] = []): string {
  const segs = splitPointer(pointer);
  if (segs.length === 0) return "the document";
  const parts: string[] = [];
  const field: string[] = [];
  let i: number;
  const [root, key, method] = segs;
  if ((root === "paths" || root === "webhooks") && key !== undefined) {
    const isOp = method !== undefined && HTTP_METHODS.includes(method);
    const label = root === "paths" ? key : `webhook ${key}`;
    parts.push(isOp ? (root === "paths" ? `${method!.toUpperCase()} ${key}` : `${label} (${method!.toUpperCase()})`) : label);
    i = isOp ? 3 : 2;
  } else if (root === "components" && key !== undefined && segs[2] !== undefined) {
    parts.push(`${COMPONENT_WORDS[key] ?? key} ${segs[2]}`);
    i = 3;
  } else if (root === "security" && key !== undefined) {
    parts.push(`root security requirement ${key}`);
    i = 2;
  } else {
    // Root keys such as `x-rate-limit-policy` or `info`: the rest is a plain key path.
    return segs.length === 1 ? root! : `${root} \`${segs.slice(1).join(".")}\``;
  }
  for (; i < segs.length; i++) {
    const s = segs[i]!;
    const next = segs[i + 1];
    if (s === "responses" && next !== undefined) {
      parts.push(`response ${next}`);
      i++;
    } else if (s === "requestBody") parts.push("request body");
    else if (s === "content" && next !== undefined) {
      if (next !== "application/json") parts.push(`(${next})`);
      i++;
    } else if (s === "schema") continue;
    else if (s === "headers" && next !== undefined) {
      parts.push(`header ${next}`);
      i++;
    } else if (s === "parameters" && next !== undefined) {
      const where = toPointer(segs.slice(0, i + 2));
      const p = docs.map((d) => resolvePointer(d, where)).find((n) => n && typeof n.name === "string");
      parts.push(p ? `${p.in ?? ""} parameter ${p.name}`.trim() : `parameter ${next}`);
      i++;
    } else if (s === "properties" && next !== undefined) {
      field.push(next);
      i++;
    } else if (s === "items") {
      if (field.length) field[field.length - 1] += "[]";
      else field.push("[]");
    } else if ((s === "oneOf" || s === "anyOf" || s === "allOf" || s === "security") && next !== undefined) {
      field.push(`${s}[${next}]`);
      i++;
    } else field.push(s);
  }
  if (field.length) parts.push(`\`${field.join(".")}\``);
  return parts.join(" ");
}

/**
 * "Reached by 3 operations: a, b, c." — every operation a change reaches; past `fold` names, the rest counted
 * ("…, and 94 more": the terminal); in full without `fold` (Markdown, JUnit). Empty without operations.
 */
export function reached(ops: readonly string[] | undefined, fold = Infinity): string {
  if (!ops?.length) return "";
  const shown = ops.length > fold ? [...ops.slice(0, fold), `and ${ops.length - fold} more`] : ops;
  return `Reached by ${ops.length} operation${ops.length === 1 ? "" : "s"}: ${shown.join(", ")}.`;
}
