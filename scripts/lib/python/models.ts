// The answers' model classes of python/src/analysis_api/models.py (decision PY30): one class per object schema,
// `__slots__` over the decoded JSON (the runtime's `Model`, python/src/analysis_api/_model.py), with a typed
// read-only property per field. A property reads its key when asked and wraps what it reads: an object in its
// model, a list of objects in a list of models, a union by its discriminator (a `const` field every variant has),
// else by the keys a variant requires. Nothing is built when an answer arrives but the outer model.
//
// The wrapping of a type expression is a "converter": a Python callable (a model class, or a generated
// `_cv<n>` function) or null when the value is used as decoded (scalars, `Literal`s, lists of them). Converters
// are worked out from the rendered type expressions once every class and alias is known (`finish`).

export interface ModelField {
  key: string;
  required: boolean;
  /** The property's type expression (already `Optional[...]` for a key that may be absent). */
  type: string;
  doc: unknown;
  /** The field's `const`, when it has one (a discriminator). */
  constant: unknown;
}

interface Helpers {
  docstring(text: unknown, indent: string): string;
  isIdentifier(name: string): boolean;
}

interface TypeNode {
  name: string;
  args: TypeNode[];
}

/** Names a generated property cannot take: the model's own methods. */
const RESERVED = new Set(["to_dict", "to_json", "get", "keys"]);
const SCALARS = new Set(["Literal", "None", "str", "int", "float", "bool", "Any", "FileContent"]);

