// Lint rules on what a client sends and how the contract's files point at each other (issue 32), each reported in
// the file the author wrote and at the line to change: a request schema is closed, a request never requires a
// readOnly property, an operationId is unique (reported at every place that uses it), a `$ref` points into the
// folder of what it references (reported at the `$ref`, not in the file it reaches), and a create's 201 carries
// `links` and `Idempotent-Replayed`. Registered by policy-plugin.mjs.
import path from 'node:path';
import { RULES_SECTION } from './author-rules.mjs';

const see = (section = RULES_SECTION) => ` See ${section}.`;
export const OPEN_KEY = 'x-open';

/** A node resolved from the file it was written in: the node, and a Location (file and pointer) to report at. */
function at(resolve, raw, location) {
  if (typeof raw?.$ref !== 'string') return { node: raw, location };
  const r = resolve(raw, location.source.absoluteRef);
  return r?.node === undefined ? { node: undefined, location } : { node: r.node, location: r.location };
}

/**
 * Every schema a request body's value takes as its shape: the body's schema, its oneOf/anyOf variants, each
 * property's schema and array items, recursively (not `if`/`not`/`dependentSchemas`, which constrain a shape the
 * enclosing schema already states). Each is visited once, with the location of the file that holds it.
 */
function requestShapes(resolve, raw, location, visit, seen = new Set()) {
  const s = at(resolve, raw, location);
  if (!s.node || typeof s.node !== 'object' || seen.has(s.node)) return;
  seen.add(s.node);
  visit(s.node, s.location);
  for (const k of ['oneOf', 'anyOf']) (s.node[k] ?? []).forEach((v, i) => requestShapes(resolve, v, s.location.child([k, i]), visit, seen));
  for (const [name, p] of Object.entries(s.node.properties ?? {})) requestShapes(resolve, p, s.location.child(['properties', name]), visit, seen);
  if (s.node.items && typeof s.node.items === 'object') requestShapes(resolve, s.node.items, s.location.child('items'), visit, seen);
}

/** Runs `visit` over every request shape of every operation's JSON or form body (under `paths`: a webhook's body is ours to send). */
function onRequestShapes(visit) {
  return { Paths: { PathItem: { Operation: requestOperation(visit) } } };
}

function requestOperation(visit) {
  return {
    enter(op, { resolve, location, report }) {
      const body = at(resolve, op.requestBody, location.child('requestBody'));
      for (const [type, media] of Object.entries(body.node?.content ?? {})) {
        if (!/json|x-www-form-urlencoded|multipart/.test(type) || !media?.schema) continue;
        requestShapes(resolve, media.schema, body.location.child(['content', type, 'schema']), (node, loc) => visit(node, loc, resolve, report));
      }
    },
  };
}

const isObjectShape = (s) => s.properties !== undefined || s.type === 'object' || (Array.isArray(s.type) && s.type.includes('object'));

/**
 * policy/closed-requests: an object a client sends states `additionalProperties: false` (a misspelt field is refused
 * with 422, not silently dropped), or says why it is open in `x-open: <reason>` (a free-form map such as `metadata`).
 * `additionalProperties` as a schema (a typed map) is closed enough: each extra value is validated.
 */
export function closedRequests() {
  const reported = new Set();
  return onRequestShapes((node, location, _resolve, report) => {
    if (!isObjectShape(node) || node.additionalProperties === false || (node.additionalProperties && typeof node.additionalProperties === 'object')) return;
    const key = `${location.source.absoluteRef}${location.pointer}`;
    if (reported.has(key)) return;
    reported.add(key);
    if (node.additionalProperties === true || node.additionalProperties === undefined) {
      const reason = node[OPEN_KEY];
      if (typeof reason === 'string' && reason.trim()) return;
      const where = node.additionalProperties === true ? location.child('additionalProperties') : location.key();
      report({ location: where, message: `This object is part of a request body and is open: add \`additionalProperties: false\` (an unknown field then answers 422), or \`${OPEN_KEY}: <why it takes any field>\`.${see()}` });
    }
  });
}

/**
 * policy/readonly-in-request: a request schema never lists a `readOnly` property in `required`. OpenAPI reads
 * readOnly + required as required in responses only; this contract's request schemas are written for requests,
 * so such an entry is a mistake that makes the mock refuse its own example (docs/decisions/contract.md).
 */
export function readOnlyInRequest() {
  const reported = new Set();
  return onRequestShapes((node, location, resolve, report) => {
    (Array.isArray(node.required) ? node.required : []).forEach((name, i) => {
      const prop = at(resolve, node.properties?.[name], location.child(['properties', name])).node;
      const key = `${location.source.absoluteRef}${location.pointer}/${name}`;
      if (!prop?.readOnly || reported.has(key)) return;
      reported.add(key);
      report({ location: location.child(['required', i]), message: `"${name}" is readOnly (the server sets it) but this request schema requires it: remove it from \`required\` (a client never sends it), or drop \`readOnly\`.${see()}` });
    });
  });
}

