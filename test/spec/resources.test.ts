// Section 2 (resources and prefixes) and section 4 (endpoints) of the interface specification.
import { describe, expect, it } from "vitest";
import { codes, table } from "../helpers/spec-doc.js";
import { deref, doc, operation, operations } from "../helpers/contract.js";

const under = (path: string, prefix: string) => path === prefix || path.startsWith(prefix + "/");

describe("section 2: every resource group's prefix has real operations", () => {
  const rows = table("2. Resources and their fields");
  it("the table was read", () => {
    expect(rows.length).toBeGreaterThanOrEqual(19);
  });
  for (const row of rows) {
    for (const prefix of codes(row["Main path prefixes"]!)) {
      it(`${row["Resource group"]}: ${prefix}`, () => {
        const ops = operations().filter((o) => under(o.path, prefix));
        expect(ops.length, `no operation under ${prefix}`).toBeGreaterThan(0);
        for (const { op } of ops) {
          // A real operation: a success response with a body or an explicit no-content/upgrade status.
          const success = Object.keys(op.responses).filter((c) => /^[12]\d\d$/.test(c));
          expect(success.length, `${op.operationId} has no success response`).toBeGreaterThan(0);
        }
      });
    }
  }
});

describe("section 4: the known operations exist with the documented method and shape", () => {
  const rows = table("Known operations");
  it("the table was read", () => expect(rows.length).toBe(8));
  for (const row of rows) {
    const [path] = codes(row["Path shape"]!);
    const method = row["Method"]!;
    it(`${method} ${path}`, () => {
      const item = doc.paths[path!];
      expect(item, `path ${path} is missing (spelling must be exact)`).toBeDefined();
      if (method === "WebSocket") {
        expect(item.get?.responses?.["101"], "a WebSocket is a GET answering 101 Switching Protocols").toBeDefined();
      } else if (method === "SSE") {
        const ok = deref(item.get?.responses?.["200"]);
        expect(Object.keys(ok?.content ?? {})).toContain("text/event-stream");
      } else if (method === "not shown") {
        expect(Object.keys(item).some((k) => ["get", "post", "put", "patch"].includes(k))).toBe(true);
      } else {
        expect(item[method.toLowerCase()], `${method} ${path}`).toBeDefined();
      }
    });
  }

  it("keeps the singular /v1/analysis/... beside the plural /v1/analyses", () => {
    const paths = Object.keys(doc.paths);
    expect(paths).toContain("/v1/analyses");
    expect(paths).toContain("/v1/analysis/stream-upload");
    expect(paths).toContain("/v1/analysis/{id}/stream");
    expect(paths.filter((p) => p.startsWith("/v1/analysis/")).sort()).toEqual(["/v1/analysis/stream-upload", "/v1/analysis/{id}/stream"]);
  });

  it("the SSE path parameter keeps the specification's name, {id}", () => {
    const params = (doc.paths["/v1/analysis/{id}/stream"].parameters ?? []).map((p: unknown) => deref(p));
    expect(params.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toContain("path:id");
  });

  it("the machine-readable description and its viewer are themselves described", () => {
    expect(Object.keys(deref(operation("/openapi.yaml", "get").op.responses["200"]).content)).toContain("application/yaml");
    expect(Object.keys(deref(operation("/swagger.html", "get").op.responses["200"]).content)).toContain("text/html");
  });
});

describe("the operations the contract issue asks for", () => {
  const must: Array<[string, string]> = [
    ["get", "/v1/analyses"], ["post", "/v1/analyses"], ["post", "/v1/analyses/upload"],
    ["get", "/v1/analyses/{analysis_id}"], ["patch", "/v1/analyses/{analysis_id}"], ["delete", "/v1/analyses/{analysis_id}"],
    ["get", "/v1/analyses/{analysis_id}/transcript"], ["get", "/v1/analyses/{analysis_id}/speakers"],
    ["post", "/v1/runs/{run_id}/cancel"], ["post", "/v1/approvals/{approval_id}/approve"], ["post", "/v1/approvals/{approval_id}/reject"],
    ["get", "/v1/workspaces/{workspace_id}/members"], ["post", "/v1/keys"], ["delete", "/v1/keys/{key_id}"],
    ["post", "/v1/query"], ["post", "/v1/text/analyze"], ["post", "/v1/privacy/exports"], ["post", "/v1/privacy/deletions"],
    ["get", "/v1/consent"], ["get", "/v1/tos"], ["post", "/v1/tos/accept"], ["get", "/v1/privacy-policy"],
    ["post", "/v1/oauth/token"], ["post", "/v1/oauth/revoke"], ["get", "/v1/billing/plan"], ["get", "/v1/billing/usage"],
    ["get", "/v1/billing/invoices"], ["get", "/v1/agent-monitoring/agents"], ["post", "/aria/conversations"],
    ["get", "/aria/conversations"], ["get", "/aria/conversations/{conversation_id}"],
    ["post", "/aria/conversations/{conversation_id}/messages"], ["post", "/aria/results/chat"],
    ["get", "/ws/analyses/{analysis_id}"], ["post", "/v1/webhooks"], ["get", "/v1/health"],
  ];
  for (const [method, path] of must) it(`${method.toUpperCase()} ${path}`, () => expect(doc.paths[path]?.[method]).toBeDefined());

  const crud = ["speakers", "use-cases", "skills", "agents", "boards", "workspaces", "webhooks"];
  for (const r of crud) {
    it(`/v1/${r} has list, create, get, update and delete`, () => {
      const item = Object.entries<Record<string, unknown>>(doc.paths).find(([p]) => new RegExp(`^/v1/${r}/\\{[a-z_]+\\}$`).test(p));
      expect(doc.paths[`/v1/${r}`]?.get && doc.paths[`/v1/${r}`]?.post).toBeTruthy();
      expect(item && item[1].get && item[1].patch && item[1].delete).toBeTruthy();
    });
  }

  it("approve and reject answer 409 when the approval is already decided; cancel answers 409 when the run finished", () => {
    for (const [p, m] of [["/v1/approvals/{approval_id}/approve", "post"], ["/v1/approvals/{approval_id}/reject", "post"], ["/v1/runs/{run_id}/cancel", "post"]] as const) {
      expect(operation(p, m).op.responses["409"], `${m} ${p}`).toBeDefined();
    }
  });

  it("analyses have an upload operation whose path contains /upload", () => {
    const uploads = operations().filter((o) => o.path.startsWith("/v1/analyses") && o.path.includes("/upload"));
    expect(uploads.map((o) => o.method)).toContain("post");
  });

  it("operationIds are unique", () => {
    const ids = operations().map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
