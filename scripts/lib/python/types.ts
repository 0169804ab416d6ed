// The contract's JSON Schemas as Python types, for python/src/analysis_api/models.py: an object schema becomes a
// `TypedDict` (required keys required, the others optional), `enum` and `const` a `Literal`, `oneOf`/`anyOf` a
// `Union`, `type: [X, "null"]` an `Optional`, an array a `List`, a map a `Dict[str, ...]`.
//
// Written by hand because no npm generator emits this. quicktype-core 26 (the one that emits Python from JSON
// Schema) was tried on this contract (decision PY2): it merges the variants of a `oneOf` into one class whose
// every field is optional (the six stream events became one `Data`), turns a `const` into a one-member `Enum`, a
// required nullable field into an optional one, renames types (`Analysi`), and its decoding mode needs
// python-dateutil and fails `mypy --strict` 133 times. A TypedDict describes the JSON as it is, so the client
// needs no decoding step and `mypy --strict` narrows a union on its `const` discriminator.
//
// Names: a component keeps its name; an inline object is named after where it is (`<Parent><Property>`,
// `...Item` for array items, `<OperationId>Request`/`Response` for operation bodies).

import { ModelWriter } from "./models.js";

export type Schema = Record<string, unknown>;

export class PythonGenerateError extends Error {}

/** Names the generated modules import from `typing`; a component may not take one of them. */
export const TYPING_NAMES = ["Any", "Dict", "List", "Literal", "Optional", "Tuple", "TypedDict", "Union"] as const;
/** A file field of a multipart body, defined in the models' preamble. */
export const FILE_CONTENT = "FileContent";

const PY_KEYWORDS = new Set(
  ("False None True and as assert async await break class continue def del elif else except finally for from " +
    "global if import in is lambda nonlocal not or pass raise return try while with yield").split(" "),
);

export function isKeyword(name: string): boolean {
  return PY_KEYWORDS.has(name);
}

export function isIdentifier(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !isKeyword(name);
}

/** `transcript.segment` → `TranscriptSegment`, `analysis_id` → `AnalysisId`, `listAnalyses` → `ListAnalyses`. */
export function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");
}

/** `listAnalyses` → `list_analyses`, `Last-Event-ID` → `last_event_id`, `from` → `from_`. `compounds` are words
 * the contract spells with inner capitals (`OAuth`, `OpenAPI`): their pieces stay one word (`create_oauth_token`). */
export function snake(name: string, compounds: readonly string[] = []): string {
  let marked = name;
  for (const word of compounds) {
    const at = marked.toLowerCase().indexOf(word.toLowerCase());
    if (at >= 0) marked = `${marked.slice(0, at)}${word[0]!.toUpperCase()}${word.slice(1).toLowerCase()}${marked.slice(at + word.length)}`;
  }
  const s = marked
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toLowerCase();
  const id = /^[0-9]/.test(s) ? `_${s}` : s;
  return isKeyword(id) ? `${id}_` : id;
}

/** The compound words of a contract: words of its tags and operation summaries with a capital after the first
 * letter and a lowercase letter somewhere (`OAuth`, `OpenAPI`; not acronyms such as `API` or `URL`, which the
 * plain rule already keeps whole). */
export function compoundWords(texts: readonly string[]): string[] {
  const words = new Set<string>();
  for (const text of texts) for (const w of text.match(/\b[A-Z][A-Za-z]*[a-z][A-Za-z]*\b/g) ?? []) if (/^.+[A-Z]/.test(w) && /[a-z][A-Z]|^[A-Z][A-Z]/.test(w)) words.add(w);
  return [...words].sort((a, b) => b.length - a.length);
}

/** A Python literal for a JSON scalar (JSON string escapes are valid Python escapes). */
export function pyLiteral(v: unknown): string {
  if (v === null) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "number" || typeof v === "string") return JSON.stringify(v);
  throw new PythonGenerateError(`not a scalar: ${JSON.stringify(v)}`);
}

/** A `# ` comment block, one line per line of `text`, at `indent`. */
export function comment(text: unknown, indent = ""): string {
  if (typeof text !== "string" || !text.trim()) return "";
  return text.trim().split("\n").map((l) => `${indent}#${l.trim() ? " " + l.trimEnd() : ""}\n`).join("");
}

