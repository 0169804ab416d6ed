// Deprecation with a sunset date (issue 32): an operation, parameter or field the baseline marks `deprecated: true`
// with `x-sunset: YYYY-MM-DD` may be removed once that date has passed; removed before it, the gate refuses the
// removal and names the date. Anything removed without a sunset is an ordinary break. A sunset is a promise to
// clients, so the date is the baseline's (what was released), never the current contract's.
import type { Json } from "../contract.js";
import type { Change } from "./diff-types.js";
import { HTTP_METHODS, resolvePointer } from "./diff-pointer.js";

export const SUNSET_KEY = "x-sunset";
export const SUNSET_RULE = "contract/sunset";
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The sunset the baseline promised for the removed node: its own, or (a removed path) the latest of its operations'. */
export function sunsetOf(base: Json, pointer: string): string | undefined {
  const node = resolvePointer(base, pointer);
  if (!node || typeof node !== "object") return undefined;
  const own = (n: Json) => (n?.deprecated === true && typeof n[SUNSET_KEY] === "string" && DATE.test(n[SUNSET_KEY]) ? (n[SUNSET_KEY] as string) : undefined);
  if (own(node)) return own(node);
  const ops = HTTP_METHODS.map((m) => node[m]).filter(Boolean);
  if (!ops.length) return undefined;
  const dates = ops.map(own);
  return dates.every(Boolean) ? (dates as string[]).sort().at(-1) : undefined;
}

/**
 * Rules on every breaking removal whose baseline node has a sunset: before the date it stays an error, under
 * `contract/sunset`, saying until when; on or after it, the removal is what the deprecation announced: info, and
 * accepted with that reason (so it needs no major version either).
 */
export function applySunsets(changes: Change[], base: Json, today = new Date().toISOString().slice(0, 10)): Change[] {
  return changes.map((c) => {
    if (c.kind !== "removed" || c.impact !== "major") return c;
    const sunset = sunsetOf(base, c.pointer);
    if (!sunset) return c;
    const rule = [c.rule, SUNSET_RULE].filter(Boolean).join(", ");
    if (sunset > today) {
      return { ...c, rule, severity: "error", message: `${c.message} It is deprecated with \`${SUNSET_KEY}: ${sunset}\`: removing it before that date is refused (clients were promised it until then).` };
    }
    return { ...c, rule, severity: "info", accepted: `removed after its sunset, ${sunset}, as its \`deprecated\` and \`${SUNSET_KEY}\` announced` };
  });
}
