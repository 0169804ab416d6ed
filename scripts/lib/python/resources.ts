// The Python client's resource namespaces (python/src/analysis_api/_operations.py), generated from the contract
// (decision PY20): one namespace per tag (`client.analyses`, `client.api_keys`), six classes each (sync, async,
// their `with_raw_response` twins and their `with_streaming_response` twins), and the naming rules:
//  - words: snake_case of the operationId, where the contract's compound words (`OAuth`, `OpenAPI`, spelled with
//    inner capitals in its tags and summaries) stay one word: `createOAuthToken` → `create_oauth_token`;
//  - a namespace is the snake_case of the operation's first tag;
//  - a method drops the words of its namespace's noun, plural or singular (`analyses.get`, `analyses.get_transcript`,
//    `api_keys.revoke`, `oauth.create_token`), unless two operations of a namespace would then share a name;
//  - a list operation also gets an iterator: `list` → `iter`, `list_speakers` → `iter_speakers`.
// Docstrings carry the summary, the description, an Args section (the parameters' descriptions) and a Raises
// section (the error classes of the statuses the operation documents).
import { type PyOperation, tableEntry } from "./operations.js";
import { PythonGenerateError, compoundWords, docstring, pascal, snake, type Schema } from "./types.js";

/** Public names of the hand-written clients (python/src/analysis_api/_client.py) that no namespace may take. */
const CLIENT_NAMES = ["base_url", "webhook_secret", "last_rate_limit", "with_options", "copy", "with_raw_response", "with_streaming_response", "close", "aclose"];
/** The per-call options every method takes, after the contract's parameters. */
const OPTIONS = ["timeout", "retry", "extra_headers", "extra_query"];
const WRITES = ["POST", "PATCH"];
/** Hand-written helpers a namespace also offers (not operations of the contract: webhook signatures). */
const MIXINS: Record<string, string> = { webhooks: "WebhookHelpers" };
/** The error class of a status, as python/src/analysis_api/_calls/_errors.py raises it. */
const ERROR_CLASSES: Record<number, string> = {
  400: "BadRequestError",
  401: "AuthenticationError",
  403: "PermissionDeniedError",
  404: "NotFoundError",
  409: "ConflictError",
  422: "UnprocessableEntityError",
  429: "RateLimitError",
};

type Mode = "sync" | "async" | "raw" | "asyncRaw" | "streaming" | "asyncStreaming";

function singular(word: string): string {
  if (/yses$/.test(word)) return word.replace(/yses$/, "ysis");
  if (/ies$/.test(word)) return word.replace(/ies$/, "y");
  if (/[^s]s$/.test(word)) return word.slice(0, -1);
  return word;
}

/** The method name of an operation inside its namespace: its words without the namespace's noun. */
function shortName(full: string, namespace: string): string {
  const words = full.split("_");
  const noun = namespace.split("_");
  for (const form of [noun, [...noun.slice(0, -1), singular(noun[noun.length - 1]!)]]) {
    for (let at = 1; at + form.length <= words.length; at++) {
      if (form.every((w, k) => words[at + k] === w)) return [...words.slice(0, at), ...words.slice(at + form.length)].join("_");
    }
  }
  return full;
}

export interface Named {
  op: PyOperation;
  namespace: string;
  name: string;
}

/** Namespaces and method names of every operation, by the rules above. */
export function nameOperations(doc: Schema, ops: PyOperation[]): Named[] {
  const texts = [...((doc.tags as Schema[] | undefined) ?? []).map((t) => String(t.name)), ...ops.map((o) => o.summary)];
  const compounds = compoundWords(texts);
  const named = ops.map((op) => {
    const namespace = snake(op.tag, compounds);
    const full = snake(op.id, compounds);
    return { op, namespace, full, name: shortName(full, namespace) };
  });
  for (const n of named) {
    const clash = named.filter((m) => m.namespace === n.namespace && (m.name === n.name || iterName(m.name) === n.name));
    if (clash.length > 1) for (const m of clash) m.name = m.full;
    if (CLIENT_NAMES.includes(n.namespace)) throw new PythonGenerateError(`tag ${n.op.tag} becomes the namespace ${n.namespace}, which the hand-written Client already has`);
  }
  const seen = new Set<string>();
  for (const n of named) {
    const key = `${n.namespace}.${n.name}`;
    if (seen.has(key)) throw new PythonGenerateError(`two operations become the Python method ${key}`);
    seen.add(key);
  }
  return named.map(({ op, namespace, name }) => ({ op, namespace, name }));
}

