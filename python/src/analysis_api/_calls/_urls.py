"""URLs: the request URL of an operation, and the rule for tokens in URLs.

Interface specification, rule 7: a token in a query parameter is a secret, so it only goes into a URL sent over
TLS (https:, wss:), or to a loopback host (127.0.0.0/8, ::1, localhost) for local work.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any, Dict, List, Mapping, Optional, Tuple
from urllib.parse import SplitResult, quote, urlencode, urlsplit, urlunsplit

from ._errors import InsecureTransportError
from .._constants import TOKEN_QUERY_PARAM
from ._types import Operation

_TLS = ("https", "wss")
_PLAIN = ("http", "ws")


def is_loopback_host(host: str) -> bool:
    """Is a URL's host name (IPv6 with or without brackets) a loopback host?"""
    h = host.lower().strip("[]").rstrip(".")
    if h == "localhost":
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False


def check_base_url(base_url: str) -> str:
    """The service root without a trailing slash; raises `ValueError` unless it is an http(s) URL with a host."""
    if not isinstance(base_url, str):
        raise TypeError("base_url must be a string, e.g. https://api.example.com")
    parts = urlsplit(base_url)
    if parts.username is not None or parts.password is not None:
        # Refused, not sent: the service takes an API key or a token, never Basic credentials (issue 34: they were
        # dropped silently and shown in the client's repr). The message never repeats them.
        where = f"{parts.scheme}://{parts.hostname}"
        raise ValueError(f"base_url must not carry credentials (user:password@ in {where}...): pass api_key= or token=")
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise ValueError(f"base_url must be an http(s) URL without query or fragment, e.g. https://api.example.com (got {base_url!r})")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"base_url has an invalid port (0-65535): {base_url!r}") from None
    if port == 0:
        raise ValueError(f"base_url has port 0 (a server listens on 0 to get any free port; connect to the port it got): {base_url!r}")
    return base_url.rstrip("/")


def assert_token_safe(url: SplitResult) -> None:
    """Raises `InsecureTransportError` unless a token may be put into this URL. The message names the origin only."""
    if url.scheme in _TLS:
        return
    if url.scheme in _PLAIN and is_loopback_host(url.hostname or ""):
        return
    raise InsecureTransportError(
        f"refusing to put a token into {url.scheme}://{url.netloc}{url.path}: tokens in URLs are sent over TLS only "
        "(https:/wss:), or to a loopback host"
    )


def with_token(url: str, token: str, websocket: bool) -> str:
    """Adds the `token` query parameter after checking the rule; `websocket` turns http(s) into ws(s) first."""
    parts = urlsplit(url)
    if websocket:
        parts = parts._replace(scheme={"https": "wss", "http": "ws"}.get(parts.scheme, parts.scheme))
    assert_token_safe(parts)
    query = urlencode([(TOKEN_QUERY_PARAM, token)])
    return urlunsplit(parts._replace(query=f"{parts.query}&{query}" if parts.query else query))


_UNRESERVED = re.compile(r"[A-Za-z0-9_.~-]+")
"""What `quote` leaves as it is: most ids, which then skip it."""


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def operation_url(base_url: str, op: Operation, args: Dict[str, Any], extra_query: Optional[Mapping[str, Any]] = None) -> str:
    """The URL of an operation: path parameters percent-encoded into the template, query parameters serialized
    as the contract says (`form`: a list repeats the name per item, or is joined with commas with `explode: false`).
    """
    path = op.path
    for p in op.path_params:
        value = args.get(p.arg)
        if value is None:
            raise TypeError(f"{op.operation_id}: path parameter {p.arg} is required")
        text = value if type(value) is str else _scalar(value)
        if not text or text.isspace():
            # Sent, `GET /v1/analyses/` would be another operation (or a 404 that hides the bug).
            raise ValueError(f"{op.operation_id}: path parameter {p.arg} is empty; expected an id")
        path = path.replace("{" + p.name + "}", text if _UNRESERVED.fullmatch(text) else quote(text, safe=""))
    if not op.query_params and not extra_query:
        return base_url + path
    query: List[Tuple[str, str]] = []
    for p in op.query_params:
        value = args.get(p.arg)
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            items = [_scalar(v) for v in value]
            query.extend([(p.name, v) for v in items] if p.explode else [(p.name, ",".join(items))])
        else:
            query.append((p.name, _scalar(value)))
    for name, extra in (extra_query or {}).items():
        query = [q for q in query if q[0] != name]
        query.extend((name, _scalar(v)) for v in (extra if isinstance(extra, (list, tuple)) else [extra]))
    return base_url + path + (f"?{_encoded(query)}" if query else "")


def _encoded(query: List[Tuple[str, str]]) -> str:
    """`urlencode(query)`, with the names and values it would leave as they are (limits, statuses, most cursors)
    joined without it: the same string, several times faster on the hot path of every page."""
    if all(_UNRESERVED.fullmatch(k) and _UNRESERVED.fullmatch(v) for k, v in query):
        return "&".join([f"{k}={v}" for k, v in query])
    return urlencode(query)


def header_params(op: Operation, args: Dict[str, Any]) -> Dict[str, str]:
    return {p.name: _scalar(args[p.arg]) for p in op.header_params if args.get(p.arg) is not None}
