// Where the verifier may go, and what it may send there. Only http(s) targets; a credential in a URL (`?token=`)
// only over TLS or to loopback (spec §5 rule 7), so the token-query checks are left out for a plain-HTTP target
// elsewhere.
import { isLoopbackAddress } from "../loopback.js";

export class VerifyUsageError extends Error {}

export interface Target {
  /** Base URL without a trailing slash (a base path such as `/api` is kept). */
  base: string;
  tls: boolean;
  loopback: boolean;
}

export function parseTarget(raw: string): Target {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new VerifyUsageError(`--target ${JSON.stringify(raw)} is not a URL; give the service's base URL, e.g. https://staging.example.com`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new VerifyUsageError(`--target must be an http:// or https:// URL, not ${url.protocol}//…`);
  }
  if (url.username || url.password) throw new VerifyUsageError("--target must not carry credentials; use --api-key or --token");
  if (url.search || url.hash) throw new VerifyUsageError("--target must be a base URL without a query or fragment");
  return { base: url.origin + url.pathname.replace(/\/+$/, ""), tls: url.protocol === "https:", loopback: isLoopback(url.hostname) };
}

/** 127.0.0.0/8, ::1 (IPv4-mapped and long forms included) and localhost (loopback.ts). */
export function isLoopback(hostname: string): boolean {
  return isLoopbackAddress(hostname);
}

/** May a credential travel in this target's URLs? */
export function queryTokensAllowed(t: Target): boolean {
  return t.tls || t.loopback;
}
