// Redocly plugin: turns this project's API policy into lint errors.
// Redocly's built-in and configurable rules cannot express these (they need the path of the operation,
// the root's x-rate-limit-policy, or relations between an operation's parameters and its responses),
// so they are written here, each reporting the exact location of the problem.
import path from 'node:path';
import { tsImport } from 'tsx/esm/api';
import ajvModule from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { linksResolve } from './links-rule.mjs';

// The checks of x-lifecycle live once, in src/contract/lifecycle-check.ts, shared with the runtime reader (readLifecycles):
// loaded through tsx, the TypeScript runner the npm scripts already use.
const { checkLifecycle, checkReference, statesOf, LIFECYCLE_KEY, REFERENCES_KEY } = await tsImport('../../src/contract/lifecycle-check.ts', import.meta.url);
const { categoryOf, readPolicy } = await tsImport('../../src/contract/policy.ts', import.meta.url);
import * as author from './author-rules.mjs';
import * as requests from './request-rules.mjs';

// The vocabularies of x-derived, x-completion, x-referenced-by, x-status and x-scopes (spec/README.md), shared with the mock.
const rules = await tsImport('../../src/contract/contract-rules.ts', import.meta.url);

const RATE_LIMIT_SCOPE = /^\/(v1|aria|ws)(\/|$)/;
const RATE_LIMIT_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-RateLimit-Daily-Limit',
  'X-RateLimit-Daily-Remaining',
];
const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const ALWAYS = ['400', '401', '403', '429', '500'];
const SHARED_ERROR = { 400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 422: 'UnprocessableEntity', 429: 'TooManyRequests', 500: 'InternalServerError' };

const snake = (name) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[-\s]+/g, '_').toLowerCase();
const hasHeader = (headers, name) => Object.keys(headers ?? {}).some((h) => h.toLowerCase() === name.toLowerCase());

/**
 * Visits the operations under `paths` only (not the outgoing `webhooks`), telling each visitor the URL of
 * its Path Item, which Operation visitors do not otherwise receive.
 */
function withPath(visitor) {
  let currentPath = '';
  return {
    Paths: {
      PathItem: {
        enter(_item, ctx) {
          currentPath = String(ctx.key);
        },
        ...visitor(() => currentPath),
      },
    },
  };
}

const isStreaming = (op) =>
  Object.entries(op.responses ?? {}).some(
    ([code, r]) => code === '101' || Object.keys(r?.content ?? {}).includes('text/event-stream'),
  );

/** Only the configured public paths may opt out of security; `token` only on WebSocket and SSE. */
function securityPolicy({ public_paths: publicPaths = [] }) {
  return withPath((path) => ({
    Operation(op, { report, location }) {
      const isPublic = publicPaths.includes(path());
      const empty = Array.isArray(op.security) && op.security.length === 0;
      if (isPublic && !empty) report({ message: `${path()} is public: declare \`security: []\`. See ${author.RULES_SECTION}.`, location: location.child('security').key() });
      if (!isPublic && empty) report({ message: `Only ${publicPaths.join(', ')} may have \`security: []\`; ${path()} requires credentials: remove \`security\` to inherit the root's. See ${author.RULES_SECTION}.`, location: location.child('security') });
      const usesToken = (op.security ?? []).some((req) => 'TokenQuery' in req);
      if (usesToken && !isStreaming(op)) report({ message: `The \`token\` query parameter (TokenQuery) is accepted on WebSocket (101) and SSE (text/event-stream) operations only: remove \`- TokenQuery: []\`. See ${author.RULES_SECTION}.`, location: location.child('security') });
      if (!usesToken && isStreaming(op) && !isPublic) report({ message: `WebSocket and SSE operations accept the \`token\` query parameter: add \`- TokenQuery: []\` to security. See ${author.RULES_SECTION}.`, location: location.child('security').key() });
    },
  }));
}

