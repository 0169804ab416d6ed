"""The bytes of a request head, written the same way by the sync and async transports (issue 34).

Written here rather than through `http.client.HTTPConnection.request`: `putrequest`/`putheader` re-check and
re-encode every header line on every call (about 15-20 µs of a ~60 µs call budget, npm run bench's Python row),
and the async transport has no `http.client` connection to write through anyway. The checks are the same as
`http.client`'s: a header name is a token, a value holds no CR or LF (no header injection), the request target no
space or control character; anything else raises `ValueError` naming the header, before a byte is sent.
The response head's fields are read here too (`response_fields`, decision PY33); the rest of the response is
`http.client`'s (`HTTPResponse`).
"""

from __future__ import annotations

import email.parser
import http.client
import re
from typing import IO, Dict, List, Mapping, Optional, Set, Tuple, cast

Origin = Tuple[str, str, Optional[int]]
"""(scheme, host, port): where a request goes, the connection pool's key."""

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
"""A header name (RFC 9110 `token`)."""
_BAD_TARGET = re.compile(r"[^\x21-\x7e]")
"""What a request target may not hold: spaces, control and non-ASCII characters (http.client refuses them too)."""
_FRAMING = frozenset({"host", "content-length", "transfer-encoding"})
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_IDENTITY = "Accept-Encoding: identity\r\n"
"""What `http.client` asks for when the caller names no encoding."""
_known_names: Set[str] = set()
"""Header names already checked: a handful per client, so each is matched once."""
_hosts: Dict[Origin, str] = {}


def host_header(origin: Origin) -> str:
    """The `Host` value of an origin, as `http.client` writes it: IPv6 in brackets, IDNA-encoded, the port only
    when it is not the scheme's default. Made once per origin."""
    known = _hosts.get(origin)
    if known is None:
        scheme, host, port = origin
        name = f"[{host}]" if ":" in host else host.encode("idna").decode("ascii")
        known = _hosts[origin] = name if port is None or port == _DEFAULT_PORTS.get(scheme) else f"{name}:{port}"
    return known


def _checked_line(name: str, value: object) -> str:
    if name not in _known_names:
        if not isinstance(name, str) or not _TOKEN.fullmatch(name):
            raise ValueError(f"invalid header name {name!r}: a name is letters, digits and !#$%&'*+-.^_`|~ only")
        if len(_known_names) < 512:
            _known_names.add(name)
    if type(value) is str:
        text = value
    elif isinstance(value, (str, int)) and not isinstance(value, bool):
        text = str(value)
    else:
        raise TypeError(f"header {name}: a value is a string, not {type(value).__name__}")
    if "\r" in text or "\n" in text:
        raise ValueError(f"header {name}: a value may not hold a line break (CR or LF)")
    return f"{name}: {text}\r\n"


def _header_lines(headers: Mapping[str, str]) -> Tuple[str, Optional[str], bool]:
    """The checked header lines (framing headers left out), the caller's `Host` if any, and whether it names an
    `Accept-Encoding`."""
    host: Optional[str] = None
    encoding = False
    lines = []
    for name, value in headers.items():
        lower = name.lower()
        if lower in _FRAMING:
            if lower == "host":
                host = str(value)
            continue  # the body's framing is the client's to write, from the body itself
        if lower == "accept-encoding":
            encoding = True
        lines.append(_checked_line(name, value))
    return "".join(lines), host, encoding


_blocks: Dict[Tuple[Tuple[str, str], ...], Tuple[str, Optional[str], bool]] = {}
"""Checked header lines by the headers they were made from: a client sends the same few sets over and over (its
defaults and credentials), so most calls look theirs up instead of checking each line again."""


def request_head(method: str, target: str, origin: Origin, headers: Mapping[str, str], length: Optional[int], has_body: bool) -> bytes:
    """The request line and headers, ending with the blank line. `length`: the body's length (a
    `Content-Length`), None with `has_body` for a body sent with chunked transfer coding."""
    if _BAD_TARGET.search(target):
        raise ValueError(f"the request target {target[:80]!r} holds a space, a control or a non-ASCII character")
    key = tuple(headers.items())
    try:
        known = _blocks.get(key)
    except TypeError:  # a value that is not a string (and not hashable): checked, and refused, below
        key, known = (), None
    if known is None:
        known = _header_lines(headers)
        if len(_blocks) >= 64:
            _blocks.clear()  # a write's own Idempotency-Key makes its set new each time: keep the table small
        if key:
            _blocks[key] = known
    lines, host, encoding = known
    framing = ""
    if has_body:
        framing = f"Content-Length: {length}\r\n" if length is not None else "Transfer-Encoding: chunked\r\n"
    elif method in _BODY_METHODS:
        framing = "Content-Length: 0\r\n"
    head = (
        f"{method} {target} HTTP/1.1\r\n{_checked_line('Host', host) if host is not None else _host_line(origin)}"
        f"{lines}{'' if encoding else _IDENTITY}{framing}\r\n"
    )
    try:
        return head.encode("latin-1")
    except UnicodeEncodeError as e:
        raise ValueError(f"a header value holds a character that is not Latin-1 (at {head[max(0, e.start - 30):e.start + 1]!r})") from None


def _host_line(origin: Origin) -> str:
    return f"Host: {host_header(origin)}\r\n"


_HEAD_ENDS = frozenset({b"\r\n", b"\n", b""})


def response_fields(fp: IO[bytes]) -> http.client.HTTPMessage:
    """The fields of a response head read off `fp` up to its blank line: what `http.client.parse_headers` returns,
    without its email parser, which cost about as much as the rest of a call's Python (npm run bench, Python
    row). Lines of the plain `name: value` form (a token name) are taken as the email parser would take them
    (compat32: the value without its leading blanks and its line end); a head with any other line (a folded
    value, a name that is not a token, a line that is not a field) goes to the email parser whole, so odd heads
    read exactly as before. The lines are read by `http.client._read_headers` (private; the same in 3.9-3.13),
    with its limits (64 KiB a line, 100 lines)."""
    lines: List[bytes] = http.client._read_headers(fp)  # type: ignore[attr-defined]
    message = http.client.HTTPMessage()
    fields = message._headers  # type: ignore[attr-defined]
    for raw in lines:
        if raw in _HEAD_ENDS:
            break  # the blank line (or the end of the stream) `_read_headers` keeps last
        name, colon, value = raw.decode("iso-8859-1").partition(":")
        if not colon or not _TOKEN.fullmatch(name):
            parsed = email.parser.Parser(_class=http.client.HTTPMessage).parsestr(b"".join(lines).decode("iso-8859-1"))
            return cast(http.client.HTTPMessage, parsed)
        fields.append((name, value.lstrip(" \t").rstrip("\r\n")))
    return message