/** policy/unique-operation-id: an operationId used twice is reported at every place, each naming the others. */
export function uniqueOperationId() {
  const uses = new Map(); // operationId → [{ location, report }]
  return {
    Root: {
      leave() {
        for (const [id, places] of uses) {
          if (places.length < 2) continue;
          for (const p of places) {
            const others = places.filter((o) => o !== p).map((o) => `${path.basename(o.location.source.absoluteRef)} (${o.method})`);
            p.report({ message: `operationId "${id}" is also used in ${others.join(', ')}: each operation needs its own (camelCase verb + noun).${see()}`, location: p.location.child('operationId') });
          }
        }
      },
    },
    Operation(op, { report, location, key }) {
      if (typeof op.operationId !== 'string') return;
      uses.set(op.operationId, [...(uses.get(op.operationId) ?? []), { report, location, method: String(key).toUpperCase() }]);
    },
  };
}

/** The folder (under spec/) that holds each kind of referenced thing; spec/README.md § spec/ has the table. */
const FOLDERS = {
  Schema: ['components/schemas'],
  Parameter: ['components/parameters'],
  Response: ['components/responses'],
  Header: ['components/headers'],
  Example: ['components/examples'],
  Link: ['components/links'],
  PathItem: ['paths', 'webhooks'],
  SecurityScheme: ['components/securitySchemes'],
};

/**
 * policy/ref-folder: a `$ref` to another file points into the folder of the kind it references (a schema into
 * components/schemas/, a response into components/responses/...). Reported at the `$ref`, in the file that holds it:
 * Redocly's own structural errors for a wrong target name the target file, which the author did not touch.
 */
export function refFolder() {
  let specDir = '';
  return {
    Root: { enter(_root, { location }) { specDir = path.dirname(location.source.absoluteRef); } },
    ref: {
      enter(ref, { report, location, type }, resolved) {
        const want = FOLDERS[type?.name];
        const target = resolved?.location?.source?.absoluteRef;
        if (!want || !target || ref.$ref.startsWith('#') || target === location.source.absoluteRef) return;
        const folder = path.relative(specDir, path.dirname(target)).split(path.sep).join('/');
        if (folder.startsWith('..') || want.includes(folder)) return;
        report({ message: `This $ref is a ${type.name} but points into ${folder || 'the root folder'}/ (${path.basename(target)}): point it at ${want[0]}/<Name>.yaml.${see('spec/README.md § spec/')}`, location: location.child('$ref') });
      },
    },
  };
}

/**
 * policy/create-response: a create's 201 carries `links` (what a client, Schemathesis or `verify --stateful` can do
 * next with the new resource) and, when the operation takes the Idempotency-Key, the `Idempotent-Replayed` header
 * that says a retry was answered from the stored response.
 */
export function createResponse() {
  let replayed = 'Idempotent-Replayed';
  let parameter = 'IdempotencyKey';
  return {
    Root: {
      enter(root) {
        replayed = root['x-idempotency']?.replayed_header ?? replayed;
        parameter = root['x-idempotency']?.parameter ?? parameter;
      },
    },
    Paths: {
      PathItem: {
        Operation(op, { report, location, resolve }) {
          const raw = op.responses?.['201'];
          if (!raw) return;
          const res = at(resolve, raw, location.child(['responses', '201']));
          const id = op.operationId ?? 'This operation';
          if (!Object.keys(res.node?.links ?? {}).length) {
            report({ message: `${id} creates something: its 201 needs \`links\` to what a client does next (\`Get<Thing>: {$ref: ../components/links/Get<Thing>.yaml}\`).${see()}`, location: res.location.key() });
          }
          const keyed = (op.parameters ?? []).some((p) => typeof p?.$ref === 'string' && p.$ref.endsWith(`/${parameter}.yaml`));
          const has = Object.keys(res.node?.headers ?? {}).some((h) => h.toLowerCase() === replayed.toLowerCase());
          if (keyed && !has) {
            report({ message: `${id} takes the Idempotency-Key: its 201 needs the \`${replayed}\` header (\`${replayed}: {$ref: ../components/headers/${replayed}.yaml}\`).${see()}`, location: res.location.child('headers').key() });
          }
        },
      },
    },
  };
}

/**
 * policy/sunset: `x-sunset` (the date after which a deprecated operation, parameter or field may be removed; the
 * versioning gate refuses the removal before it) is a `YYYY-MM-DD` date beside `deprecated: true`.
 */
export function sunset() {
  const check = (node, { report, location }) => {
    if (node?.['x-sunset'] === undefined) return;
    const value = node['x-sunset'];
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value))) {
      report({ message: `\`x-sunset\` is a date, YYYY-MM-DD (the day from which it may be removed), not ${JSON.stringify(value)}.${see('spec/README.md § x-sunset')}`, location: location.child('x-sunset') });
    }
    if (node.deprecated !== true) report({ message: `\`x-sunset\` announces a removal: add \`deprecated: true\` beside it.${see('spec/README.md § x-sunset')}`, location: location.child('x-sunset').key() });
  };
  return { Operation: check, Parameter: check, Schema: check };
}