/** 400, 401, 403, 429 and 500 everywhere; 422 with input; 404 with a path id. */
function errorResponses({ public_paths: publicPaths = [] }) {
  return withPath((path) => ({
    Operation(op, { report, location, parent, resolve }) {
      if (!path() || publicPaths.includes(path())) return;
      const codes = new Set(Object.keys(op.responses ?? {}));
      // Path-level parameters count too, and a parameter is usually a $ref: resolve it before reading `in`.
      const params = [...(parent?.parameters ?? []), ...(op.parameters ?? [])].map((p) => resolve(p).node);
      const need = ALWAYS.map((c) => [c, 'always']);
      if (op.requestBody) need.push(['422', 'it takes a body']);
      if (params.some((p) => p?.in === 'query')) need.push(['422', 'it takes query parameters']);
      if (params.some((p) => p?.in === 'path')) need.push(['404', 'it has a path id'], ['422', 'it has a path id']);
      const seen = new Set();
      for (const [code, why] of need) {
        if (codes.has(code) || seen.has(code)) continue;
        seen.add(code);
        const fix = `\`'${code}': {$ref: ../components/responses/${SHARED_ERROR[code]}.yaml}\``;
        report({ message: `${op.operationId ?? path()} must document a ${code} response (${why}): add ${fix} to its responses. See ${author.RULES_SECTION}.`, location: location.child('responses').key() });
      }
    },
  }));
}

/** The five X-RateLimit-* headers on every response under /v1, /aria and /ws; Retry-After on 429. */
function rateLimitHeaders() {
  return withPath((path) => ({
    Operation: {
      Response(response, { report, location, key }) {
        if (!RATE_LIMIT_SCOPE.test(path())) return;
        for (const name of RATE_LIMIT_HEADERS) {
          if (!hasHeader(response.headers, name)) report({ message: `Response ${key} of ${path()} must carry the ${name} header: add \`${name}: {$ref: ../components/headers/${name}.yaml}\` to its headers. See ${author.RULES_SECTION}.`, location: location.child('headers').key() });
        }
        if (String(key) === '429' && !hasHeader(response.headers, 'Retry-After')) {
          report({ message: `Response 429 of ${path()} must carry the Retry-After header: $ref the shared TooManyRequests response. See ${author.RULES_SECTION}.`, location: location.child('headers').key() });
        }
      },
    },
  }));
}

/** Every operation names the category that x-rate-limit-policy derives from its path (src/contract/policy.ts). */
function rateLimitCategory() {
  let policy;
  return {
    Root(root, { report, location }) {
      if (!root['x-rate-limit-policy']) return report({ message: 'The root must define x-rate-limit-policy.', location: location.key() });
      try {
        policy = readPolicy(root);
      } catch (e) {
        report({ message: `x-rate-limit-policy cannot be read: ${e.message}`, location: location.child('x-rate-limit-policy') });
      }
    },
    ...withPath((path) => ({
      Operation(op, { report, location }) {
        if (!policy) return;
        const cat = op['x-rate-limit-category'];
        const want = categoryOf(policy, path()).name;
        if (cat !== want) {
          const at = cat === undefined ? location.key() : location.child('x-rate-limit-category');
          report({ message: `x-rate-limit-category of ${op.operationId ?? path()} must be \`${want}\`, the category x-rate-limit-policy gives the path ${path()} (found ${JSON.stringify(cat)}). See ${author.RULES_SECTION}.`, location: at });
        }
      },
    })),
  };
}

/** Every request and response body has a named example (Prism serves them). */
function mediaExamples() {
  return {
    MediaType(media, { report, location }) {
      if (media.example === undefined && Object.keys(media.examples ?? {}).length === 0) {
        report({ message: `Every request and response body needs a named example: add \`examples: {default: {$ref: ../components/examples/<Thing>.yaml}}\`. See ${author.RULES_SECTION}.`, location: location.key() });
      }
      if (media.example !== undefined) report({ message: 'Use named `examples` (default first), not `example`.', location: location.child('example').key() });
    },
  };
}

