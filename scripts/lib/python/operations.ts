// The contract's operations for the Python client (python/src/analysis_api/_operations.py): the table the client
// sends by (operationId → method, path, parameters, body, response kind) and one typed method per operation,
// named after its operationId in snake_case. No npm tool emits a standard-library Python client, so this small
// generator is ours; it reads only the bundle (paths, parameters, schemas, security schemes, x-rate-limit-policy),
// never a list of resources.
//
// What each operation becomes:
//  - a JSON, text or empty answer: `client.<operation>(path params..., body, *, query and header params) -> T`;
//  - a list (a GET taking `cursor` that answers `{data, next_cursor, has_more}`): also `iter_<things>(...)`,
//    an iterator over every item of every page;
//  - an event stream (`text/event-stream`): an iterator of the typed events;
//  - an operation accepting the `token` query parameter (WebSocket, SSE): `<operation>_url(...)`, its URL with the
//    token (TLS or loopback only). A WebSocket operation (101) has only that: the standard library has no
//    WebSocket client, so the URL is handed to one.
import { PythonGenerateError, PythonTypes, pascal, pyLiteral, snake, docstring, type Schema } from "./types.js";

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;

interface PyParam {
  name: string;
  arg: string;
  in: "path" | "query" | "header";
  required: boolean;
  explode: boolean;
  type: string;
}

type Kind = "call" | "events" | "websocket";

interface PyOperation {
  id: string;
  method: string;
  path: string;
  summary: string;
  description: string;
  params: PyParam[];
  body?: { mediaType: string; required: boolean; type: string };
  kind: Kind;
  returns: string;
  /** `json`, `text` and `none` answers the operation documents. */
  answers: string[];
  listItem?: string;
  tokenQuery: boolean;
  events: string[];
}

/** Public names of the hand-written `Client` (python/src/analysis_api/_client.py) that no operation may take. */
const CLIENT_NAMES = ["base_url", "last_rate_limit", "max_stream_reconnects", "with_options"];

/** The binary request body type, defined in the hand-written runtime. */
const BINARY_BODY = "BinaryBody";

function deref(doc: Schema, v: unknown): Schema {
  let s = v as Schema;
  for (let i = 0; typeof s?.$ref === "string" && i < 20; i++) {
    const parts = (s.$ref as string).replace(/^#\//, "").split("/");
    s = parts.reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k.replace(/~1/g, "/").replace(/~0/g, "~")], doc) as Schema;
  }
  if (typeof s !== "object" || s === null) throw new PythonGenerateError(`unresolvable $ref ${JSON.stringify(v)}`);
  return s;
}

function isJson(mediaType: string): boolean {
  return /^application\/(.+\+)?json$/i.test(mediaType);
}

function isBinarySchema(s: Schema | undefined): boolean {
  return !!s && s.type === "string" && (s.format === "binary" || typeof s.contentMediaType === "string");
}

/** The security scheme of a kind (`apiKey` in `header`/`query`), by its definition. */
function schemeName(doc: Schema, where: "header" | "query"): { scheme: string; name: string } {
  const schemes = ((doc.components as Schema | undefined)?.securitySchemes ?? {}) as Record<string, Schema>;
  for (const [scheme, s] of Object.entries(schemes)) if (s.type === "apiKey" && s.in === where) return { scheme, name: String(s.name) };
  throw new PythonGenerateError(`#/components/securitySchemes: no apiKey scheme in ${where}, which the Python client sends credentials by`);
}

function collectParams(doc: Schema, types: PythonTypes, id: string, path: string, where: string, item: Schema, op: Schema): PyParam[] {
  const byKey = new Map<string, Schema>();
  for (const p of [...((item.parameters as unknown[]) ?? []), ...((op.parameters as unknown[]) ?? [])]) {
    const param = deref(doc, p);
    byKey.set(`${param.in}:${param.name}`, param);
  }
  const params: PyParam[] = [];
  for (const p of byKey.values()) {
    if (p.in !== "path" && p.in !== "query" && p.in !== "header") continue; // cookies: none in the contract
    const name = String(p.name);
    params.push({
      name,
      arg: snake(name),
      in: p.in,
      required: p.in === "path" || p.required === true,
      explode: p.explode !== false,
      type: types.expr(p.schema, `${pascal(id)}${pascal(name)}`, `${where}/parameters/${name}`, false),
    });
  }
  const inPath = params.filter((p) => p.in === "path");
  const order = (p: PyParam) => path.indexOf(`{${p.name}}`);
  inPath.sort((a, b) => order(a) - order(b));
  return [...inPath, ...params.filter((p) => p.in !== "path")];
}