/** A docstring body, safe inside `"""`. */
export function docstring(text: unknown, indent: string): string {
  if (typeof text !== "string" || !text.trim()) return "";
  const lines = text.trim().replace(/\\/g, "\\\\").replace(/"""/g, '\\"\\"\\"').split("\n").map((l) => l.trimEnd());
  if (lines.length === 1) return `${indent}"""${lines[0]}"""\n`;
  return `${indent}"""${lines[0]}\n${lines.slice(1).map((l) => (l ? indent + l : "")).join("\n")}\n${indent}"""\n`;
}

const SCHEMA_REF = "#/components/schemas/";

/** The name of an inline variant of a union: after the `const` that tells it apart (its discriminator, e.g. an
 * SSE item whose `event` is `transcript.segment` → `<hint>TranscriptSegment`), else numbered (`<hint>2`). */
export function variantName(variant: unknown, hint: string, index: number): string {
  const props = ((variant as Schema | undefined)?.properties ?? {}) as Record<string, Schema>;
  const tag = Object.values(props).find((p) => typeof p?.const === "string" && pascal(p.const as string));
  if (tag) return `${hint}${pascal(tag.const as string)}`;
  // A variant of an "exactly one of" is named after the property it requires (`AnalysisCreateMediaUrl`).
  const own = (variant as Schema | undefined)?.required;
  return Array.isArray(own) && typeof own[0] === "string" ? `${hint}${pascal(own[0])}` : `${hint}${index + 1}`;
}

const isPlainObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * An object with its own properties and a `oneOf` of inline variants that each narrow it (a request body's
 * "exactly one of", spec/README.md § Rules every operation follows): each variant merged into the object, so
 * every TypedDict holds all the keys it takes. A property a variant forbids (`text: false`) is left out of it,
 * since a TypedDict refuses keys it does not list; one a variant narrows takes the variant's type.
 */
function exactlyOneOf(s: Schema): Schema[] | null {
  const variants = s.oneOf;
  if (!hasProperties(s) || !Array.isArray(variants) || !variants.every((v) => isPlainObject(v) && v.$ref === undefined)) return null;
  const { oneOf: _drop, ...base } = s;
  return (variants as Schema[]).map((v) => {
    const properties: Record<string, unknown> = { ...(base.properties as Record<string, unknown>) };
    for (const [key, own] of Object.entries((v.properties ?? {}) as Record<string, unknown>)) {
      if (own === false) delete properties[key];
      else if (isPlainObject(own) && Object.keys(own).length) {
        const outer = isPlainObject(properties[key]) ? (properties[key] as Schema) : {};
        const { $ref: _ref, ...rest } = outer;
        properties[key] = { ...(own.const !== undefined || own.enum !== undefined || own.type !== undefined ? rest : outer), ...own };
      }
    }
    const required = [...new Set([...((base.required as string[] | undefined) ?? []), ...((v.required as string[] | undefined) ?? [])])];
    const description = typeof v.description === "string" ? v.description : base.description;
    return { ...base, type: "object", properties, required, description };
  });
}

export function union(members: string[]): string {
  const unique = [...new Set(members)];
  const nullable = unique.includes("None");
  const rest = unique.filter((m) => m !== "None");
  if (rest.length === 0) return "None";
  const inner = rest.length === 1 ? rest[0]! : `Union[${rest.join(", ")}]`;
  return nullable ? `Optional[${inner}]` : inner;
}

function isBinaryString(s: Schema): boolean {
  if (s.format === "binary") return true;
  const media = s.contentMediaType;
  return typeof media === "string" && s.contentEncoding === undefined && !/^text\/|json/i.test(media);
}

/**
 * Renders schemas as Python type expressions, collecting the definitions (TypedDicts and aliases) they need, in an
 * order where each inline definition precedes its first user.
 */
export class PythonTypes {
  private readonly blocks: string[] = [];
  private readonly taken = new Set<string>(TYPING_NAMES);
  private readonly exported: string[] = [];
  /** Component names whose definition is done or under way. */
  private readonly components = new Set<string>();
  /** The name given to each inline schema, so a schema met twice is defined once (one map per mode). */
  private readonly inlineNames = { model: new WeakMap<object, string>(), param: new WeakMap<object, string>() };
  /** Component names whose `Param` TypedDict is done or under way. */
  private readonly paramComponents = new Set<string>();
  /**
   * What `expr` renders: `model` (answers: an object is a model class with attribute access, models.ts) or `param`
   * (what the caller sends: an object is a `TypedDict` named `<Name>Param`, so plain dicts type-check).
   */
  mode: "model" | "param" = "model";
  private readonly models = new ModelWriter({ docstring, isIdentifier });
  private readonly holdsObject = new Map<string, boolean>();

  constructor(private readonly schemas: Record<string, Schema>) {
    this.taken.add(FILE_CONTENT);
    for (const name of Object.keys(schemas)) {
      if (!isIdentifier(name)) throw new PythonGenerateError(`#/components/schemas/${name}: the name is not a Python identifier`);
      if (this.taken.has(name)) {
        throw new PythonGenerateError(`#/components/schemas/${name}: the name is taken by the Python models' imports (${[...this.taken].join(", ")})`);
      }
    }
    for (const name of Object.keys(schemas)) this.taken.add(name);
  }

  /** Every definition, in order. */
  code(): string {
    return this.models.render(this.blocks).join("\n\n\n");
  }

  /** The converter of an answer of type `expr` (model mode), once every type is defined: a Python callable, or
   * null when none is needed. */
  converter(expr: string): string | null {
    this.models.finish();
    return this.models.converter(expr);
  }

  /** Every public name defined, sorted. */
  names(): string[] {
    return [...this.exported].sort();
  }

  /** Defines every component schema, in the order of the bundle. */
  defineComponents(): void {
    for (const name of Object.keys(this.schemas)) this.defineComponent(name);
  }

  /** Defines the `<Name>Param` TypedDict of every component holding an object: the JSON a caller sends, and the
   * shape `to_dict()` gives back. */
  defineParamComponents(): void {
    const mode = this.mode;
    this.mode = "param";
    for (const name of Object.keys(this.schemas)) this.ref(`${SCHEMA_REF}${name}`, `${SCHEMA_REF}${name}`, false);
    this.mode = mode;
  }

  private defineComponent(name: string): void {
    if (this.components.has(name)) return;
    this.components.add(name);
    this.define(name, this.schemas[name]!, `${SCHEMA_REF}${name}`);
  }

  /** A fresh name for an inline definition: `hint`, or `hint2`, `hint3`... when taken. */
  private fresh(hint: string): string {
    let name = hint;
    for (let n = 2; this.taken.has(name); n++) name = `${hint}${n}`;
    this.taken.add(name);
    return name;
  }

  /** Defines `name` as `schema`: a model class (model mode) or TypedDict (param mode) for an object with
   * properties, otherwise an alias. */
  private define(name: string, schema: Schema, where: string): void {
    this.exported.push(name);
    if ((schema.type === "object" || schema.type === undefined) && hasProperties(schema) && !schema.oneOf && !schema.anyOf) {
      this.blocks.push(this.mode === "model" ? this.modelClass(name, schema, where) : this.typedDict(name, schema, where));
      return;
    }
    const expr = this.expr(schema, name, where, true);
    if (this.mode === "model") this.models.alias(name, expr);
    this.blocks.push(`${comment(schema.description)}${name} = ${expr}`);
  }

  /** A model class: typed read-only properties over the decoded JSON (models.ts). */
  private modelClass(name: string, s: Schema, where: string): string {
    const properties = s.properties as Record<string, Schema>;
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    const fields = Object.entries(properties).map(([key, prop]) => {
      const type = this.expr(prop, `${name}${pascal(key)}`, `${where}/properties/${key}`, false);
      return { key, required: required.has(key), type: required.has(key) ? type : union([type, "None"]), doc: isPlainObject(prop) ? prop.description : undefined, constant: isPlainObject(prop) ? prop.const : undefined };
    });
    return this.models.modelClass(name, docstring(s.description, "    "), fields);
  }

  /** Whether a component holds an object with properties (its param-mode type is then a `<Name>Param`). */
  private componentHoldsObject(name: string): boolean {
    const known = this.holdsObject.get(name);
    if (known !== undefined) return known;
    this.holdsObject.set(name, false); // a cycle adds nothing
    const seen = new Set<unknown>();
    const walk = (v: unknown): boolean => {
      if (!isPlainObject(v) && !Array.isArray(v)) return false;
      if (seen.has(v)) return false;
      seen.add(v);
      if (Array.isArray(v)) return v.some(walk);
      if (typeof v.$ref === "string" && v.$ref.startsWith(SCHEMA_REF)) return this.componentHoldsObject(v.$ref.slice(SCHEMA_REF.length));
      if (hasProperties(v)) return true;
      return Object.entries(v).some(([k, x]) => k !== "properties" && k !== "examples" && k !== "example" && k !== "default" && walk(x));
    };
    const answer = walk(this.schemas[name]);
    this.holdsObject.set(name, answer);
    return answer;
  }

  /**
   * The type expression of `schema`. `hint` names an inline object found in it; `quoted` quotes references to
   * named types, for expressions Python evaluates when the module loads (aliases; class bodies are not, thanks to
   * `from __future__ import annotations`).
   */
  expr(schema: unknown, hint: string, where: string, quoted: boolean): string {
    if (typeof schema !== "object" || schema === null) return schema === false ? "None" : "Any";
    const s = schema as Schema;
    if (typeof s.$ref === "string") return this.ref(s.$ref, where, quoted);
    if ("const" in s) return s.const === null ? "None" : `Literal[${pyLiteral(s.const)}]`;
    if (Array.isArray(s.enum)) {
      const values = s.enum.filter((v) => v !== null);
      const members = values.length ? [`Literal[${values.map(pyLiteral).join(", ")}]`] : [];
      if (values.length < s.enum.length) members.push("None");
      return union(members);
    }
    const exclusive = exactlyOneOf(s);
    if (exclusive) return union(exclusive.map((v, i) => this.expr(v, variantName((s.oneOf as unknown[])[i], hint, i), `${where}/oneOf/${i}`, quoted)));
    const variants = (s.oneOf ?? s.anyOf) as unknown[] | undefined;
    if (Array.isArray(variants)) {
      // Variants are numbered (`<hint>1`, `<hint>2`) only when more than one needs a name.
      const named = variants.filter((v) => !isNullSchema(v)).length > 1;
      const members = variants.map((v, i) => this.expr(v, named ? variantName(v, hint, i) : hint, `${where}/${s.oneOf ? "oneOf" : "anyOf"}/${i}`, quoted));
      if (Array.isArray(s.type) && s.type.includes("null")) members.push("None");
      return union(members);
    }
    if (Array.isArray(s.allOf)) {
      if (s.allOf.length === 1) return this.expr(s.allOf[0], hint, `${where}/allOf/0`, quoted);
      throw new PythonGenerateError(`${where}: allOf with several members has no Python type (spec/README.md: no allOf inheritance)`);
    }
    const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === "string" ? [s.type] : [];
    if (types.length === 0) return hasProperties(s) ? this.inline(s, hint, where, quoted) : "Any";
    return union(types.map((t) => this.typeOf(t, s, hint, where, quoted)));
  }

  private typeOf(type: string, s: Schema, hint: string, where: string, quoted: boolean): string {
    switch (type) {
      case "string":
        return isBinaryString(s) ? (quoted ? `"${FILE_CONTENT}"` : FILE_CONTENT) : "str";
      case "integer":
        return "int";
      case "number":
        return "float";
      case "boolean":
        return "bool";
      case "null":
        return "None";
      case "array":
        return `List[${s.items === undefined ? "Any" : this.expr(s.items, `${hint}Item`, `${where}/items`, quoted)}]`;
      case "object":
        if (hasProperties(s)) return this.inline(s, hint, where, quoted);
        if (typeof s.additionalProperties === "object" && s.additionalProperties !== null) {
          return `Dict[str, ${this.expr(s.additionalProperties, `${hint}Value`, `${where}/additionalProperties`, quoted)}]`;
        }
        return "Dict[str, Any]";
      default:
        throw new PythonGenerateError(`${where}: unknown type "${type}"`);
    }
  }

  private ref(ref: string, where: string, quoted: boolean): string {
    if (!ref.startsWith(SCHEMA_REF) || !(ref.slice(SCHEMA_REF.length) in this.schemas)) {
      throw new PythonGenerateError(`${where}: $ref ${ref} is not a component schema of the bundle`);
    }
    let name = ref.slice(SCHEMA_REF.length);
    if (this.mode === "param" && this.componentHoldsObject(name)) {
      const model = name;
      name = `${model}Param`;
      if (!this.paramComponents.has(model)) {
        this.paramComponents.add(model);
        if (this.taken.has(name)) throw new PythonGenerateError(`#/components/schemas/${name}: the name is taken by the TypedDict of ${model} (what a caller sends)`);
        this.taken.add(name);
        this.define(name, this.schemas[model]!, `${SCHEMA_REF}${model}`);
      }
    }
    return quoted ? `"${name}"` : name;
  }

  /** An inline object: defined under a fresh name, referred to by it. */
  private inline(s: Schema, hint: string, where: string, quoted: boolean): string {
    let name = this.inlineNames[this.mode].get(s);
    if (name === undefined) {
      name = this.fresh(hint);
      this.inlineNames[this.mode].set(s, name);
      // A nullable object (`type: [object, null]`) is defined as the object; the caller adds the None.
      this.define(name, Array.isArray(s.type) ? { ...s, type: "object" } : s, where);
    }
    return quoted ? `"${name}"` : name;
  }

  /**
   * A TypedDict. Required keys are those in `required`; when some are optional, the required ones go in a base
   * class and the optional ones in the class itself with `total=False` (`NotRequired` needs Python 3.11; this
   * works from 3.9). A key that is a Python keyword (`from`) cannot be a class attribute, so such a part is
   * written in the functional form `TypedDict("Name", {...})` and inherited.
   */
  private typedDict(name: string, s: Schema, where: string): string {
    const properties = s.properties as Record<string, Schema>;
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    const fields = Object.entries(properties).map(([key, prop]) => ({
      key,
      required: required.has(key),
      type: this.expr(prop, `${name}${pascal(key)}`, `${where}/properties/${key}`, false),
      doc: typeof prop === "object" && prop !== null ? prop.description : undefined,
    }));
    const req = fields.filter((f) => f.required);
    const opt = fields.filter((f) => !f.required);
    const doc = docstring(s.description, "    ");
    const parts: string[] = [];
    const bases: string[] = [];
    const functional = fields.some((f) => !isIdentifier(f.key));

    const classBody = (list: typeof fields) => list.map((f) => `${comment(f.doc, "    ")}    ${f.key}: ${f.type}\n`).join("");
    const functionalPart = (partName: string, list: typeof fields, total: boolean) =>
      `${partName} = TypedDict(\n    "${partName}",\n    {\n${list
        .map((f) => `${comment(f.doc, "        ")}        ${JSON.stringify(f.key)}: ${quoteNames(f.type, this.taken)},\n`)
        .join("")}    },${total ? "" : "\n    total=False,"}\n)`;

    if (functional) {
      if (req.length) {
        parts.push(functionalPart(`_${name}Required`, req, true));
        bases.push(`_${name}Required`);
      }
      if (opt.length) {
        parts.push(functionalPart(`_${name}Optional`, opt, false));
        bases.push(`_${name}Optional`);
      }
      parts.push(`class ${name}(${bases.join(", ")}):\n${doc || "    pass\n"}`);
    } else if (req.length && opt.length) {
      parts.push(`class _${name}Required(TypedDict):\n${classBody(req)}`);
      parts.push(`class ${name}(_${name}Required, total=False):\n${doc}${classBody(opt)}`);
    } else {
      const body = classBody(fields);
      parts.push(`class ${name}(TypedDict${req.length ? "" : ", total=False"}):\n${doc}${body || (doc ? "" : "    pass\n")}`);
    }
    return parts.map((p) => p.trimEnd()).join("\n\n\n");
  }
}

/** Quotes every defined name in a type expression (for the functional TypedDict form, evaluated at load time). */
function quoteNames(expr: string, names: Set<string>): string {
  return expr.replace(/"[^"]*"|[A-Za-z_][A-Za-z0-9_]*/g, (tok) => (tok.startsWith('"') || !names.has(tok) || (TYPING_NAMES as readonly string[]).includes(tok) ? tok : `"${tok}"`));
}

function isNullSchema(v: unknown): boolean {
  return typeof v === "object" && v !== null && ((v as Schema).type === "null" || (v as Schema).const === null);
}

function hasProperties(s: Schema): boolean {
  return typeof s.properties === "object" && s.properties !== null && Object.keys(s.properties).length > 0;
}