/** Properties and query parameters are snake_case, like rate_limit_rpm and retry_after. */
function snakeCase() {
  return {
    Schema(schema, { report, location }) {
      for (const name of Object.keys(schema.properties ?? {})) {
        if (!SNAKE.test(name)) report({ message: `Property "${name}" must be snake_case: rename it to ${snake(name)}. See ${author.RULES_SECTION}.`, location: location.child(['properties', name]).key() });
      }
    },
    Parameter(param, { report, location }) {
      if (param.in === 'query' && !SNAKE.test(param.name)) report({ message: `Query parameter "${param.name}" must be snake_case: rename it to ${snake(param.name)}. See ${author.RULES_SECTION}.`, location: location.child('name') });
    },
  };
}

/** Every operation has a success response: a 2xx, or 101 for a WebSocket upgrade. */
function successResponse() {
  return {
    Operation(op, { report, location }) {
      if (!Object.keys(op.responses ?? {}).some((c) => /^(2\d\d|2XX|101)$/.test(c))) {
        report({ message: `Operation must have a 2xx response (or 101 for a WebSocket upgrade): add its success response. See ${author.RULES_SECTION}.`, location: location.child('responses').key() });
      }
    },
  };
}

/** A copy of a schema with its `$ref`s inlined, each resolved from the file it was written in. */
function inlineRefs(node, from, resolve, depth = 0) {
  if (depth > 50 || !node || typeof node !== 'object') return node;
  if (Array.isArray(node)) return node.map((n) => inlineRefs(n, from, resolve, depth + 1));
  if (typeof node.$ref === 'string') {
    const r = resolve(node, from);
    return r.node === undefined ? {} : inlineRefs(r.node, r.location.source.absoluteRef, resolve, depth + 1);
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inlineRefs(v, from, resolve, depth + 1)]));
}

/** A validator for `set` values: ajv on the inlined property schema (OpenAPI keywords tolerated). */
function makeValidate() {
  const Ajv2020 = ajvModule.default ?? ajvModule.Ajv2020 ?? ajvModule;
  const addFormats = addFormatsModule.default ?? addFormatsModule;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  return (schema, value) => {
    const check = ajv.compile(schema);
    return check(value) ? undefined : ajv.errorsText(check.errors, { dataVar: 'value' });
  };
}

/**
 * x-lifecycle on a resource schema is well-formed and agrees with the contract (src/contract/lifecycle-check.ts has the
 * grammar and the checks). Facts are gathered while walking (operations, webhooks, every lifecycle schema) and the
 * checks run when the walk leaves the root, since one lifecycle may name another.
 */