function collectBody(doc: Schema, types: PythonTypes, id: string, where: string, op: Schema): PyOperation["body"] {
  if (!op.requestBody) return undefined;
  const rb = deref(doc, op.requestBody);
  const content = (rb.content ?? {}) as Record<string, Schema>;
  const mediaTypes = Object.keys(content);
  const mediaType = mediaTypes.find(isJson) ?? mediaTypes[0];
  if (!mediaType) return undefined;
  const schema = content[mediaType]!.schema as Schema | undefined;
  const binary = mediaType === "application/octet-stream" || isBinarySchema(schema && deref(doc, schema));
  const type = binary ? BINARY_BODY : types.expr(schema, `${pascal(id)}Request`, `${where}/requestBody`, false);
  return { mediaType, required: rb.required === true, type };
}

/** The item type of a list answer `{data: [...], next_cursor, has_more}`, or undefined when it is not one. */
function listItemType(doc: Schema, types: PythonTypes, id: string, where: string, schema: unknown): string | undefined {
  if (!schema) return undefined;
  const s = deref(doc, schema);
  const props = (s.properties ?? {}) as Record<string, Schema>;
  if (!props.data || !props.has_more || !props.next_cursor) return undefined;
  const data = deref(doc, props.data);
  if (data.type !== "array") return undefined;
  return types.expr(data.items, `${pascal(id)}Item`, `${where}/data/items`, false);
}

/** Kind and return type of an operation, from its 1xx/2xx responses. */
function collectResponses(doc: Schema, types: PythonTypes, id: string, where: string, op: Schema) {
  const responses = (op.responses ?? {}) as Record<string, unknown>;
  const returns: string[] = [];
  const answers = new Set<string>();
  let kind: Kind = "call";
  let eventType = "";
  let events: string[] = [];
  let json: unknown;
  for (const [status, r] of Object.entries(responses)) {
    if (!/^[12]\d\d$/.test(status)) continue;
    if (status === "101") {
      kind = "websocket";
      continue;
    }
    const content = (deref(doc, r).content ?? {}) as Record<string, Schema>;
    const mediaTypes = Object.keys(content);
    if (mediaTypes.length === 0) {
      returns.push("None");
      answers.add("none");
    }
    for (const mediaType of mediaTypes) {
      const schema = content[mediaType]!.schema;
      if (/^text\/event-stream/i.test(mediaType)) {
        kind = "events";
        eventType = types.expr(schema, `${pascal(id)}Event`, `${where}/responses/${status}`, false);
        events = eventKinds(doc, schema);
      } else if (isJson(mediaType)) {
        json ??= schema;
        returns.push(types.expr(schema, `${pascal(id)}Response`, `${where}/responses/${status}`, false));
        answers.add("json");
      } else {
        returns.push("str");
        answers.add("text");
      }
    }
  }
  const unique = [...new Set(returns)];
  const nullable = unique.includes("None") && unique.length > 1;
  const rest = unique.filter((t) => !nullable || t !== "None");
  let ret = rest.length === 0 ? "None" : rest.length === 1 ? rest[0]! : `Union[${rest.join(", ")}]`;
  if (nullable) ret = `Optional[${ret}]`;
  if (kind === "events") ret = `Iterator[${eventType}]`;
  return { kind, returns: ret, answers: [...answers].sort(), events, json };
}

/** The event names of an event-stream schema: its discriminator's, or the `event` consts of its variants. */
function eventKinds(doc: Schema, schema: unknown): string[] {
  const s = deref(doc, schema);
  const d = s.discriminator as { propertyName?: string; mapping?: Record<string, string> } | undefined;
  if (d?.propertyName === "event" && d.mapping) return Object.keys(d.mapping);
  const variants = (s.oneOf ?? s.anyOf ?? [s]) as unknown[];
  return variants.flatMap((v) => {
    const ev = (deref(doc, v).properties as Record<string, Schema> | undefined)?.event;
    return ev && typeof ev.const === "string" ? [ev.const] : [];
  });
}

