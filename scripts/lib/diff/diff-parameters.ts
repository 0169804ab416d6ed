// Parameters are matched by name and place (`in`), as oasdiff matches them (decision VG16). `redocly diff` already
// pairs a reordered list by name, but when a parameter's name or `in` differs at the same position it reports one
// "renamed" change there. A parameter is its name and place: a client that sends the old one is not heard, and the
// new one is another parameter. So such a change becomes the old parameter removed (major) and the new one added
// (major when it is required, as a new required parameter breaks every request without it; minor otherwise).
import type { Json } from "../contract.js";
import type { RedoclyChange } from "./diff-types.js";
import { resolvePointer } from "./diff-pointer.js";

const IDENTITY = new Set(["name", "in"]);

/** redocly's changes with every "renamed or moved" parameter split into a removal and an addition. */
export function splitRenamedParameters(raw: RedoclyChange[], base: Json, head: Json): RedoclyChange[] {
  return raw.flatMap((c) => {
    if (c.typeName !== "Parameter" || c.kind !== "modified" || !IDENTITY.has(c.property ?? "") || !/\/parameters\/\d+$/.test(c.path)) return [c];
    const [was, now] = [resolvePointer(base, c.path), resolvePointer(head, c.path)];
    if (typeof was?.name !== "string" || typeof now?.name !== "string") return [c];
    const at = (side: RedoclyChange["base"]) => side && { ...side, pointer: side.pointer.replace(/\/(name|in)$/, "") };
    const removed: RedoclyChange = {
      path: c.path,
      typeName: "Parameter",
      kind: "removed",
      impact: "major",
      verdicts: [{ ruleId: "parameter-removed", message: `\`${was.name}\` ${was.in} parameter was removed: a client that sends it is no longer heard (\`${now.name}\` ${now.in} is another parameter).` }],
      ...(c.base && { base: at(c.base) }),
    };
    const added: RedoclyChange = {
      path: c.path,
      typeName: "Parameter",
      kind: "added",
      impact: now.required === true ? "major" : "minor",
      verdicts: now.required === true ? [{ ruleId: "parameter-became-required", message: `New required \`${now.name}\` ${now.in} parameter: a request without it is refused.` }] : [],
      ...(c.revision && { revision: at(c.revision) }),
    };
    return [removed, added];
  });
}