function lifecycle() {
  const schemas = new Map(); // file → { name, node, location, report, resolve, from }
  const references = []; // { node, location, report } of each schema with x-references
  const operations = {};
  let webhooks = [];
  let componentNames = new Set(); // the component schemas: named in the root, or a file under components/schemas
  let currentPath = '';
  const lastParamPattern = (params, resolve) => {
    const last = [...currentPath.matchAll(/\{([^}]+)\}/g)].pop()?.[1];
    const param = params.map((p) => resolve(p)).find((r) => r.node?.in === 'path' && r.node.name === last);
    return param ? resolve(param.node.schema ?? {}, param.location.source.absoluteRef).node?.pattern : undefined;
  };
  return {
    Root: {
      enter(root) {
        webhooks = Object.keys(root.webhooks ?? {});
        componentNames = new Set(Object.keys(root.components?.schemas ?? {}));
      },
      leave() {
        const props = new Map([...schemas].map(([file, s]) => [file, inlineRefs(s.node.properties ?? {}, s.from, s.resolve)]));
        const machines = Object.fromEntries(
          [...schemas].map(([file, s]) => [s.name, { states: statesOf(s.node[LIFECYCLE_KEY], props.get(file)) ?? [], properties: Object.keys(props.get(file)) }]),
        );
        const validate = makeValidate();
        for (const [file, s] of schemas) {
          const facts = { schema: s.name, description: s.node.description ?? '', properties: props.get(file), operations, webhooks, machines, validate };
          for (const p of checkLifecycle(s.node[LIFECYCLE_KEY], facts)) {
            s.report({ message: `${p.message} See spec/README.md § x-lifecycle.`, location: s.location.child([LIFECYCLE_KEY, ...p.path]) });
          }
        }
        for (const r of references) {
          for (const p of checkReference(r.node[REFERENCES_KEY], { node: r.node, schemas: [...componentNames], machines })) {
            r.report({ message: `${p.message} See spec/README.md § x-references.`, location: r.location.child([REFERENCES_KEY, ...p.path]) });
          }
        }
      },
    },
    Schema(schema, { report, location, resolve }) {
      if (schema?.[REFERENCES_KEY] !== undefined) references.push({ node: schema, location, report });
      if (location.pointer === '#/' && /[/\\]components[/\\]schemas[/\\][^/\\]+\.ya?ml$/.test(location.source.absoluteRef)) {
        componentNames.add(path.basename(location.source.absoluteRef).replace(/\.ya?ml$/, ''));
      }
      if (schema?.[LIFECYCLE_KEY] === undefined) return;
      if (location.pointer !== '#/' && !/^#\/components\/schemas\/[^/]+$/.test(location.pointer)) {
        return report({ message: 'x-lifecycle belongs on a resource schema (a file under components/schemas), not on a nested schema.', location: location.child(LIFECYCLE_KEY).key() });
      }
      const file = location.source.absoluteRef;
      const name = location.pointer === '#/' ? path.basename(file).replace(/\.ya?ml$|\.json$/, '') : location.pointer.split('/').pop();
      schemas.set(`${file}${location.pointer}`, { name, node: schema, location, report, resolve, from: file });
    },
    Paths: {
      PathItem: {
        enter(_item, ctx) {
          currentPath = String(ctx.key);
        },
        Operation(op, { parent, resolve }) {
          if (!op.operationId) return;
          const body = resolve(op.requestBody ?? {});
          const schemaRef = body.node?.content?.['application/json']?.schema;
          const bodySchema = schemaRef ? resolve(schemaRef, body.location?.source.absoluteRef).node : undefined;
          operations[op.operationId] = {
            codes: Object.keys(op.responses ?? {}),
            bodyProperties: Object.keys(bodySchema?.properties ?? {}),
            idPattern: lastParamPattern([...(parent?.parameters ?? []), ...(op.parameters ?? [])], resolve),
          };
        },
      },
    },
  };
}

const IDEMPOTENCY_KEYS = ['header', 'parameter', 'methods', 'path_prefixes', 'scope', 'window_seconds', 'fingerprint', 'replayed_header', 'stored', 'not_stored', 'errors'];

/**
 * x-idempotency (root) is complete, and every POST or PATCH under its `path_prefixes` either references the shared
 * `parameter` (components/parameters/<parameter>.yaml) and documents the 409 and 422 of its `errors`, or is named in
 * `exempt` with a reason; an exempt operation takes no key, and every name in `exempt` is such an operation.
 */
