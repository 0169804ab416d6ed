// x-idempotency as spec/README.md states its grammar: the README's example has exactly the contract's fields, the
// reader refuses a malformed policy with the field's name, and the contract's error bodies carry the two codes.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "../../scripts/lib/paths.js";
import { readIdempotency } from "../../src/contract/idempotency.js";
import { contract } from "../helpers/mock.js";

const readme = fs.readFileSync(path.join(ROOT, "spec/README.md"), "utf8");
const example = parse(/### `x-idempotency`\n\n```yaml\n([\s\S]*?)```/.exec(readme)![1]!)["x-idempotency"];
const policy = readIdempotency(contract.doc);

describe("x-idempotency", () => {
  it("spec/README.md's example has the contract's fields and values (exempt aside)", () => {
    expect(Object.keys(example).sort()).toEqual(Object.keys(policy).sort());
    const { exempt: _e, ...rest } = example;
    const { exempt: _p, ...own } = policy;
    expect(rest).toEqual(own);
  });

  it("the reader names the field that is wrong", () => {
    const broken = (change: object) => () => readIdempotency({ "x-idempotency": { ...policy, ...change } });
    expect(broken({ window_seconds: "1 day" })).toThrow("x-idempotency.window_seconds must be a positive integer");
    expect(broken({ not_stored: ["4xx"] })).toThrow(/x-idempotency\.not_stored must be a list of statuses/);
    expect(broken({ errors: { in_use: policy.errors.in_use } })).toThrow("x-idempotency.errors.reused must be { status, error }");
    expect(() => readIdempotency({})).toThrow("contract has no x-idempotency");
  });

  it("the error codes are in the Error schema's x-extensible-enum, and the header parameter is 1-255 characters", () => {
    const codes = contract.doc.components.schemas.Error.properties.error["x-extensible-enum"];
    expect(codes).toEqual(expect.arrayContaining([policy.errors.in_use.error, policy.errors.reused.error]));
    const param = contract.doc.components.parameters[policy.parameter];
    expect([param.name, param.in, param.schema.minLength, param.schema.maxLength]).toEqual([policy.header, "header", 1, 255]);
    expect(contract.doc.components.headers[policy.replayed_header]).toBeDefined();
  });
});
