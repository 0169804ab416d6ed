// The contract author's rules (issue 26): each rule spec/README.md lists that Redocly's own rules do not cover,
// as a lint error that names the file under spec/ (Redocly reports the file and line of the node), says what to
// add, and points to the README section. Registered by policy-plugin.mjs.
import fs from 'node:fs';
import path from 'node:path';
import { tsImport } from 'tsx/esm/api';

const { FILTER_KEY, checkFilter, defaultFilter } = await tsImport('../../src/contract/filters.ts', import.meta.url);

export const RULES_SECTION = 'spec/README.md § Rules every operation follows';
const see = (section = RULES_SECTION) => ` See ${section}.`;
const typesOf = (s) => (Array.isArray(s?.type) ? s.type : s?.type ? [s.type] : []);

/** Every spec file a `$ref` reaches; files under spec/ that nothing reaches are reported in place. */
export function unreferencedFiles({ ignore = [] } = {}) {
  const reached = new Set();
  return {
    ref: {
      enter(_node, _ctx, resolved) {
        if (resolved?.location?.source?.absoluteRef) reached.add(path.resolve(resolved.location.source.absoluteRef));
      },
    },
    Root: {
      leave(_root, { report, location }) {
        const rootFile = path.resolve(location.source.absoluteRef);
        reached.add(rootFile);
        const dir = path.dirname(rootFile);
        const files = fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => /\.ya?ml$/.test(f) && !ignore.includes(f.split(path.sep).join('/')));
        for (const f of files.sort()) {
          const abs = path.join(dir, f);
          if (reached.has(abs)) continue;
          // A location inside the unreferenced file itself, so the report names it (Redocly's own classes, taken from
          // the root's location: the plugin API has no other way to point at a file the walk never opened).
          const source = new location.source.constructor(abs, fs.readFileSync(abs, 'utf8'));
          report({
            message: `${path.relative(path.dirname(dir), abs)} is referenced by nothing, so it is not part of the contract: add a $ref to it (a path from openapi.yaml's paths, a component from the operation that uses it) or delete it.${see('spec/README.md § Adding one endpoint')}`,
            location: new location.constructor(source, '#/'),
          });
        }
      },
    },
  };
}

/** Every string, array and integer is bounded (what OWASP API4 checks on the bundle, here on the source file). */
export function boundedValues() {
  return {
    Schema(schema, { report, location }) {
      const types = typesOf(schema);
      if (types.includes('string') && schema.maxLength === undefined && schema.enum === undefined && schema.const === undefined) {
        report({ message: `This string has no bound: add \`maxLength\` (or an \`enum\` or \`const\`).${see()}`, location: location.key() });
      }
      if (types.includes('array') && schema.maxItems === undefined) {
        report({ message: `This array has no bound: add \`maxItems\`.${see()}`, location: location.key() });
      }
      if (types.includes('integer')) {
        const missing = [['minimum', 'exclusiveMinimum'], ['maximum', 'exclusiveMaximum']].filter(([a, b]) => schema[a] === undefined && schema[b] === undefined).map(([a]) => a);
        if (missing.length) report({ message: `This integer has no ${missing.join(' or ')}: add \`${missing.join('` and `')}\`.${see()}`, location: location.key() });
      }
    },
  };
}

/**
 * Every response but a WebSocket's 101 declares the headers every answer carries: Access-Control-Allow-Origin
 * (browsers call this API) and X-Request-Id (the root's `x-request-id`). One check, one rule per header.
 */
export const corsHeader = () => everyResponseHeader('Access-Control-Allow-Origin');
export const requestIdHeader = () => everyResponseHeader('X-Request-Id');

function everyResponseHeader(name) {
  const lower = name.toLowerCase();
  function check(response, { report, location, key }) {
    if (String(key) === '101') return;
    if (Object.keys(response.headers ?? {}).some((h) => h.toLowerCase() === lower)) return;
    report({ message: `Response ${key} has no ${name} header: add \`${name}: {$ref: ../components/headers/${name}.yaml}\` to its headers.${see()}`, location: location.key() });
  }
  // Under `paths` only: a webhook's response is the subscriber's, not this API's.
  return { Paths: { PathItem: { Operation: { Response: check } } } };
}

const SHARED = { 400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 409: 'Conflict', 422: 'UnprocessableEntity', 429: 'TooManyRequests', 500: 'InternalServerError' };

/** Error responses are `$ref`s to the shared responses, never written inline. */
export function sharedErrors() {
  return {
    Operation(op, { report, location }) {
      for (const [code, response] of Object.entries(op.responses ?? {})) {
        const name = SHARED[code];
        // Only the statuses that have a shared response (a public path's own 503 says what is unavailable there).
        if (!name || typeof response?.$ref === 'string') continue;
        const fix = name ? `\`$ref: ../components/responses/${name}.yaml\`` : 'a `$ref` to a shared response under components/responses/';
        report({ message: `Response ${code} is written inline: replace it with ${fix}.${see()}`, location: location.child(['responses', code]).key() });
      }
    },
  };
}