function idempotency() {
  let policy;
  const seen = new Set();
  let rootReport;
  let rootLocation;
  const underPrefix = (p) => (policy.path_prefixes ?? []).some((x) => p === x || p.startsWith(`${x}/`));
  const isShared = (param) => typeof param?.$ref === 'string' && new RegExp(`(^|/)${policy.parameter}\\.yaml$|^#/components/parameters/${policy.parameter}$`).test(param.$ref);
  return {
    Root: {
      enter(root, { report, location }) {
        policy = root['x-idempotency'];
        rootReport = report;
        rootLocation = location;
        if (!policy || typeof policy !== 'object') return report({ message: 'The root must define x-idempotency (spec/README.md).', location: location.key() });
        for (const k of IDEMPOTENCY_KEYS) if (policy[k] === undefined) report({ message: `x-idempotency needs \`${k}\`.`, location: location.child('x-idempotency').key() });
        for (const [name, why] of Object.entries(policy.exempt ?? {})) {
          if (typeof why !== 'string' || !why.trim()) report({ message: `x-idempotency.exempt.${name} needs a reason.`, location: location.child(['x-idempotency', 'exempt', name]) });
        }
      },
      leave() {
        if (!policy || typeof policy !== 'object') return;
        for (const name of Object.keys(policy.exempt ?? {})) {
          if (!seen.has(name)) rootReport({ message: `x-idempotency.exempt names ${name}, which is no ${(policy.methods ?? []).join(' or ')} operation under ${(policy.path_prefixes ?? []).join(', ')}.`, location: rootLocation.child(['x-idempotency', 'exempt', name]).key() });
        }
      },
    },
    ...withPath((path) => ({
      Operation(op, { report, location, key }) {
        if (!policy || typeof policy !== 'object' || !underPrefix(path()) || !(policy.methods ?? []).includes(String(key).toUpperCase())) return;
        const id = op.operationId ?? `${String(key).toUpperCase()} ${path()}`;
        seen.add(id);
        const keyed = (op.parameters ?? []).some(isShared);
        const exempt = Object.hasOwn(policy.exempt ?? {}, id);
        if (exempt && keyed) report({ message: `${id} is exempt in x-idempotency: it takes no ${policy.header}.`, location: location.child('parameters').key() });
        if (exempt || keyed) {
          if (keyed) for (const e of Object.values(policy.errors ?? {})) {
            if (!(String(e.status) in (op.responses ?? {}))) report({ message: `${id} takes ${policy.header}: document its ${e.status} (${e.error}).`, location: location.child('responses').key() });
          }
          return;
        }
        report({ message: `${id} creates or changes something: reference the shared ${policy.header} parameter (\`$ref: ../components/parameters/${policy.parameter}.yaml\`), or name it in x-idempotency.exempt with the reason.`, location: location.key() });
      },
    })),
  };
}

const SEE_SCOPES = ' See spec/README.md § x-scopes.';
const CEILING_KEY = 'x-scope-ceiling';

/**
 * `x-scope-ceiling: caller` (the one value) on an operation that issues credentials: a POST whose success response
 * carries an `access_token` (a token endpoint, which itself needs no scope, `x-scopes: []`, since every caller may
 * ask for a token) or a `secret` (an API key, issue 47: never wider than the caller that made it).
 */
function checkScopeCeiling(op, method, location, report, resolve) {
  const value = op[CEILING_KEY];
  if (value === undefined) return;
  const at = location.child(CEILING_KEY);
  if (value !== 'caller') report({ message: `\`${CEILING_KEY}\` is \`caller\` (the scopes granted are bounded by the caller's own), not ${JSON.stringify(value)}.${SEE_SCOPES}`, location: at });
  const props = successProperties(op, location, resolve);
  if (method !== 'post' || !(props.access_token || props.secret)) report({ message: `\`${CEILING_KEY}\` belongs on an operation that issues credentials (a POST whose success response has \`access_token\` or \`secret\`); ${op.operationId ?? 'this one'} issues none.${SEE_SCOPES}`, location: at.key() });
  if (props.access_token && Array.isArray(op[rules.SCOPES_KEY]) && op[rules.SCOPES_KEY].length) report({ message: `${op.operationId} issues tokens bounded by its caller's scopes: it needs none itself (\`${rules.SCOPES_KEY}: []\`).${SEE_SCOPES}`, location: location.child(rules.SCOPES_KEY) });
}

/** The properties of an operation's first 2xx response body schema ({} when there is none). */
function successProperties(op, location, resolve) {
  const ok = Object.entries(op.responses ?? {}).find(([c]) => /^2\d\d$/.test(c))?.[1];
  const res = ok ? resolve(ok, location.source.absoluteRef) : undefined;
  const media = Object.values(res?.node?.content ?? {})[0];
  const schema = media?.schema ? resolve(media.schema, res.location?.source.absoluteRef ?? location.source.absoluteRef).node : undefined;
  return schema?.properties ?? {};
}

