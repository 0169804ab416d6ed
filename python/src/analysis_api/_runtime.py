"""What the generated operation table and resources (`_operations.py`) are made of, and the bases their methods
call into (implemented by `Client` and `AsyncClient`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath
from typing import IO, TYPE_CHECKING, Any, AsyncIterator, Dict, Iterable, Iterator, Literal, Mapping, NamedTuple, Optional, Tuple, Union

from ._transport_types import Retry, Timeout

if TYPE_CHECKING:
    from ._pages import AsyncPage, SyncPage
    from ._raw import RawResponse
    from ._streams import AsyncEventStream, EventStream

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
    path_params: Tuple[Param, ...] = field(default=(), init=False, repr=False, compare=False)
    """The parameters by location, split once when the operation is made (the hot path of every call reads them)."""
    query_params: Tuple[Param, ...] = field(default=(), init=False, repr=False, compare=False)
    header_params: Tuple[Param, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for location in ("path", "query", "header"):
            object.__setattr__(self, f"{location}_params", tuple(p for p in self.params if p.location == location))


class SyncCaller:
    """What the generated sync resources call; implemented by `Client`."""

    def _call(self, op: Operation, args: Dict[str, Any], body: Any, options: RequestOptions) -> Any:
        raise NotImplementedError

    def _call_raw(self, op: Operation, args: Dict[str, Any], body: Any, options: RequestOptions) -> "RawResponse[Any]":
        raise NotImplementedError

    def _page(self, op: Operation, args: Dict[str, Any], options: RequestOptions) -> "SyncPage[Any]":
        raise NotImplementedError

    def _paginate(self, op: Operation, args: Dict[str, Any], options: RequestOptions) -> Iterator[Any]:
        raise NotImplementedError

    def _events(self, op: Operation, args: Dict[str, Any], options: RequestOptions) -> "EventStream[Any]":
        raise NotImplementedError

    def _token_url(self, op: Operation, args: Dict[str, Any]) -> str:
        raise NotImplementedError


class AsyncCaller:
    """What the generated async resources call; implemented by `AsyncClient`."""

    async def _call(self, op: Operation, args: Dict[str, Any], body: Any, options: RequestOptions) -> Any:
        raise NotImplementedError

    async def _call_raw(self, op: Operation, args: Dict[str, Any], body: Any, options: RequestOptions) -> "RawResponse[Any]":
        raise NotImplementedError

    async def _page(self, op: Operation, args: Dict[str, Any], options: RequestOptions) -> "AsyncPage[Any]":
        raise NotImplementedError

    def _paginate(self, op: Operation, args: Dict[str, Any], options: RequestOptions) -> AsyncIterator[Any]:
        raise NotImplementedError

    def _events(self, op: Operation, args: Dict[str, Any], options: RequestOptions) -> "AsyncEventStream[Any]":
        raise NotImplementedError

    def _token_url(self, op: Operation, args: Dict[str, Any]) -> str:
        raise NotImplementedError


class SyncResource:
    def __init__(self, client: SyncCaller) -> None:
        self._client = client


class AsyncResource:
    def __init__(self, client: AsyncCaller) -> None:
        self._client = client
