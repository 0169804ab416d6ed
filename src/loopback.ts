// Is an address on this machine only? Shared by the verifier (may a key travel in clear to it?) and the mock
// (does it listen beyond loopback?). Addresses are compared, not spellings: 127.0.0.0/8 also matches its
// IPv4-mapped IPv6 forms (`::ffff:127.0.0.1`, `::ffff:7f00:1`, as the URL parser writes it), and `::1` its long
// form (issue 22: `verify` took `http://[::ffff:7f00:1]` for a remote host). No node:net (the mock's core runs in a
// browser too): an IPv6 address is brought to its one canonical spelling by the WHATWG URL parser, which every
// runtime has; an IPv4 address must be four decimal parts, as node's net.isIP requires.
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
/** ::1, and ::ffff:127.x.y.z in the URL parser's spelling (`::ffff:7fxx:yyyy`). */
const IPV6_LOOPBACK = /^\[(?:::1|::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4})\]$/;

/** `localhost` (and names under it), 127.0.0.0/8 and `::1` in any spelling, brackets allowed; never a DNS lookup. */
export function isLoopbackAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  const v4 = IPV4.exec(h);
  if (v4) return v4.slice(1).every((p) => Number(p) <= 255 && !/^0\d/.test(p)) && v4[1] === "127";
  if (!h.includes(":") || !/^[0-9a-f:.]+$/.test(h)) return false;
  try {
    return IPV6_LOOPBACK.test(new URL(`http://[${h}]/`).host);
  } catch {
    return false;
  }
}