/**
 * `x-scopes` on every operation that needs credentials: `<group>:read` for GET, `<group>:write` otherwise. `[]`
 * (no scope) only on a token endpoint (`x-scope-ceiling`, a success response with `access_token`): every other
 * operation, `revokeOAuthToken` included, needs a scope, or a token of any scope could call it (issue 47).
 */
function checkScopes(op, method, location, report, resolve) {
  const scopes = op[rules.SCOPES_KEY];
  const at = location.child(rules.SCOPES_KEY);
  if (!Array.isArray(scopes)) return report({ message: `${op.operationId} needs credentials: declare the scopes it needs in \`${rules.SCOPES_KEY}\`.${SEE_SCOPES}`, location: location.key() });
  if (!scopes.length && !(op[CEILING_KEY] !== undefined && successProperties(op, location, resolve).access_token)) {
    report({ message: `${op.operationId} declares no scope (\`${rules.SCOPES_KEY}: []\`): only a token endpoint (\`${CEILING_KEY}\`) needs none; name the \`<group>:${method === 'get' || method === 'head' ? 'read' : 'write'}\` scope it needs.${SEE_SCOPES}`, location: at });
  }
  const access = method === 'get' || method === 'head' ? 'read' : 'write';
  scopes.forEach((s, i) => {
    if (typeof s !== 'string' || !rules.SCOPE.test(s)) report({ message: `\`${s}\` is not a scope (\`<group>:read\` or \`<group>:write\`).${SEE_SCOPES}`, location: at.child(i) });
    else if (!s.endsWith(`:${access}`)) report({ message: `${op.operationId} is a ${method.toUpperCase()}: its scope ends in \`:${access}\`, not \`${s}\`.${SEE_SCOPES}`, location: at.child(i) });
  });
}

/** An `x-derived` list: each `{from, by}` with a known `by`; `referenced` also names `schema` and its `property`. */
function checkDerived(list, location, report, later) {
  const at = location.child(rules.DERIVED_KEY);
  if (!Array.isArray(list) || !list.length) return report({ message: '`x-derived` is a non-empty list of `{from, by}`.', location: at });
  list.forEach((d, i) => {
    if (typeof d?.from !== 'string' || !(d.from === '$body' || SNAKE.test(d.from))) report({ message: '`from` names a request field (snake_case) or `$body`.', location: at.child(i) });
    if (!rules.DERIVERS.includes(d?.by)) report({ message: `\`by\` is one of ${rules.DERIVERS.join(', ')}; not \`${d?.by}\`.`, location: at.child(i) });
    if (d?.by === 'referenced') later.push({ schema: d.schema, property: d.property, location: at.child(i), report });
  });
}

/** `x-status` marks a conditional subschema (`if`/`then`) whose violation answers that 4xx status instead of 422. */
function checkStatus(schema, location, report) {
  const s = schema[rules.STATUS_KEY];
  if (!Number.isInteger(s) || s < 400 || s > 499) report({ message: '`x-status` is a 4xx status code.', location: location.child(rules.STATUS_KEY) });
  if (!schema.if || !schema.then) report({ message: '`x-status` belongs on a conditional subschema (with `if` and `then`).', location: location.child(rules.STATUS_KEY).key() });
}

