// A three-way merge of JSON values: what this replica changed (`ours`, from `base`, the value it last read or
// wrote) laid over what another replica wrote meanwhile (`theirs`). Replicas share the snapshot parts (keys,
// webhooks) this way (state-pg.ts, decision SB7): each changes its own items (a key made, a delivery's status),
// so merging per property and per array item (by `id`) keeps both; where both changed one value, ours wins (the
// later commit). Hand-written: the JSON-patch libraries diff two values, none merges three.
type J = unknown;

const same = (a: J, b: J) => JSON.stringify(a) === JSON.stringify(b);
const isObject = (v: J): v is Record<string, J> => typeof v === "object" && v !== null && !Array.isArray(v);
const idOf = (v: J): string | undefined => (isObject(v) && typeof v.id === "string" ? v.id : undefined);
const byIds = (v: J): v is Array<Record<string, J>> => Array.isArray(v) && v.every((x) => idOf(x) !== undefined);

export function merge3(base: J, ours: J, theirs: J): J {
  if (same(ours, base)) return theirs;
  if (same(theirs, base) || same(ours, theirs)) return ours;
  if (isObject(ours) && isObject(theirs)) return mergeObjects(isObject(base) ? base : {}, ours, theirs);
  if (byIds(ours) && byIds(theirs)) return mergeLists(byIds(base) ? base : [], ours, theirs);
  return ours;
}

function mergeObjects(base: Record<string, J>, ours: Record<string, J>, theirs: Record<string, J>): Record<string, J> {
  const out: Record<string, J> = {};
  for (const k of new Set([...Object.keys(theirs), ...Object.keys(ours)])) {
    const v = merge3(base[k], ours[k], theirs[k]);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** Items by id: theirs in their order, then ours that are new; an item either side removed stays removed. */
function mergeLists(base: Array<Record<string, J>>, ours: Array<Record<string, J>>, theirs: Array<Record<string, J>>): J[] {
  const find = (list: Array<Record<string, J>>, id: string) => list.find((x) => x.id === id);
  const out: J[] = [];
  for (const t of theirs) {
    const o = find(ours, t.id as string);
    const b = find(base, t.id as string);
    if (!o && b) continue; // we removed it
    out.push(o ? merge3(b, o, t) : t);
  }
  for (const o of ours) if (!find(theirs, o.id as string) && !find(base, o.id as string)) out.push(o);
  return out;
}
