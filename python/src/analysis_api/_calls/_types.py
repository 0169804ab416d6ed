"""The types every layer shares: an operation of the contract as the client needs it (`Operation`, `Param`) and
the options of one call (`RequestOptions`, `NOT_GIVEN`, `BinaryBody`, ...).

Below everything that uses them: it imports only `_http/_transport_types.py` (the retry and timeout policies), so
the core (`_core.py`), `_urls.py`, `_results/_pages.py` and the callers in `_runtime.py` all import it without an
import circle (scripts/checks/check-python-circles.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath
from typing import IO, Any, Callable, Iterable, Literal, Mapping, NamedTuple, Optional, Tuple, Union

from .._http._transport_types import Retry, Timeout

BinaryBody = Union[bytes, bytearray, memoryview, IO[bytes], PurePath, Iterable[bytes]]
"""A raw request body: bytes, a binary file or a `pathlib.Path` (sent with their length, retried like any body),
or an iterable of byte chunks (streamed with chunked transfer encoding, and never retried)."""

Headers = Optional[Mapping[str, str]]
"""Extra headers of one call."""
Query = Optional[Mapping[str, Any]]
"""Extra query parameters of one call."""
Body = Optional[Mapping[str, Any]]
"""Extra fields of one call's object body (`extra_body=`)."""


class NotGiven:
    """The default of an option left unset (None has a meaning of its own for some options)."""

    def __repr__(self) -> str:
        return "NOT_GIVEN"

    def __bool__(self) -> bool:
        return False


NOT_GIVEN = NotGiven()

TimeoutOption = Union[Timeout, float, None, NotGiven]
RetryOption = Union[Retry, bool, NotGiven]


class RequestOptions(NamedTuple):
    """Per-call options; every generated method takes them as keyword arguments. A named tuple: made on every
    call, and a frozen dataclass costs several times more to make."""

    timeout: TimeoutOption = NOT_GIVEN
    retry: RetryOption = NOT_GIVEN
    extra_headers: Optional[Mapping[str, str]] = None
    extra_query: Optional[Mapping[str, str]] = None
    idempotency_key: Optional[str] = None
    extra_body: Optional[Mapping[str, Any]] = None


@dataclass(frozen=True)
class Param:
    """One parameter of an operation: its name on the wire and as a Python argument."""

    name: str
    arg: str
    location: Literal["path", "query", "header"]
    required: bool
    explode: bool = True
    """For a list in the query: repeat the parameter per item (`form`, `explode: true`), else join with commas."""


@dataclass(frozen=True)
class Operation:
    """One operation of the contract, as the client needs it."""

    operation_id: str
    method: str
    path: str
    params: Tuple[Param, ...] = ()
    body: Optional[str] = None
    """The request body's media type, when the operation takes one."""
    kind: Literal["call", "events", "websocket"] = "call"
    answers: Tuple[str, ...] = ()
    """What its successful answers carry: `json`, `text`, `none`."""
    events: Tuple[str, ...] = ()
    """For an event stream: the event kinds the contract types (others are skipped)."""
    paginated: bool = False
    token_query: bool = False
    """Whether it accepts the credentials in the `token` query parameter (WebSocket and SSE operations)."""
    files: Tuple[str, ...] = ()
    """The fields of a multipart body the contract types as files (`format: binary`)."""
    convert: Optional[Callable[[Any], Any]] = None
    """Wraps a JSON answer in its model (`models.py`, decision PY30); a page takes its items from it."""
    convert_event: Optional[Callable[[Any], Any]] = None
    """Wraps an event of a stream in its model."""
    path_params: Tuple[Param, ...] = field(default=(), init=False, repr=False, compare=False)
    """The parameters by location, split once when the operation is made (the hot path of every call reads them)."""
    query_params: Tuple[Param, ...] = field(default=(), init=False, repr=False, compare=False)
    header_params: Tuple[Param, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for location in ("path", "query", "header"):
            object.__setattr__(self, f"{location}_params", tuple(p for p in self.params if p.location == location))