function iterName(name: string): string {
  return name === "list" ? "iter" : name.startsWith("list_") ? `iter_${name.slice(5)}` : `iter_${name}`;
}

/** `extra_body=` (issue 34): fields merged into an object body, for a field the contract does not declare yet;
 * not for a raw (binary) body. */
function takesExtraBody(op: PyOperation): boolean {
  return op.body !== undefined && !op.body.type.includes("BinaryBody");
}

interface Signature {
  params: string[];
  args: string;
  body: string;
  options: string;
}

/** The signature of a method: path parameters and a required body positional, the rest keyword-only, then the
 * per-call options (and `idempotency_key` on writes). */
function signature(op: PyOperation, withHeaders: boolean, withBody: boolean, withOptions: boolean): Signature {
  const used = op.params.filter((p) => withHeaders || p.in !== "header");
  // A contract that declares `Idempotency-Key` itself (issue 21) gives the argument; the option is then not added.
  const write = withOptions && WRITES.includes(op.method) && !used.some((p) => p.arg === "idempotency_key");
  const args = used.map((p) => p.arg);
  if (withBody && op.body) args.push("body");
  const extraBody = withOptions && withBody && takesExtraBody(op);
  const all = [...args, ...(withOptions ? OPTIONS : []), ...(write ? ["idempotency_key"] : []), ...(extraBody ? ["extra_body"] : [])];
  if (new Set(all).size !== all.length || all.includes("self")) {
    throw new PythonGenerateError(`operation ${op.id}: two parameters become the same Python argument (${all.join(", ")})`);
  }
  const positional = used.filter((p) => p.in === "path").map((p) => `${p.arg}: ${p.type}`);
  const keyword: string[] = [];
  if (withBody && op.body) (op.body.required ? positional : keyword).push(op.body.required ? `body: ${op.body.type}` : `body: Optional[${op.body.type}] = None`);
  for (const p of used.filter((q) => q.in !== "path")) keyword.push(p.required ? `${p.arg}: ${p.type}` : `${p.arg}: Optional[${p.type}] = None`);
  if (withOptions) keyword.push("timeout: TimeoutOption = NOT_GIVEN", "retry: RetryOption = NOT_GIVEN", "extra_headers: Headers = None", "extra_query: Query = None");
  if (write) keyword.push("idempotency_key: Optional[str] = None");
  if (extraBody) keyword.push("extra_body: Body = None");
  const params = ["self", ...positional, ...(keyword.length ? ["*", ...keyword] : [])];
  const dict = `{${used.map((p) => `${JSON.stringify(p.arg)}: ${p.arg}`).join(", ")}}`;
  const options = `RequestOptions(timeout, retry, extra_headers, extra_query${write ? ", idempotency_key" : ""}${extraBody ? `${write ? "" : ", None"}, extra_body` : ""})`;
  return { params, args: dict, body: withBody && op.body ? "body" : "None", options };
}

function method(name: string, sig: Signature, returns: string, doc: string, call: string, isAsync: boolean): string {
  const def = isAsync ? "async def" : "def";
  const line = `    ${def} ${name}(${sig.params.join(", ")}) -> ${returns}:\n`;
  const head = line.length <= 121 ? line : `    ${def} ${name}(\n${sig.params.map((p) => `        ${p},\n`).join("")}    ) -> ${returns}:\n`;
  return `${head}${docstring(doc, "        ")}        ${call}\n`;
}

