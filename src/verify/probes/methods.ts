// Unsupported methods (decision Y54): on each path of a selected operation, every method of GET, POST, PUT, PATCH
// and DELETE that no operation of the contract declares there is sent once, with the run's credential, the path
// parameters of a declared operation's first example and no body, and judged by probe-checks/unsupported-method.ts (405
// with Allow). HEAD follows GET and OPTIONS is CORS's preflight, so neither is tried. An undeclared GET is a read;
// the others could act if the service took them, so they go out only with --allow-writes. The answer is recorded
// under the path's first declared operation (its GET when it has one), and is not an answer of that operation
// for coverage.
import type { Operation } from "../types.js";
import { caseOf, sendCase, type RoundtripContext } from "./probe-context.js";

const TRIED = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

export const UNSUPPORTED_LABEL = "unsupported method";

export async function unsupportedMethods(ctx: RoundtripContext, selected: Operation[]): Promise<void> {
  let unsent = 0;
  for (const template of new Set(selected.map((op) => op.template))) {
    const onPath = ctx.view.operations.filter((op) => op.template === template);
    const allow = onPath.map((op) => op.method.toUpperCase());
    const host = onPath.find((op) => op.method === "get" && selected.includes(op)) ?? selected.find((op) => op.template === template)!;
    const parts = ctx.builder.examples(host)[0];
    for (const method of TRIED.filter((m) => !allow.includes(m))) {
      const label = `${UNSUPPORTED_LABEL} ${method}`;
      if (ctx.only && !ctx.only(host, label)) continue;
      if (method !== "GET" && !ctx.allowWrites) {
        unsent++;
        continue;
      }
      if (!parts) continue;
      const c = await caseOf(ctx, host, { ...parts, query: {}, body: null }, label, { method, safety: method === "GET" ? "read" : "write" });
      await sendCase(ctx, { ...c, probe: { kind: "unsupported-method", expect: 405, why: `no operation declares ${method} on ${template}`, allow } });
    }
  }
  if (unsent) ctx.report.notices.push(`${unsent} undeclared method(s) other than GET were not tried for 405 (they could change state if taken): sent only with --allow-writes`);
}
