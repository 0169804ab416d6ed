// Is an address on this machine only? Shared by the verifier (may a key travel in clear to it?) and the mock
// (does it listen beyond loopback?). node's BlockList compares addresses, not spellings: 127.0.0.0/8 also matches
// its IPv4-mapped IPv6 forms (`::ffff:127.0.0.1`, `::ffff:7f00:1`, as the URL parser writes it), and `::1` its long
// form (issue 22: `verify` took `http://[::ffff:7f00:1]` for a remote host).
import net from "node:net";

const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** `localhost` (and names under it), 127.0.0.0/8 and `::1` in any spelling, brackets allowed; never a DNS lookup. */
export function isLoopbackAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  const family = net.isIP(h);
  return family !== 0 && LOOPBACK.check(h, family === 4 ? "ipv4" : "ipv6");
}
