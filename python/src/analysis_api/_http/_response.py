"""A response as the client received it: status, headers and (once read) the body."""

from __future__ import annotations

import json
from email.message import Message
from typing import Any, Dict, Iterable, Mapping, Optional, Tuple, Union

from .._constants import REQUEST_ID_HEADER

_REQUEST_ID = REQUEST_ID_HEADER.lower()

Headers = Union[Message, Mapping[str, str]]
"""Response headers: the `http.client` message (case-insensitive), or any mapping of names to values."""


def header(headers: Union[Headers, Iterable[Tuple[str, Any]], None], name: str) -> Optional[str]:
    """The value of a header, its name in any letter case; None when absent."""
    if headers is None:
        return None
    if isinstance(headers, _Lower):
        return headers.get(name.lower())
    if isinstance(headers, Message):
        value = headers.get(name)
        return None if value is None else str(value)
    items = headers.items() if isinstance(headers, Mapping) else headers
    lower = name.lower()
    for key, value in items:
        if key.lower() == lower:
            if isinstance(value, (list, tuple)):
                return str(value[0]) if len(value) == 1 else None
            return None if value is None else str(value)
    return None


class _Lower(Dict[str, str]):
    """Headers by lower-case name, made once per response: each lookup is then a dict access, not a scan."""


class Response:
    """One HTTP response. `content` is empty until the body has been read (and for event streams)."""

    def __init__(self, method: str, path: str, status: int, reason: str, headers: Message, content: bytes = b"") -> None:
        self.method = method
        """The request's method."""
        self.path = path
        """The request's path, without the query string (which may hold a token)."""
        self.status = status
        self.reason = reason
        self.headers = headers
        self.content = content
        self.decoded = False
        self.elapsed: float = 0.0
        """Seconds the call took until this answer was read: every attempt and wait before it included."""
        self.retries_taken: int = 0
        """Attempts before the one that gave this answer."""
        self._lower: Optional[_Lower] = None
        """Whether `content` had its `Content-Encoding` undone already."""

    @property
    def lower_headers(self) -> Mapping[str, str]:
        """The headers by lower-case name (the first of repeated ones)."""
        if self._lower is None:
            lower = _Lower()
            # `Message._headers` holds the raw (name, value) pairs: `items()` would run the email policy over each
            # one, which costs more than the rest of a call's header handling (npm run bench, Python row).
            pairs = getattr(self.headers, "_headers", None)
            for k, v in pairs if isinstance(pairs, list) else self.headers.items():
                lower.setdefault(k.lower(), str(v))
            self._lower = lower
        return self._lower

    @property
    def request_id(self) -> Optional[str]:
        """The answer's `X-Request-Id` (None when it carried none)."""
        return self.lower_headers.get(_REQUEST_ID)

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def content_type(self) -> str:
        return self.lower_headers.get("content-type") or ""

    def text(self) -> str:
        charset = self.headers.get_content_charset() or "utf-8"
        return self.content.decode(charset, errors="replace")

    def json(self) -> Any:
        """The body parsed as JSON; None for an empty body."""
        return json.loads(self.content) if self.content.strip() else None

    def __repr__(self) -> str:
        return f"<Response {self.status} {self.method} {self.path}>"
