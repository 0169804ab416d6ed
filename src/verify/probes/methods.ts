// Unsupported methods (decision Y54): on each path of a selected operation, the first method of GET, DELETE, POST,
// PUT and PATCH that no operation of the contract declares there and the run may send is sent once (one request a
// path keeps a run's cost down: a collection's DELETE, an item's POST), with the run's credential, the path
// parameters of a declared operation's first example and no body, and judged by probe-checks/unsupported-method.ts (405
// with Allow). HEAD follows GET and OPTIONS is CORS's preflight, so neither is tried. An undeclared GET is a read;
// the others could act if the service took them, so they go out only with --allow-writes. The answer is recorded
// under the path's first declared operation (its GET when it has one), and is not an answer of that operation
// for coverage.
import type { Operation } from "../types.js";
import { caseOf, sendCase, type RoundtripContext } from "./probe-context.js";

/** In order of preference: a read first, then the method whose taking would do most harm. */
const TRIED = ["GET", "DELETE", "POST", "PUT", "PATCH"] as const;

export const UNSUPPORTED_LABEL = "unsupported method";

export async function unsupportedMethods(ctx: RoundtripContext, selected: Operation[]): Promise<void> {
  let unsent = 0;
  for (const template of new Set(selected.map((op) => op.template))) {
    const onPath = ctx.view.operations.filter((op) => op.template === template);
    const allow = onPath.map((op) => op.method.toUpperCase());
    const host = onPath.find((op) => op.method === "get" && selected.includes(op)) ?? selected.find((op) => op.template === template)!;
    const parts = ctx.builder.examples(host)[0];
    const undeclared = TRIED.filter((m) => !allow.includes(m));
    if (!ctx.allowWrites && !undeclared.includes("GET") && undeclared.length) unsent++;
    for (const method of undeclared.filter((m) => m === "GET" || ctx.allowWrites).slice(0, 1)) {
      const label = `${UNSUPPORTED_LABEL} ${method}`;
      if (ctx.only && !ctx.only(host, label)) continue;
      if (!parts) continue;
      const c = await caseOf(ctx, host, { ...parts, query: {}, body: null }, label, { method, safety: method === "GET" ? "read" : "write" });
      await sendCase(ctx, { ...c, probe: { kind: "unsupported-method", expect: 405, why: `no operation declares ${method} on ${template}`, allow } });
    }
  }
  if (unsent) ctx.report.notices.push(`on ${unsent} path(s) the only undeclared methods could change state if taken: not tried for 405 without --allow-writes`);
}