function parseType(expr: string): TypeNode {
  const tokens = expr.match(/"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_.]*|-?\d+(?:\.\d+)?|[[\],]/g) ?? [];
  let at = 0;
  const node = (): TypeNode => {
    const tok = tokens[at++] ?? "Any";
    const name = tok.startsWith('"') ? tok.slice(1, -1) : tok;
    const args: TypeNode[] = [];
    if (tokens[at] === "[") {
      at++;
      while (at < tokens.length && tokens[at] !== "]") {
        args.push(node());
        if (tokens[at] === ",") at++;
      }
      at++;
    }
    return { name, args };
  };
  return node();
}

function key(n: TypeNode): string {
  return n.args.length ? `${n.name}[${n.args.map(key).join(", ")}]` : n.name;
}

export class ModelWriter {
  private readonly classes = new Map<string, { doc: string; fields: ModelField[] }>();
  private readonly aliases = new Map<string, string>();
  private readonly converters = new Map<string, string | null>();
  private readonly defs: string[] = [];
  private finished = false;

  constructor(private readonly helpers: Helpers) {}

  alias(name: string, expr: string): void {
    this.aliases.set(name, expr);
  }

  /** Records a model class; its code is written by `render` once every type is known. */
  modelClass(name: string, doc: string, fields: ModelField[]): string {
    this.classes.set(name, { doc, fields });
    return `\u0000MODEL:${name}\u0000`;
  }

  /** Every class and alias is known: converters may be asked for. */
  finish(): void {
    this.finished = true;
  }

  /** The models' code in place of their placeholders, then the converters. */
  render(blocks: string[]): string[] {
    this.finished = true;
    const out = blocks.map((b) => b.replace(/\u0000MODEL:([A-Za-z0-9_]+)\u0000/g, (_m, name: string) => this.classCode(name)));
    const unions = [...this.aliases.keys()].filter((n) => !n.startsWith("_")).map((n) => [n, this.converter(n)] as const).filter(([, c]) => c);
    const table = `MODEL_OF: Dict[str, Any] = {\n${unions.map(([n, c]) => `    ${JSON.stringify(n)}: ${c},\n`).join("")}}\n"""The converter of each union (and other alias) holding models, by name: what the runtime wraps a value of it in."""`;
    return [...out, this.defs.join("\n\n\n"), table].filter(Boolean);
  }

  /** The converter of a type expression: a Python callable, or null when its values are used as decoded. */
  converter(expr: string): string | null {
    return this.conv(parseType(expr), new Set());
  }

  private attribute(key: string): string {
    let name = key.replace(/[^A-Za-z0-9_]+/g, "_");
    if (/^[0-9]/.test(name)) name = `_${name}`;
    return this.helpers.isIdentifier(name) && !RESERVED.has(name) ? name : `${name}_`;
  }

  private classCode(name: string): string {
    const { doc, fields } = this.classes.get(name)!;
    const props = fields.map((f) => {
      const c = this.converter(f.type);
      const read = f.required ? `self._data[${JSON.stringify(f.key)}]` : `self._data.get(${JSON.stringify(f.key)})`;
      const body = `        v: ${f.type} = ${c ? `${c}(${read})` : read}\n        return v\n`;
      return `    @property\n    def ${this.attribute(f.key)}(self) -> ${f.type}:\n${this.helpers.docstring(f.doc, "        ")}${body}`;
    });
    return `class ${name}(Model):\n${doc}\n    __slots__ = ()\n\n${props.join("\n")}`.trimEnd();
  }

  /** The members of a union, aliases of unions flattened. */
  private members(n: TypeNode, seen: Set<string>): TypeNode[] {
    if (n.name === "Union" || n.name === "Optional") return n.args.flatMap((a) => this.members(a, seen));
    const alias = this.aliases.get(n.name);
    if (alias !== undefined && !seen.has(n.name)) return this.members(parseType(alias), new Set([...seen, n.name]));
    return [n];
  }

  private conv(n: TypeNode, seen: Set<string>): string | null {
    if (SCALARS.has(n.name)) return null;
    if (this.classes.has(n.name)) return n.name;
    const id = key(n);
    if (this.converters.has(id)) return this.converters.get(id)!;
    if (!this.finished) throw new Error(`converter of ${id} asked before the models are known`);
    this.converters.set(id, null); // a cycle converts nothing more
    const made = this.make(n, seen);
    this.converters.set(id, made);
    return made;
  }

  private readonly byCode = new Map<string, string>();

  /** A converter function of the given code (`$NAME` its name), written once however many types share it. */
  private define(lines: string): string {
    const known = this.byCode.get(lines);
    if (known) return known;
    const name = `_cv${this.defs.length}`;
    this.defs.push(lines.replace(/\$NAME_BY/g, `${name}_by`).replace(/\$NAME/g, name));
    this.byCode.set(lines, name);
    return name;
  }

  private make(n: TypeNode, seen: Set<string>): string | null {
    const alias = this.aliases.get(n.name);
    if (alias !== undefined) return seen.has(n.name) ? null : this.conv(parseType(alias), new Set([...seen, n.name]));
    if (n.name === "List") {
      const c = this.conv(n.args[0]!, seen);
      return c && this.define(`def $NAME(v: Any) -> Any:\n    return [${c}(x) for x in v]`);
    }
    if (n.name === "Dict") {
      const c = this.conv(n.args[1]!, seen);
      return c && this.define(`def $NAME(v: Any) -> Any:\n    return {k: ${c}(x) for k, x in v.items()}`);
    }
    if (n.name !== "Union" && n.name !== "Optional") return null;
    return this.union(this.members(n, seen), seen);
  }

  /** A union's converter: `None` passes, a list goes to its list member, an object to the model its
   * discriminator names (else the first model whose required keys it has). */
  private union(members: TypeNode[], seen: Set<string>): string | null {
    const lists = members.filter((m) => m.name === "List").map((m) => this.conv(m, seen)).filter(Boolean);
    const models = members.filter((m) => this.classes.has(m.name)).map((m) => m.name);
    const maps = members.filter((m) => m.name === "Dict").map((m) => this.conv(m, seen)).filter(Boolean);
    const lines: string[] = [];
    if (lists.length) lines.push(`    if isinstance(v, list):\n        return ${lists[0]}(v)`);
    if (models.length === 1) lines.push(`    if isinstance(v, dict):\n        return ${models[0]}(v)`);
    else if (models.length > 1) {
      const tag = this.discriminator(models);
      if (tag) {
        const table = tag.values.map((value, i) => `${JSON.stringify(value)}: ${models[i]}`).join(", ");
        lines.push(`    if isinstance(v, dict):\n        return $NAME_BY.get(v.get(${JSON.stringify(tag.key)}), ${models[0]})(v)`);
        return this.define(`$NAME_BY: Dict[Any, Any] = {${table}}\n\n\ndef $NAME(v: Any) -> Any:\n${lines.join("\n")}\n    return v`);
      }
      const options = models.map((m) => `(${m}, (${this.classes.get(m)!.fields.filter((f) => f.required).map((f) => `${JSON.stringify(f.key)}, `).join("")}))`);
      lines.push(`    if isinstance(v, dict):\n        return pick(v, (${options.join(", ")}))`);
    } else if (maps.length) lines.push(`    if isinstance(v, dict):\n        return ${maps[0]}(v)`);
    if (!lines.length) return null;
    return this.define(`def $NAME(v: Any) -> Any:\n${lines.join("\n")}\n    return v`);
  }

  /** A key every model has as a `const` field, with distinct values. */
  private discriminator(models: string[]): { key: string; values: unknown[] } | null {
    const first = this.classes.get(models[0]!)!.fields.filter((f) => f.constant !== undefined && f.required);
    for (const candidate of first) {
      const values = models.map((m) => this.classes.get(m)!.fields.find((f) => f.key === candidate.key && f.required)?.constant);
      if (values.every((v) => v !== undefined) && new Set(values.map((v) => JSON.stringify(v))).size === values.length) return { key: candidate.key, values };
    }
    return null;
  }
}
