// Lint rule `policy/links`: every OpenAPI `link` of a response resolves. Its `operationId` names an operation of
// the contract; each parameter it sets is a parameter of that operation; each value is a runtime expression that
// resolves: `$response.body#/<pointer>` into the response's JSON schema (through properties, and array items for
// an index), `$request.path.<name>` to a path parameter of the operation the link leaves from. Third-party tools
// (Schemathesis' stateful mode) and `npm run verify -- --stateful` follow these links, so one that names nothing
// would be followed into a 404 or not at all. Reported at the link, in the file that holds it.

/** Follows `$ref`s (across files) to the node, keeping the file it sits in. */
function follow(resolve, node, from) {
  for (let i = 0; node && typeof node.$ref === 'string' && i < 20; i++) {
    const r = resolve(node, from);
    if (!r?.node) return { node: undefined, from };
    node = r.node;
    from = r.location?.source.absoluteRef ?? from;
  }
  return { node, from };
}

/** Does `pointer` (`/data/0/id`) name a place a value of `schema` can have? */
function pointerResolves(resolve, schema, from, pointer) {
  let at = follow(resolve, schema, from);
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    const s = at.node;
    if (!s) return false;
    if (/^\d+$/.test(key) && s.items) at = follow(resolve, s.items, at.from);
    else if (s.properties?.[key]) at = follow(resolve, s.properties[key], at.from);
    else return false;
  }
  return !!at.node;
}

const SEE = ' See spec/README.md § spec/ (components/links/).';

export function linksResolve() {
  const operations = new Map(); // operationId → names of its parameters
  const pending = []; // links to judge once every operation is known
  return {
    Root: {
      leave() {
        for (const p of pending) {
          const params = operations.get(p.link.operationId);
          if (!p.link.operationId) p.report({ message: `link "${p.name}" names no operationId (operationRef is not used in this contract).${SEE}`, location: p.location });
          else if (!params) p.report({ message: `link "${p.name}": no operation has operationId "${p.link.operationId}".${SEE}`, location: p.location });
          else {
            for (const [param, value] of Object.entries(p.link.parameters ?? {})) {
              const why = !params.has(param) ? `"${param}" is not a parameter of ${p.link.operationId}` : p.check(String(value));
              if (why) p.report({ message: `link "${p.name}": ${why}.${SEE}`, location: p.location });
            }
          }
        }
      },
    },
    Paths: {
      PathItem: {
        Operation(op, { parent, resolve, report, location }) {
          const from = location.source.absoluteRef;
          const params = [...(parent?.parameters ?? []), ...(op.parameters ?? [])].map((p) => follow(resolve, p, from).node).filter(Boolean);
          if (op.operationId) operations.set(op.operationId, new Set(params.map((p) => p.name)));
          const pathParams = new Set(params.filter((p) => p.in === 'path').map((p) => p.name));
          for (const [code, ref] of Object.entries(op.responses ?? {})) {
            const response = follow(resolve, ref, from);
            for (const [name, linkRef] of Object.entries(response.node?.links ?? {})) {
              const link = follow(resolve, linkRef, response.from).node ?? {};
              const schema = response.node.content?.['application/json']?.schema;
              const check = (value) => {
                const body = /^\$response\.body#(\/.*)$/.exec(value);
                if (body) return schema && pointerResolves(resolve, schema, response.from, body[1]) ? null : `${value} names nothing in the ${code} response's JSON body`;
                const path = /^\$request\.path\.(.+)$/.exec(value);
                if (path) return pathParams.has(path[1]) ? null : `${value}: the operation has no path parameter "${path[1]}"`;
                return `${value} is not an expression this contract uses ($response.body#/…, $request.path.…)`;
              };
              pending.push({ name, link, check, report, location: location.child(['responses', code, 'links', name]) });
            }
          }
        },
      },
    },
  };
}
