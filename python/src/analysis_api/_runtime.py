"""What the generated operation table (`_operations.py`) is made of, and the base its methods call into."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any, Dict, Iterable, Iterator, Literal, Optional, Tuple, Union


BinaryBody = Union[bytes, bytearray, memoryview, IO[bytes], Iterable[bytes]]
"""A raw request body: bytes (sent with a length, retried like any body), or a binary file or an iterable of
byte chunks (streamed as they are read, with chunked transfer encoding, and never retried)."""


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


class OperationsBase:
    """What the generated methods call; implemented by `Client`."""

    def _call(self, op: Operation, args: Dict[str, Any], body: Any = None) -> Any:
        raise NotImplementedError

    def _paginate(self, op: Operation, args: Dict[str, Any]) -> Iterator[Any]:
        raise NotImplementedError

    def _events(self, op: Operation, args: Dict[str, Any]) -> Iterator[Any]:
        raise NotImplementedError

    def _token_url(self, op: Operation, args: Dict[str, Any]) -> str:
        raise NotImplementedError
