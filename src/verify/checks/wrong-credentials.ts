// wrong-credentials: a well-formed credential the service never issued, and a key that was revoked, answer 401
// (spec §5: the key is looked up, not just its form checked). Prism's mock, for one, accepts any key value; the
// first pass of the verifier sent only "no credentials" and `?token=`, which such a service passes.
import type { Check } from "../types.js";
import { pointer } from "../session/reproduce.js";
import { judgeProbe } from "./util.js";

export function wrongCredentials(): Check {
  return {
    name: "wrong-credentials",
    description: "A well-formed unknown key and a revoked key answer 401.",
    check: (e) => judgeProbe(e, ["unknown-key", "revoked-key"]),
    schemaPath: () => pointer("components", "securitySchemes"),
  };
}