/** A `*_at` property is a date-time string (a period's bounds, `period_start`, are date-times named otherwise). */
export function timestamps() {
  return {
    Schema(schema, { report, location, resolve }) {
      for (const [name, raw] of Object.entries(schema.properties ?? {})) {
        const prop = resolve(raw).node ?? {};
        const isTime = typesOf(prop).includes('string') && prop.format === 'date-time';
        if (name.endsWith('_at') && !isTime) report({ message: `Property "${name}" is named like a timestamp: make it \`type: string, format: date-time\`, or rename it.${see()}`, location: location.child(['properties', name]).key() });
      }
    },
  };
}

/** Status enums are closed: a `status` property has an `enum` (or `const`). */
export function closedStatus() {
  return {
    Schema(schema, { report, location, resolve }) {
      const raw = schema.properties?.status;
      if (!raw) return;
      const prop = resolve(raw).node ?? {};
      const variants = [prop, ...(prop.oneOf ?? []).map((v) => resolve(v).node ?? {})];
      if (!variants.some((v) => v.enum !== undefined || v.const !== undefined)) {
        report({ message: `Property "status" is open: list its states in an \`enum\`.${see()}`, location: location.child(['properties', 'status']).key() });
      }
    },
  };
}

/** Polymorphism is `oneOf` whose object variants each fix a discriminator with `const`; no `allOf`. */
export function polymorphism() {
  return {
    Schema(schema, { report, location, resolve }) {
      if (schema.allOf) report({ message: `allOf is not used in this contract: write the properties out (or use oneOf with a const discriminator).${see()}`, location: location.child('allOf').key() });
      const variants = (schema.oneOf ?? []).map((raw) => resolve(raw).node ?? {});
      const isObject = (v) => typesOf(v).includes('object') || v.properties !== undefined;
      // One object and `null` (a nullable object) is no polymorphism: only two or more object variants need a discriminator.
      if (variants.filter(isObject).length < 2) return;
      // A request body's "exactly one of" discriminates by presence instead: a variant requires a property that
      // every other object variant forbids (`name: false`), as AnalysisCreate's `media_url` and `text`.
      const forbids = (v, name) => v.properties?.[name] === false;
      const exclusive = (v) => (v.required ?? []).some((name) => variants.every((w) => w === v || !isObject(w) || forbids(w, name)));
      variants.forEach((v, i) => {
        if (!isObject(v)) return;
        if (!exclusive(v) && !Object.values(v.properties ?? {}).some((p) => resolve(p).node?.const !== undefined)) {
          report({ message: `oneOf variant ${i} has no discriminator: give it a property with \`const\` (like \`type: {const: text}\`), or require one that the other variants forbid (\`text: false\`).${see()}`, location: location.child(['oneOf', i]) });
        }
      });
    },
  };
}

/** `/v1/speakers/{speaker_id}` lives in paths/v1_speakers_{speaker_id}.yaml; schema files are PascalCase. */
export function fileNames() {
  return {
    Root(root, { report, location }) {
      for (const [url, item] of Object.entries(root.paths ?? {})) {
        const want = `${url.slice(1).replaceAll('/', '_')}.yaml`;
        if (typeof item?.$ref !== 'string') report({ message: `Path ${url} is written inline: move it to paths/${want} and $ref it.${see('spec/README.md § spec/')}`, location: location.child(['paths', url]).key() });
        else if (path.basename(item.$ref) !== want) report({ message: `Path ${url} lives in ${path.basename(item.$ref)}: name the file paths/${want}.${see('spec/README.md § spec/')}`, location: location.child(['paths', url, '$ref']) });
      }
    },
    NamedSchemas: {
      Schema(_s, { report, location, key }) {
        if (!/^[A-Z][A-Za-z0-9]*$/.test(String(key))) report({ message: `Schema "${key}" must be PascalCase.${see('spec/README.md § spec/')}`, location: location.key() });
      },
    },
    Schema(_s, { report, location }) {
      const file = location.source.absoluteRef;
      if (location.pointer !== '#/' || !/[/\\]components[/\\]schemas[/\\]/.test(file)) return;
      const name = path.basename(file).replace(/\.ya?ml$/, '');
      if (!/^[A-Z][A-Za-z0-9]*$/.test(name)) report({ message: `Schema file ${name}.yaml must be named in PascalCase (the file name is the component name).${see('spec/README.md § spec/')}`, location });
    },
  };
}

/** A node resolved from the file it was written in, with the file that holds what it resolves to. */
function at(raw, from, resolve) {
  if (typeof raw?.$ref !== 'string') return { node: raw, file: from };
  const r = resolve(raw, from);
  return { node: r.node, file: r.location?.source.absoluteRef ?? from };
}

/** The JSON schema of an operation's 200 response, resolved, with the file it came from. */
function okSchema(op, file, resolve) {
  const res = at(op.responses?.['200'], file, resolve);
  const raw = res.node?.content?.['application/json']?.schema;
  return raw ? { ...at(raw, res.file, resolve), ref: raw.$ref } : undefined;
}