/** A parameter's whole description in an Args entry: its lines after the first indented under it, blank lines
 * dropped (a blank line would end the entry). Issue 34: only the first line was kept, often mid-sentence. */
function argDoc(description: string): string {
  return description
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .join("\n        ");
}

/** Args and Raises sections of a docstring, from the contract. */
function sections(op: PyOperation, withBody: boolean, withOptions: boolean): string {
  const args = op.params.map((p) => `    ${p.arg}: ${argDoc(p.description) || `the \`${p.name}\` ${p.in} parameter`}`);
  if (withBody && op.body) args.push(`    body: ${argDoc(op.bodyDescription) || `the request body (${op.body.mediaType})`}`);
  if (withOptions) args.push("    timeout, retry, extra_headers, extra_query: options of this call only (see `RequestOptions`).");
  if (withOptions && withBody && takesExtraBody(op)) {
    args.push("    extra_body: fields merged into the body, for one the contract does not declare yet.");
  }
  if (withOptions && WRITES.includes(op.method) && !op.params.some((p) => p.arg === "idempotency_key")) {
    args.push("    idempotency_key: sent as `Idempotency-Key` on every attempt; default a new UUID per call.");
  }
  const raises = [...new Set(op.errors.map((s) => ERROR_CLASSES[s] ?? (s >= 500 ? "InternalServerError" : "ApiStatusError")))];
  const lines = raises.map((c) => `    ${c}: the service answered ${op.errors.filter((s) => (ERROR_CLASSES[s] ?? (s >= 500 ? "InternalServerError" : "ApiStatusError")) === c).join(", ")}.`);
  lines.push("    ApiConnectionError: no answer came (`NetworkError`, `RequestTimeoutError`).");
  return `${args.length ? `\n\nArgs:\n${args.join("\n")}` : ""}\n\nRaises:\n${lines.join("\n")}`;
}

function methods(n: Named, mode: Mode): string[] {
  const { op, name } = n;
  const isAsync = mode === "async" || mode === "asyncRaw" || mode === "asyncStreaming";
  // The twins: `with_raw_response` (the body read, `RawResponse`) and `with_streaming_response` (a context
  // manager whose body is read as it arrives; a plain method on both clients: the call is sent by `(async) with`).
  const streaming = mode === "streaming" || mode === "asyncStreaming";
  const raw = mode === "raw" || mode === "asyncRaw" || streaming;
  const aw = isAsync ? "await " : "";
  const where = `\`${op.method} ${op.path}\``;
  const ref = `OPERATIONS[${JSON.stringify(op.id)}]`;
  const out: string[] = [];
  if (op.kind === "call") {
    const sig = signature(op, true, true, true);
    // A list answers a page object (issue 34): iterating it walks every item of every page.
    // On AsyncClient, an AsyncPaginator (issue 49): awaited, the first page; `async for`, every item.
    const page = op.listItem && !raw ? `${isAsync ? "AsyncPaginator" : "SyncPage"}[${op.listItem}]` : undefined;
    const wrapper = streaming ? (isAsync ? "AsyncStreamingResponse" : "StreamingResponse") : "RawResponse";
    const returns = raw ? `${wrapper}[${op.returns}]` : page ?? op.returns;
    const call = page
      ? `self._client.${isAsync ? "_pager" : "_page"}(${ref}, ${sig.args}, ${sig.options})`
      : streaming
        ? `self._client._call_streaming(${ref}, ${sig.args}, ${sig.body}, ${sig.options})`
        : `${aw}self._client.${raw ? "_call_raw" : "_call"}(${ref}, ${sig.args}, ${sig.body}, ${sig.options})`;
    const pageDoc = !page ? "" : isAsync
      ? " Returns an `AsyncPaginator`: `await` it for the first `AsyncPage` (`.data`, `.has_more`, `.next_cursor`, `get_next_page()`, `iter_pages()`), or `async for` over it to walk every item of every page."
      : " Returns a `SyncPage`: `.data`, `.has_more`, `.next_cursor`, `get_next_page()`, `iter_pages()`; `for` over it walks every item of every page.";
    const twinDoc = streaming
      ? ` Returns ${isAsync ? "an `AsyncStreamingResponse` for `async with`" : "a `StreamingResponse` for `with`"}: sent when the block starts, the body read as it arrives, closed when the block ends.`
      : raw ? " Returns the answer's status and headers with `parse()`." : "";
    const doc = `${op.summary}: ${where}.${twinDoc}${pageDoc}\n\n${op.description}${sections(op, true, true)}`;
    out.push(method(name, sig, returns, doc, returns === "None" ? call : `return cast(${JSON.stringify(returns)}, ${call})`, isAsync && !(page && isAsync) && !streaming));
    if (op.listItem && !raw) {
      const itDoc = `Every item of \`${name}\`, page after page: follows \`next_cursor\` while \`has_more\` (${where}).${sections(op, false, true)}`;
      const ret = `${isAsync ? "AsyncIterator" : "Iterator"}[${op.listItem}]`;
      out.push(method(iterName(name), sig, ret, itDoc, `return cast(${JSON.stringify(ret)}, self._client._paginate(${ref}, ${sig.args}, ${sig.options}))`, false));
    }
  } else if (op.kind === "events" && !raw) {
    const sig = signature(op, true, false, true);
    const ret = `${isAsync ? "AsyncEventStream" : "EventStream"}[${op.returns.replace(/^Iterator\[(.*)\]$/, "$1")}]`;
    const doc = `${op.summary}: ${where}, as an ${isAsync ? "`AsyncEventStream`" : "`EventStream`"} of typed events (close it, or use it in \`${isAsync ? "async with" : "with"}\`). It ends after the final event or a 204, and reconnects with \`Last-Event-ID\` when the connection drops or stays silent longer than \`stream_idle_timeout\`.\n\n${op.description}${sections(op, false, true)}`;
    out.push(method(name, sig, ret, doc, `return cast(${JSON.stringify(ret)}, self._client._events(${ref}, ${sig.args}, ${sig.options}))`, false));
  }
  if (op.tokenQuery && !raw) {
    const sig = signature(op, false, false, false);
    const scheme = op.kind === "websocket" ? "`wss://` (`ws://` on loopback)" : "`https://` (`http://` on loopback)";
    const doc = `The ${scheme} URL of ${where} with the \`token\` query parameter, for a client that cannot send headers${op.kind === "websocket" ? " (the standard library has no WebSocket client: hand the URL to one)" : ""}. Raises \`InsecureTransportError\` for a URL without TLS that is not loopback.\n\n${op.summary}.`;
    out.push(method(`${name}_url`, sig, "str", doc, `return self._client._token_url(${ref}, ${sig.args})`, false));
  }
  return out;
}

