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
import { PythonGenerateError, PythonTypes, pascal, pyLiteral, snake, type Schema } from "./types.js";

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;

interface PyParam {
  name: string;
  arg: string;
  in: "path" | "query" | "header";
  required: boolean;
  explode: boolean;
  type: string;
  description: string;
}

type Kind = "call" | "events" | "websocket";

export interface PyOperation {
  id: string;
  method: string;
  path: string;
  summary: string;
  description: string;
  params: PyParam[];
  body?: { mediaType: string; required: boolean; type: string; description: string };
  kind: Kind;
  returns: string;
  /** `json`, `text` and `none` answers the operation documents. */
  answers: string[];
  listItem?: string;
  tokenQuery: boolean;
  events: string[];
  /** The first tag, which names the resource namespace. */
  tag: string;
  /** The documented error statuses (4xx, 5xx). */
  errors: number[];
  /** Fields of a multipart body typed as files. */
  files: string[];
  /** The Python callables wrapping a JSON answer (a list's items) and an event in their models, set once every
   * type is known (`setConverters`). */
  convert?: string | null;
  convertEvent?: string | null;
  bodyDescription: string;
}

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
      description: typeof p.description === "string" ? p.description : "",
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
  return { mediaType, required: rb.required === true, type, description: typeof rb.description === "string" ? rb.description : "" };
}

/** The properties of a multipart body that are files (`format: binary` or a `contentMediaType`). */
function fileFields(doc: Schema, op: Schema): string[] {
  if (!op.requestBody) return [];
  const content = (deref(doc, op.requestBody).content ?? {}) as Record<string, Schema>;
  const form = content["multipart/form-data"]?.schema;
  if (!form) return [];
  const props = (deref(doc, form).properties ?? {}) as Record<string, unknown>;
  return Object.entries(props).filter(([, v]) => isBinarySchema(deref(doc, v))).map(([k]) => k);
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
      // What the caller sends is typed as plain dicts (TypedDicts), what comes back as models (decision PY30).
      types.mode = "param";
      const params = collectParams(doc, types, id, path, where, item, op);
      const body = collectBody(doc, types, id, where, op);
      types.mode = "model";
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
        tag: Array.isArray(op.tags) && typeof op.tags[0] === "string" ? op.tags[0] : path.split("/").filter(Boolean)[0] ?? "default",
        errors: Object.keys((op.responses ?? {}) as object).filter((k) => /^[45]\d\d$/.test(k)).map(Number),
        files: fileFields(doc, op),
        bodyDescription: body?.description ?? "",
      });
    }
  }
  return ops;
}

/** Sets each operation's converters (its answer's, a page's too, and its events'), after every type is known. */
export function setConverters(ops: PyOperation[], types: PythonTypes): void {
  for (const op of ops) {
    if (op.kind === "events") op.convertEvent = types.converter(op.returns.replace(/^Iterator\[(.*)\]$/, "$1"));
    else if (op.answers.includes("json")) op.convert = types.converter(op.returns);
  }
}

// ---- rendering ---------------------------------------------------------------------------------------------

function paramEntry(p: PyParam): string {
  return `Param(${JSON.stringify(p.name)}, ${JSON.stringify(p.arg)}, ${JSON.stringify(p.in)}, ${p.required ? "True" : "False"}${p.explode ? "" : ", explode=False"})`;
}

export function tableEntry(op: PyOperation): string {
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
  if (op.files.length) fields.push(`files=(${op.files.map((f) => JSON.stringify(f)).join(", ")},)`);
  if (op.convert) fields.push(`convert=models.${op.convert}`);
  if (op.convertEvent) fields.push(`convert_event=models.${op.convertEvent}`);
  return `    ${JSON.stringify(op.id)}: Operation(\n${fields.map((f) => `        ${f},\n`).join("")}    ),\n`;
}


/** The constants the runtime reads from the contract: credential names and the rate-limit headers. */
export function constants(doc: Schema): string[] {
  const policy = (doc["x-rate-limit-policy"] ?? {}) as { headers?: Record<string, string> };
  if (!policy.headers) throw new PythonGenerateError("#/x-rate-limit-policy/headers is missing: the Python client reads the rate-limit headers by it");
  const apiKey = schemeName(doc, "header");
  const token = schemeName(doc, "query");
  const requestId = (doc["x-request-id"] as { header?: unknown } | undefined)?.header;
  if (typeof requestId !== "string") throw new PythonGenerateError("#/x-request-id/header is missing: the Python client reads the request id by it");
  const version = (doc.info as Schema | undefined)?.version;
  if (typeof version !== "string") throw new PythonGenerateError("#/info/version is missing: the Python package's version is the contract's");
  return [
    `CONTRACT_VERSION = ${JSON.stringify(version)}`,
    '"""`info.version` of the contract this module was generated from; the package\'s version."""',
    `API_KEY_HEADER = ${JSON.stringify(apiKey.name)}`,
    '"""The header an API key is sent in (security scheme `' + apiKey.scheme + '`)."""',
    `TOKEN_QUERY_PARAM = ${JSON.stringify(token.name)}`,
    '"""The query parameter of a token on WebSocket and SSE operations (security scheme `' + token.scheme + '`)."""',
    `REQUEST_ID_HEADER = ${JSON.stringify(requestId)}`,
    '"""The header naming the request on every answer (`x-request-id.header`)."""',
    "RATE_LIMIT_HEADERS: Dict[str, str] = {",
    ...Object.entries(policy.headers).map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)},`),
    "}",
    '"""The rate-limit headers, by the names of `RateLimit` (`x-rate-limit-policy.headers`)."""',
  ];
}