/** `x-completion`: states of the resource's lifecycle → entries naming one property or one operation, and a known `by`. */
function checkCompletion(c, facts, location, report) {
  const at = location.child(rules.COMPLETION_KEY);
  for (const [state, entries] of Object.entries(c ?? {})) {
    if (!facts.states.includes(state)) report({ message: `\`${state}\` is not a state of ${facts.name}'s x-lifecycle.`, location: at.child(state).key() });
    (Array.isArray(entries) ? entries : []).forEach((e, i) => {
      const where = at.child([state, i]);
      if ((e?.property === undefined) === (e?.operation === undefined)) report({ message: 'An entry names exactly one of `property` and `operation`.', location: where });
      if (e?.property !== undefined && !facts.properties.includes(e.property)) report({ message: `${facts.name} has no property \`${e.property}\`.`, location: where });
      if (e?.operation !== undefined && !facts.operations[e.operation]) report({ message: `No operation \`${e.operation}\`.`, location: where });
      if (!rules.FILLERS.includes(e?.by)) report({ message: `\`by\` is one of ${rules.FILLERS.join(', ')}; not \`${e?.by}\`.`, location: where });
      if (e?.when !== undefined && (typeof e.when !== 'object' || e.when === null)) report({ message: '`when` is a JSON Schema over the resource.', location: where });
    });
  }
}

