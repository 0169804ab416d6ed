"""The rate-limit headers every response under /v1, /aria and /ws carries, by the contract's names
(`x-rate-limit-policy.headers`, generated into `_constants.RATE_LIMIT_HEADERS`)."""

from __future__ import annotations

import email.utils
import math
import time

import re
from dataclasses import dataclass
from typing import Any, Iterable, Optional, Tuple, Union

from .._constants import RATE_LIMIT_HEADERS
from ._response import Headers, Response, header

_FIVE = ("limit", "remaining", "reset", "daily_limit", "daily_remaining")
_INTEGER = re.compile(r"^\s*\d+\s*$")


@dataclass(frozen=True)
class RateLimit:
    """The `X-RateLimit-*` headers of one response."""

    limit: int
    """Requests allowed in the current minute window, for this request's rate-limit category."""
    remaining: int
    """Requests remaining in the current minute window."""
    reset: int
    """UTC epoch seconds when the current minute window resets."""
    daily_limit: int
    """Requests allowed per UTC day for the workspace."""
    daily_remaining: int
    """Requests remaining today."""
    retry_after: Optional[int] = None
    """Seconds to wait, when the response carries `Retry-After` (a 429)."""


def retry_after_seconds(headers: Union[Headers, Iterable[Tuple[str, Any]]], now: Optional[float] = None) -> Optional[int]:
    """`Retry-After` in seconds: the contract's integer, or an HTTP date (RFC 9110, what a proxy in front may send),
    counted from `now` (epoch seconds, default the clock) and never below 0; None when absent or neither."""
    value = header(headers, RATE_LIMIT_HEADERS["retry_after"])
    if value is None:
        return None
    if _INTEGER.match(value):
        return int(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None  # RFC 9110 dates are GMT; a date without a zone is not one
    return max(0, math.ceil(when.timestamp() - (time.time() if now is None else now)))


def read_rate_limit(source: Union[Response, Headers, Iterable[Tuple[str, Any]]]) -> Optional[RateLimit]:
    """Reads the five `X-RateLimit-*` headers (and `Retry-After` when present) of a response or its headers.

    None when the response carries none of them (e.g. the gateway's `/health`). Raises `ValueError` naming the
    header when only some are there or one is not a non-negative integer, which the contract does not allow.
    """
    headers = source.lower_headers if isinstance(source, Response) else source
    found = {}
    for key in _FIVE:
        name = RATE_LIMIT_HEADERS[key]
        value = header(headers, name)
        if value is None:
            continue
        if not _INTEGER.match(value):
            raise ValueError(f'{name} header is not a non-negative integer: "{value[:40]}"')
        found[key] = int(value)
    if not found:
        return None
    missing = [RATE_LIMIT_HEADERS[k] for k in _FIVE if k not in found]
    if missing:
        raise ValueError(f"rate-limit headers missing: {', '.join(missing)}")
    return RateLimit(
        limit=found["limit"],
        remaining=found["remaining"],
        reset=found["reset"],
        daily_limit=found["daily_limit"],
        daily_remaining=found["daily_remaining"],
        retry_after=retry_after_seconds(headers),
    )


_FIRST = RATE_LIMIT_HEADERS["limit"].lower()


def rate_limit_of(response: Response) -> Optional[RateLimit]:
    """The rate limit of a response for the client's hook: None when the headers are absent or malformed (a header
    glitch must not fail a call whose answer is otherwise fine, e.g. a POST that created something)."""
    if _FIRST not in response.lower_headers:
        return None  # the common case of a response without them, decided with one lookup
    try:
        return read_rate_limit(response)
    except ValueError:
        return None
