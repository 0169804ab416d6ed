// Pages of a collection: `limit` (its default and maximum are the contract's), an opaque `cursor` (the list
// position of the last item shown), and the filters a list declares on its query parameters with `x-filter`
// (src/contract/filters.ts: `{property, match}`; equals, prefix, in, range-min, range-max, after, before). A query parameter
// without `x-filter` (`window`) filters nothing: filters are declared, never inferred from names (lint states the
// default a name suggests). Newest first; the last page says `has_more: false` and `next_cursor: null`.
import { FILTER_KEY, filterTest, type FilterDecl } from "../../../contract/filters.js";
import type { Contract, Json, Route } from "../contract/contract-build.js";
import { fromBase64UrlJson, toBase64UrlJson } from "../util/digest.js";
import type { CollectionModel } from "./model.js";
import { insertionIndex, type Position, type Rec } from "./records.js";

type Test = (value: Json) => boolean;

interface FilterSpec {
  param: string;
  make(raw: string[]): Test;
}

export interface ListSpec {
  coll: CollectionModel;
  limit: { default: number; max: number };
  filters: FilterSpec[];
  /** `[_after, _before]` pairs of the same property, checked for order. */
  ranges: Array<[string, string]>;
}

export class ListError extends Error {}

const PAGING = new Set(["cursor", "limit"]);

/** The filters, limits and ranges of a list operation, from its query parameters. */
export function readListSpec(contract: Contract, route: Route, coll: CollectionModel): ListSpec {
  const filters: FilterSpec[] = [];
  const ranges: Array<[string, string]> = [];
  let limit = { default: 20, max: 100 };
  const props = coll.properties;
  for (const p of route.parameters.filter((x) => x.in === "query")) {
    const name: string = p.name;
    const schema = contract.deref(p.schema);
    if (name === "limit") limit = { default: schema?.default ?? limit.default, max: schema?.maximum ?? limit.max };
    if (PAGING.has(name)) continue;
    const decl = p[FILTER_KEY] as FilterDecl | undefined;
    if (!decl || !Object.hasOwn(props, decl.property)) continue;
    const property = props[decl.property];
    filters.push({ param: name, make: (raw) => filterTest(decl, property, raw) as Test });
    if (decl.match === "after") {
      const other = route.parameters.find((x) => x.in === "query" && x[FILTER_KEY]?.property === decl.property && x[FILTER_KEY]?.match === "before");
      if (other) ranges.push([name, other.name]);
    }
  }
  return { coll, limit, filters, ranges };
}

export function encodeCursor(p: Position): string {
  return toBase64UrlJson([p.time, p.seq]);
}

export function decodeCursor(cursor: string): Position {
  let v: unknown;
  try {
    v = fromBase64UrlJson(cursor);
  } catch {
    v = null;
  }
  if (!Array.isArray(v) || v.length !== 2 || !v.every((n) => Number.isSafeInteger(n))) {
    throw new ListError("cursor is not one this API gave: pass the `next_cursor` of the previous page, or omit it for the first page.");
  }
  return { time: v[0] as number, seq: v[1] as number };
}

export interface Page {
  items: Rec[];
  nextCursor: string | null;
}

/** One page of `records` (in list order) for the query of a request. Throws ListError for a bad cursor or range. */
export function page(spec: ListSpec, records: readonly Rec[], query: URLSearchParams): Page {
  const rawLimit = query.get("limit");
  const limit = rawLimit === null ? spec.limit.default : Math.min(spec.limit.max, Math.max(1, Math.trunc(Number(rawLimit)) || spec.limit.default));
  const tests: Test[] = [];
  for (const f of spec.filters) {
    const raw = query.getAll(f.param);
    if (raw.length) tests.push(f.make(raw));
  }
  for (const [after, before] of spec.ranges) {
    const a = query.get(after);
    const b = query.get(before);
    if (a !== null && b !== null && !(Date.parse(b) > Date.parse(a))) throw new ListError(`${before} must be later than ${after}.`);
  }
  const timed = spec.coll.time !== null;
  const cursor = query.get("cursor");
  let i = cursor === null ? 0 : insertionIndex(records, decodeCursor(cursor), timed);
  const items: Rec[] = [];
  for (; i < records.length && items.length < limit; i++) {
    const r = records[i]!;
    if (tests.every((t) => t(r.value))) items.push(r);
  }
  let more = false;
  for (; i < records.length && !more; i++) more = tests.every((t) => t(records[i]!.value));
  return { items, nextCursor: more ? encodeCursor(items.at(-1)!) : null };
}

const OPEN = Buffer.from('{"data":[');
const COMMA = Buffer.from(",");

/** The list envelope of a page as JSON bytes, from each record's cached JSON. */
export function pageJson(p: Page): Buffer {
  const parts: Buffer[] = [OPEN];
  p.items.forEach((r, i) => {
    if (i) parts.push(COMMA);
    parts.push(r.json());
  });
  parts.push(Buffer.from(`],"next_cursor":${JSON.stringify(p.nextCursor)},"has_more":${p.nextCursor !== null}}`));
  return Buffer.concat(parts);
}