export function collectOperations(doc: Schema, types: PythonTypes): PyOperation[] {
  const token = schemeName(doc, "query");
  const ops: PyOperation[] = [];
  for (const [path, itemRef] of Object.entries((doc.paths ?? {}) as Record<string, unknown>)) {
    const item = deref(doc, itemRef);
    for (const method of METHODS) {
      const op = item[method] as Schema | undefined;
      if (!op) continue;
      const where = `#/paths/${path.replace(/~/g, "~0").replace(/\//g, "~1")}/${method}`;
      if (typeof op.operationId !== "string") throw new PythonGenerateError(`${where}: no operationId, which names the Python method`);
      const id = op.operationId;
      const params = collectParams(doc, types, id, path, where, item, op);
      const body = collectBody(doc, types, id, where, op);
      const r = collectResponses(doc, types, id, where, op);
      const security = (op.security ?? doc.security ?? []) as Array<Record<string, unknown>>;
      const cursor = params.some((p) => p.in === "query" && p.name === "cursor");
      ops.push({
        id,
        method: method.toUpperCase(),
        path,
        summary: typeof op.summary === "string" ? op.summary : id,
        description: typeof op.description === "string" ? op.description : "",
        params,
        body,
        kind: r.kind,
        returns: r.returns,
        answers: r.answers,
        listItem: method === "get" && cursor ? listItemType(doc, types, id, where, r.json) : undefined,
        tokenQuery: security.some((s) => token.scheme in s),
        events: r.events,
      });
    }
  }
  return ops;
}

// ---- rendering ---------------------------------------------------------------------------------------------

function paramEntry(p: PyParam): string {
  return `Param(${JSON.stringify(p.name)}, ${JSON.stringify(p.arg)}, ${JSON.stringify(p.in)}, ${p.required ? "True" : "False"}${p.explode ? "" : ", explode=False"})`;
}

function tableEntry(op: PyOperation): string {
  const fields = [
    `${JSON.stringify(op.id)}`,
    `${JSON.stringify(op.method)}`,
    `${JSON.stringify(op.path)}`,
    `params=(${op.params.map(paramEntry).join(", ")}${op.params.length === 1 ? "," : ""})`,
  ];
  if (op.body) fields.push(`body=${JSON.stringify(op.body.mediaType)}`);
  if (op.kind !== "call") fields.push(`kind=${JSON.stringify(op.kind)}`);
  if (op.answers.length) fields.push(`answers=(${op.answers.map((a) => JSON.stringify(a)).join(", ")}${op.answers.length === 1 ? "," : ""})`);
  if (op.events.length) fields.push(`events=(${op.events.map(pyLiteral).join(", ")}${op.events.length === 1 ? "," : ""})`);
  if (op.listItem) fields.push("paginated=True");
  if (op.tokenQuery) fields.push("token_query=True");
  return `    ${JSON.stringify(op.id)}: Operation(\n${fields.map((f) => `        ${f},\n`).join("")}    ),\n`;
}

interface Signature {
  params: string[];
  args: string;
  body: string;
}

/** The signature of a method: path parameters and a required body positional, the rest keyword-only. */
function signature(op: PyOperation, withHeaders: boolean, withBody: boolean): Signature {
  const used = op.params.filter((p) => withHeaders || p.in !== "header");
  const args = used.map((p) => p.arg);
  if (withBody && op.body) args.push("body");
  if (new Set(args).size !== args.length || args.includes("self")) {
    throw new PythonGenerateError(`operation ${op.id}: two parameters become the same Python argument (${args.join(", ")})`);
  }
  const positional = used.filter((p) => p.in === "path").map((p) => `${p.arg}: ${p.type}`);
  const keyword: string[] = [];
  if (withBody && op.body) (op.body.required ? positional : keyword).push(op.body.required ? `body: ${op.body.type}` : `body: Optional[${op.body.type}] = None`);
  for (const p of used.filter((q) => q.in !== "path")) keyword.push(p.required ? `${p.arg}: ${p.type}` : `${p.arg}: Optional[${p.type}] = None`);
  const params = ["self", ...positional, ...(keyword.length ? ["*", ...keyword] : [])];
  const dict = `{${used.map((p) => `${JSON.stringify(p.arg)}: ${p.arg}`).join(", ")}}`;
  return { params, args: dict, body: withBody && op.body ? ", body" : "" };
}

function method(name: string, sig: Signature, returns: string, doc: string, call: string): string {
  const line = `    def ${name}(${sig.params.join(", ")}) -> ${returns}:\n`;
  const head = line.length <= 121 ? line : `    def ${name}(\n${sig.params.map((p) => `        ${p},\n`).join("")}    ) -> ${returns}:\n`;
  return `${head}${docstring(doc, "        ")}        ${call}\n`;
}

