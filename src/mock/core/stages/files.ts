// Stage `files`: the files the store's links point at, on this mock, without credentials (a report's
// `download_url` "needs no credentials"; x-completion `download-link`): GET /__files/{workspace}/reports/{id}.{ext}
// serves the report's document while its link's signature holds and it has not expired (file-links.ts); 404 otherwise.
import { json, type Reply } from "../http/reply.js";
import { reportFile } from "../content/report-files.js";
import type { StageFactory } from "../pipeline/stage.js";

const FILE_PATH = /^\/__files\/(ws_[0-9A-Za-z]{8,40})\/reports\/([a-z]+_[0-9A-Za-z]{8,40})\.[a-z]+$/;

export const files: StageFactory = (s) =>
  function files(ctx): Reply | undefined {
    if (!ctx.pathname.startsWith("/__files/") || (ctx.method !== "GET" && ctx.method !== "HEAD")) return undefined;
    // The signature and the expiry first: nothing is looked up (no workspace loaded or made) for a link the mock did
    // not sign (issue 29; file-links.ts).
    const m = FILE_PATH.exec(ctx.pathname);
    const q = new URLSearchParams(ctx.url.slice(ctx.url.indexOf("?") + 1 || ctx.url.length));
    if (!m || !s.store.links.valid(ctx.pathname, q.get("expires"), q.get("signature"), s.clock.now())) return gone();
    const coll = s.store.model.collections.get("Report");
    const report = coll ? s.store.workspace(m[1]!).table(coll).get(null, m[2]!)?.value : undefined;
    if (!report || !String(report.download_url ?? "").includes(ctx.pathname)) return gone();
    const file = reportFile(report);
    return { status: 200, headers: { "Content-Type": file.contentType, "Content-Disposition": `attachment; filename="${m[2]}${ctx.pathname.slice(ctx.pathname.lastIndexOf("."))}"` }, body: ctx.method === "HEAD" ? null : file.body };
  };

function gone(): Reply {
  return json(404, { detail: "No file here: the link is unknown, altered or has expired; read the report again for a fresh one." });
}
