"""The bases the generated resources (`_operations.py`) are built on and call into (implemented by `Client` and
`AsyncClient`).

The types of operations and call options live in `_calls/_types.py`, below the core and the pages; `_operations.py` imports
them from there (scripts/lib/python/resources.ts writes that import), and only the callers and resources from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, AsyncIterator, Dict, Iterator

from ._calls._types import Operation, RequestOptions

if TYPE_CHECKING:
    from ._results._pages import AsyncPage, AsyncPaginator, SyncPage
    from ._results._raw import RawResponse
    from ._results._streaming import AsyncStreamingResponse, StreamingResponse
    from ._results._streams import AsyncEventStream, EventStream


class SyncCaller:
    """What the generated sync resources call; implemented by `Client`."""

    def _call(self, op: Operation, args: Dict[str, Any], body: Any, options: RequestOptions) -> Any:
        raise NotImplementedError

    def _call_raw(self, op: Operation, args: Dict[str, Any], body: Any, options: RequestOptions) -> "RawResponse[Any]":
        raise NotImplementedError

    def _call_streaming(self, op: Operation, args: Dict[str, Any], body: Any, options: RequestOptions) -> "StreamingResponse[Any]":
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

    def _call_streaming(self, op: Operation, args: Dict[str, Any], body: Any, options: RequestOptions) -> "AsyncStreamingResponse[Any]":
        raise NotImplementedError

    async def _page(self, op: Operation, args: Dict[str, Any], options: RequestOptions) -> "AsyncPage[Any]":
        raise NotImplementedError

    def _pager(self, op: Operation, args: Dict[str, Any], options: RequestOptions) -> "AsyncPaginator[Any]":
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