function methods(op: PyOperation): string[] {
  const name = snake(op.id);
  const where = `\`${op.method} ${op.path}\``;
  const ref = `OPERATIONS[${JSON.stringify(op.id)}]`;
  const out: string[] = [];
  if (op.kind === "call") {
    const sig = signature(op, true, true);
    const call = `self._call(${ref}, ${sig.args}${sig.body})`;
    const doc = `${op.summary}: ${where}.\n\n${op.description}`;
    out.push(method(name, sig, op.returns, doc, op.returns === "None" ? call : `return cast(${JSON.stringify(op.returns)}, ${call})`));
    if (op.listItem) {
      const iter = name.startsWith("list_") ? `iter_${name.slice(5)}` : `iter_${name}`;
      const itDoc = `Every item of \`${name}\`, page after page: follows \`next_cursor\` while \`has_more\` (${where}).`;
      const ret = `Iterator[${op.listItem}]`;
      out.push(method(iter, sig, ret, itDoc, `return cast(${JSON.stringify(ret)}, self._paginate(${ref}, ${sig.args}))`));
    }
  } else if (op.kind === "events") {
    const sig = signature(op, true, false);
    const doc = `${op.summary}: ${where}, as an iterator of typed events. It reconnects with \`Last-Event-ID\` when the connection drops before the last event.\n\n${op.description}`;
    out.push(method(name, sig, op.returns, doc, `return cast(${JSON.stringify(op.returns)}, self._events(${ref}, ${sig.args}))`));
  }
  if (op.tokenQuery) {
    const sig = signature(op, false, false);
    const scheme = op.kind === "websocket" ? "`wss://` (`ws://` on loopback)" : "`https://` (`http://` on loopback)";
    const doc = `The ${scheme} URL of ${where} with the \`token\` query parameter, for a client that cannot send headers${op.kind === "websocket" ? " (the standard library has no WebSocket client: hand the URL to one)" : ""}. Raises \`InsecureTransportError\` for a URL without TLS that is not loopback.\n\n${op.summary}.`;
    out.push(method(`${name}_url`, sig, "str", doc, `return self._token_url(${ref}, ${sig.args})`));
  }
  return out;
}

export function renderOperations(doc: Schema, ops: PyOperation[], modelNames: string[]): string {
  const policy = (doc["x-rate-limit-policy"] ?? {}) as { headers?: Record<string, string> };
  if (!policy.headers) throw new PythonGenerateError("#/x-rate-limit-policy/headers is missing: the Python client reads the rate-limit headers by it");
  const apiKey = schemeName(doc, "header");
  const token = schemeName(doc, "query");
  const rendered = ops.flatMap(methods);
  const names = rendered.map((m) => /def (\w+)/.exec(m)![1]!);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new PythonGenerateError(`two operations become the Python method ${dup}`);
  const reserved = names.find((n) => CLIENT_NAMES.includes(n));
  if (reserved) throw new PythonGenerateError(`an operation becomes the Python method ${reserved}, which the hand-written Client already has`);
  const code = rendered.join("\n");
  const used = modelNames.filter((n) => new RegExp(`\\b${n}\\b`).test(code));
  return [
    "# Generated by `npm run generate` from spec/openapi.yaml (scripts/lib/python/operations.ts). Do not edit.",
    '"""The operations of the contract: the table the client sends by, and one typed method per operation."""',
    "",
    "from __future__ import annotations",
    "",
    "from typing import Dict, Iterator, List, Literal, Optional, Union, cast",
    "",
    `from ._runtime import ${BINARY_BODY}, Operation, OperationsBase, Param`,
    used.length ? `from .models import (\n${used.map((n) => `    ${n},\n`).join("")})` : "",
    "",
    `API_KEY_HEADER = ${JSON.stringify(apiKey.name)}`,
    '"""The header an API key is sent in (security scheme `' + apiKey.scheme + '`)."""',
    `TOKEN_QUERY_PARAM = ${JSON.stringify(token.name)}`,
    '"""The query parameter of a token on WebSocket and SSE operations (security scheme `' + token.scheme + '`)."""',
    "RATE_LIMIT_HEADERS: Dict[str, str] = {",
    ...Object.entries(policy.headers).map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)},`),
    "}",
    '"""The rate-limit headers, by the names of `RateLimit` (`x-rate-limit-policy.headers`)."""',
    "",
    "OPERATIONS: Dict[str, Operation] = {",
    ops.map(tableEntry).join("").trimEnd(),
    "}",
    "",
    "",
    "class Operations(OperationsBase):",
    '    """One method per operation of the contract, named after its operationId in snake_case."""',
    "",
    code.trimEnd(),
    "",
  ].join("\n");
}