const CLASS_SUFFIX: Record<Mode, [string, string]> = {
  sync: ["", "Resource"],
  async: ["Async", "Resource"],
  raw: ["", "WithRawResponse"],
  asyncRaw: ["Async", "WithRawResponse"],
  streaming: ["", "WithStreamingResponse"],
  asyncStreaming: ["Async", "WithStreamingResponse"],
};

function resourceClass(doc: Schema, namespace: string, members: Named[], mode: Mode): string {
  const [pre, post] = CLASS_SUFFIX[mode];
  const base = mode === "sync" || mode === "raw" || mode === "streaming" ? "SyncResource" : "AsyncResource";
  const mixin = MIXINS[namespace] && (mode === "sync" || mode === "async") ? `${MIXINS[namespace]}, ` : "";
  const tag = ((doc.tags as Schema[] | undefined) ?? []).find((t) => snake(String(t.name), compoundWords([String(t.name)])) === namespace);
  const about = typeof tag?.description === "string" ? tag.description : members[0]!.op.tag;
  const body = members.flatMap((m) => methods(m, mode));
  return `class ${pre}${pascal(namespace)}${post}(${mixin}${base}):\n${docstring(`\`client.${namespace}\`: ${about}`, "    ")}\n${body.join("\n")}`;
}

function container(name: string, namespaces: string[], mode: Mode, caller: string, bind: boolean): string {
  const [pre, post] = CLASS_SUFFIX[mode];
  const attrs = namespaces.map((ns) => `    ${ns}: ${pre}${pascal(ns)}${post}\n`).join("");
  const assign = namespaces.map((ns) => `        self.${ns} = ${pre}${pascal(ns)}${post}(client)\n`).join("");
  const init = bind ? `    def _bind_resources(self, client: ${caller}) -> None:\n` : `    def __init__(self, client: ${caller}) -> None:\n`;
  return `class ${name}:\n    """The contract's resources, one namespace per tag."""\n\n${attrs}\n${init}${assign}`;
}

export function renderResources(doc: Schema, ops: PyOperation[], modelNames: string[]): string {
  const named = nameOperations(doc, ops);
  const namespaces = [...new Set(named.map((n) => n.namespace))];
  const classes = (["sync", "async", "raw", "asyncRaw", "streaming", "asyncStreaming"] as Mode[]).flatMap((mode) =>
    namespaces.map((ns) => resourceClass(doc, ns, named.filter((n) => n.namespace === ns), mode)),
  );
  const code = classes.join("\n\n");
  const used = modelNames.filter((n) => new RegExp(`\\b${n}\\b`).test(code));
  const mixins = [...new Set(namespaces.map((ns) => MIXINS[ns]).filter(Boolean))];
  return [
    "# Generated by `npm run generate` from spec/openapi.yaml (scripts/lib/python/resources.ts). Do not edit.",
    '"""The operations of the contract: the table the client sends by, and the resource namespaces."""',
    "",
    "from __future__ import annotations",
    "",
    "from typing import TYPE_CHECKING, AsyncIterator, Dict, Iterator, List, Literal, Optional, Union, cast",
    "",
    "from ._runtime import AsyncCaller, AsyncResource, SyncCaller, SyncResource",
    "from ._calls._types import (\n    NOT_GIVEN,\n    BinaryBody,\n    Body,\n    Headers,\n    Operation,\n    Param,\n    Query,\n    RequestOptions,\n    RetryOption,\n    TimeoutOption,\n)",
    mixins.length ? `from ._webhooks import ${mixins.join(", ")}` : "",
    "from . import models",
    used.length ? `from .models import (\n${used.map((n) => `    ${n},\n`).join("")})` : "",
    "",
    "if TYPE_CHECKING:",
    "    from ._results._pages import AsyncPaginator, SyncPage",
    "    from ._results._raw import RawResponse",
    "    from ._results._streaming import AsyncStreamingResponse, StreamingResponse",
    "    from ._results._streams import AsyncEventStream, EventStream",
    "",
    "OPERATIONS: Dict[str, Operation] = {",
    ops.map(tableEntry).join("").trimEnd(),
    "}",
    "",
    "METHOD_NAMES: Dict[str, str] = {",
    ...named.map((n) => `    ${JSON.stringify(n.op.id)}: ${JSON.stringify(`${n.namespace}.${n.name}`)},`),
    "}",
    '"""Where each operation is: `client.<namespace>.<method>` (the 0.1 flat names were the snake_case operationIds)."""',
    "",
    "",
    code.trimEnd(),
    "",
    "",
    container("Resources", namespaces, "sync", "SyncCaller", true),
    "",
    container("AsyncResources", namespaces, "async", "AsyncCaller", true),
    "",
    container("ClientWithRawResponse", namespaces, "raw", "SyncCaller", false),
    "",
    container("AsyncClientWithRawResponse", namespaces, "asyncRaw", "AsyncCaller", false),
    "",
    container("ClientWithStreamingResponse", namespaces, "streaming", "SyncCaller", false),
    "",
    container("AsyncClientWithStreamingResponse", namespaces, "asyncStreaming", "AsyncCaller", false),
  ].join("\n");
}