/** The listed item's properties of a list response (`data: {type: array, items}`), or undefined. */
function itemProperties(list, resolve) {
  const data = list?.node?.properties?.data && at(list.node.properties.data, list.file, resolve);
  if (!typesOf(data?.node).includes('array')) return undefined;
  return at(data.node.items ?? {}, data.file, resolve).node?.properties ?? {};
}

/** Lists (GET operations named list*) take Cursor and Limit and return a <Thing>List envelope. */
export function listShape() {
  return {
    Operation(op, { report, location, resolve }) {
      if (!/^list[A-Z]/.test(op.operationId ?? '')) return;
      const params = (op.parameters ?? []).map((p) => p?.$ref ?? '');
      for (const name of ['Cursor', 'Limit']) {
        if (!params.some((r) => r.endsWith(`/${name}.yaml`))) report({ message: `${op.operationId} is a list: add \`- $ref: ../components/parameters/${name}.yaml\` to its parameters.${see()}`, location: location.child('parameters').key() });
      }
      const list = okSchema(op, location.source.absoluteRef, resolve);
      const props = list?.node?.properties ?? {};
      const missing = ['data', 'next_cursor', 'has_more'].filter((p) => !props[p]);
      if (!list || !/List\.yaml$/.test(list.ref ?? '') || missing.length || list.node.allOf) {
        report({ message: `${op.operationId} must answer 200 with a $ref to components/schemas/<Thing>List.yaml: {data: [...], next_cursor: string|null, has_more: boolean}, written out${missing.length ? ` (missing ${missing.join(', ')})` : ''}.${see()}`, location: location.child('responses').key() });
      }
    },
  };
}

/**
 * `x-filter` on a list's query parameters names a property of the listed item (src/contract/filters.ts has the grammar);
 * a parameter whose name suggests a filter must declare it, and the message states the default its name suggests.
 */
export function filters() {
  return {
    Operation(op, { report, location, resolve, parent }) {
      const props = itemProperties(okSchema(op, location.source.absoluteRef, resolve), resolve);
      if (!props) return;
      const own = (op.parameters ?? []).map((p, i) => (p?.$ref ? resolve(p) : { node: p, location: location.child(['parameters', i]) }));
      const params = [...(parent?.parameters ?? []).map((p) => resolve(p)), ...own];
      for (const { node: p, location: at } of params) {
        if (p?.in !== 'query' || p.name === 'cursor' || p.name === 'limit') continue;
        const decl = p[FILTER_KEY];
        if (decl === undefined) {
          const d = defaultFilter(p.name, props);
          if (d) report({ message: `Query parameter "${p.name}" of ${op.operationId} looks like a filter but declares none: add \`x-filter: {property: ${d.property}, match: ${d.match}}\` (the default its name suggests), or rename it.${see('spec/README.md § x-filter')}`, location: at.key() });
          continue;
        }
        for (const problem of checkFilter(decl, props)) report({ message: `${problem.message}${see('spec/README.md § x-filter')}`, location: at.child([FILTER_KEY, ...problem.path]) });
      }
    },
  };
}

/**
 * Summaries are short and sentence case: only the first word, all-caps acronyms and the configured names keep
 * capitals. The message names the word to change (an assertion rule's pattern could not).
 */
export function summarySentenceCase({ names = [], maxLength = 60 } = {}) {
  const allowed = new Set(names);
  return {
    Operation(op, { report, location }) {
      const summary = op.summary;
      if (typeof summary !== 'string') return;
      const at = location.child('summary');
      if (summary.length > maxLength) report({ message: `Summary "${summary}" is ${summary.length} characters: keep it to ${maxLength}.${see()}`, location: at });
      const words = summary.split(/\s+/);
      if (!/^[A-Z]/.test(words[0] ?? '')) report({ message: `Summary "${summary}" must start with a capital: "${words[0]}".${see()}`, location: at });
      for (const w of words.slice(1)) {
        const bare = w.replace(/[^A-Za-z-]/g, '');
        if (!/[A-Z]/.test(bare) || allowed.has(bare) || /^[A-Z]{2,}s?$/.test(bare)) continue;
        report({ message: `Summary "${summary}" is not sentence case: write "${w.toLowerCase()}", not "${w}" (only the first word, acronyms and ${[...allowed].join(', ')} keep capitals).${see()}`, location: at });
      }
    },
  };
}

/** Ids carry a type prefix: a path parameter naming an id has a `pattern` like `^spk_[0-9A-Za-z]{8,40}$`. */
export function idPrefix() {
  return {
    Parameter(param, { report, location, resolve }) {
      if (param.in !== 'path' || !/(^|_)id$/.test(param.name ?? '')) return;
      const schema = resolve(param.schema ?? {}).node ?? {};
      if (!/^\^[a-z]+_/.test(schema.pattern ?? '')) {
        report({ message: `Path parameter "${param.name}" is an id: give its schema a \`pattern\` with the type prefix, like \`^spk_[0-9A-Za-z]{8,40}$\`.${see()}`, location: location.child('schema').key() });
      }
    },
  };
}