/** `x-referenced-by`: another component schema, its states, and operations that document 409 (and `to`: one of this lifecycle's states). */
function checkReferencedBy(list, facts, all, location, report) {
  const at = location.child(rules.REFERENCED_BY_KEY);
  (Array.isArray(list) ? list : []).forEach((r, i) => {
    const other = all.get(r?.schema);
    if (!other) return report({ message: `\`${r?.schema}\` is not a component schema.`, location: at.child(i) });
    if (typeof r.property !== 'string' || !other.properties.includes(r.property.split(/[.[]/)[0])) report({ message: `${r.schema} has no property \`${r.property}\`.`, location: at.child([i, 'property']) });
    for (const st of r.states ?? []) if (!other.states.includes(st)) report({ message: `\`${st}\` is not a state of ${r.schema}.`, location: at.child([i, 'states']) });
    for (const b of r.blocks ?? []) {
      const op = facts.operations[b?.operation];
      if (!op) report({ message: `No operation \`${b?.operation}\`.`, location: at.child([i, 'blocks']) });
      else if (!op.codes.includes('409')) report({ message: `${b.operation} answers 409 when blocked: document a 409 response.`, location: at.child([i, 'blocks']) });
      if (b?.to !== undefined && !facts.states.includes(b.to)) report({ message: `\`${b.to}\` is not a state of ${facts.name}.`, location: at.child([i, 'blocks']) });
    }
  });
}

/**
 * policy/contract-rules: the grammars of x-scopes, x-derived, x-status, x-completion and x-referenced-by (spec/README.md,
 * "Rules in machine-readable form"). Cross-schema checks run when the walk leaves the root.
 */
function contractRules({ public_paths: publicPaths = [] }) {
  const components = new Map(); // name → { node, location, report, resolve }
  const operations = {};
  const referenced = [];
  let method = '';
  let currentPath = '';
  const factsOf = (name, c) => {
    const props = c.node.properties ?? {};
    const lc = c.node[LIFECYCLE_KEY];
    const stateProp = lc?.property ? c.resolve(props[lc.property] ?? {}, c.location.source.absoluteRef).node : undefined;
    return { name, properties: Object.keys(props), states: stateProp?.enum ?? [], operations };
  };
  let rootNames = new Set();
  return {
    Root: {
      enter(root) {
        rootNames = new Set(Object.keys(root.components?.schemas ?? {}));
      },
      leave() {
        const all = new Map([...components].map(([n, c]) => [n, factsOf(n, c)]));
        for (const [name, c] of components) {
          if (c.node[rules.COMPLETION_KEY] !== undefined) checkCompletion(c.node[rules.COMPLETION_KEY], all.get(name), c.location, c.report);
          if (c.node[rules.REFERENCED_BY_KEY] !== undefined) checkReferencedBy(c.node[rules.REFERENCED_BY_KEY], all.get(name), all, c.location, c.report);
        }
        for (const r of referenced) {
          const other = all.get(r.schema);
          if (!other) r.report({ message: `\`referenced\` names a component \`schema\`; \`${r.schema}\` is none.`, location: r.location });
          else if (!other.properties.includes(r.property)) r.report({ message: `${r.schema} has no property \`${r.property}\`.`, location: r.location });
        }
      },
    },
    Schema(schema, { report, location, resolve }) {
      if (schema?.[rules.STATUS_KEY] !== undefined) checkStatus(schema, location, report);
      for (const [name, p] of Object.entries(schema?.properties ?? {})) {
        if (p?.[rules.DERIVED_KEY] !== undefined) checkDerived(p[rules.DERIVED_KEY], location.child(['properties', name]), report, referenced);
      }
      // A component schema: a file under components/schemas, a file the root's components name, or inline there.
      const file = path.basename(location.source.absoluteRef).replace(/\.ya?ml$/, '');
      const inline = /^#\/components\/schemas\/([^/]+)$/.exec(location.pointer)?.[1];
      const own = location.pointer === '#/' && (/[/\\]components[/\\]schemas[/\\]/.test(location.source.absoluteRef) || rootNames.has(file));
      if (inline || own) components.set(inline ?? file, { node: schema, location, report, resolve });
    },
    Parameter(param, { report, location }) {
      if (param?.schema?.[rules.DERIVED_KEY] !== undefined) checkDerived(param.schema[rules.DERIVED_KEY], location.child('schema'), report, referenced);
    },
    Paths: {
      PathItem: {
        enter(_item, ctx) {
          currentPath = String(ctx.key);
        },
        Operation: {
          enter(op, { report, location, key, resolve }) {
            method = String(key);
            checkScopeCeiling(op, method, location, report, resolve);
            if (op.operationId) operations[op.operationId] = { codes: Object.keys(op.responses ?? {}) };
            const isPublic = publicPaths.includes(currentPath) || (Array.isArray(op.security) && op.security.length === 0);
            if (!isPublic) checkScopes(op, method, location, report, resolve);
          },
        },
      },
    },
  };
}

/**
 * `x-itemSchema` on a media type is a Schema (OpenAPI 3.2's `itemSchema`, which a 3.1 document cannot carry under
 * its own name): declared so that Redocly resolves and bundles the `$ref`s inside it and lints it like a schema.
 */
function withItemSchema(types) {
  return { ...types, MediaType: { ...types.MediaType, properties: { ...types.MediaType.properties, 'x-itemSchema': 'Schema' } } };
}

export default function policyPlugin() {
  return {
    id: 'policy',
    typeExtension: { oas3: withItemSchema },
    rules: {
      oas3: {
        'security': securityPolicy,
        'error-responses': errorResponses,
        'rate-limit-headers': rateLimitHeaders,
        'rate-limit-category': rateLimitCategory,
        'media-examples': mediaExamples,
        'snake-case': snakeCase,
        'success-response': successResponse,
        'lifecycle': lifecycle,
        // The contract author's rules (issue 26), in author-rules.mjs.
        'unreferenced-files': author.unreferencedFiles,
        'bounded-values': author.boundedValues,
        'cors-header': author.corsHeader,
        'request-id-header': author.requestIdHeader,
        'shared-errors': author.sharedErrors,
        'timestamps': author.timestamps,
        'closed-status': author.closedStatus,
        'polymorphism': author.polymorphism,
        'file-names': author.fileNames,
        'list-shape': author.listShape,
        'filters': author.filters,
        'id-prefix': author.idPrefix,
        'summary-sentence-case': author.summarySentenceCase,
        'idempotency': idempotency,

        'links': linksResolve,

        'contract-rules': contractRules,
        // What a client sends and how files point at each other (issue 32), in request-rules.mjs.
        'closed-requests': requests.closedRequests,
        'readonly-in-request': requests.readOnlyInRequest,
        'unique-operation-id': requests.uniqueOperationId,
        'ref-folder': requests.refFolder,
        'create-response': requests.createResponse,
        'sunset': requests.sunset,
      },
    },
  };
}

