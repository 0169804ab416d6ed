"""`EventStream` and `AsyncEventStream`: the typed events of an event-stream operation (decision PY19). They
iterate, `close()`, work as (async) context managers, end cleanly on the final event or a 204, reconnect with
`Last-Event-ID` when a connection drops or stays silent longer than the idle timeout, and share their logic
(`_sse.StreamSession`)."""

from __future__ import annotations

import asyncio
import http.client
from collections import deque
from typing import Any, AsyncIterator, Awaitable, Callable, Deque, Generic, Iterator, Optional, Protocol, TypeVar

from ._sse import StreamSession

T = TypeVar("T")


class _SyncConnection(Protocol):
    def chunks(self) -> Iterator[bytes]: ...

    def close(self) -> None: ...


class _AsyncConnection(Protocol):
    def chunks(self) -> AsyncIterator[bytes]: ...

    async def close(self) -> None: ...


_BROKEN = (OSError, http.client.HTTPException, EOFError, asyncio.TimeoutError)


class EventStream(Generic[T]):
    """An iterator of typed events; `with client.x.stream(...) as events:` closes the connection on leaving."""

    def __init__(self, session: StreamSession, open: Callable[[Optional[str]], Optional[_SyncConnection]], sleep: Callable[[float], None]) -> None:
        self._session = session
        self._open = open
        self._sleep = sleep
        self._connection: Optional[_SyncConnection] = None
        self._chunks: Optional[Iterator[bytes]] = None
        self._pending: Deque[Any] = deque()
        self._closed = False

    @property
    def last_event_id(self) -> Optional[str]:
        """The id of the last event received: pass it as `last_event_id=` to resume later."""
        return self._session.last_event_id

    def __iter__(self) -> "EventStream[T]":
        return self

    def __next__(self) -> T:
        while True:
            if self._pending:
                event: T = self._pending.popleft()
                return event
            if self._closed or self._session.finished:
                self.close()
                raise StopIteration
            if self._chunks is None:
                self._connection = self._open(self._session.last_event_id)
                self._chunks = self._connection.chunks() if self._connection is not None else None
                continue
            try:
                chunk = next(self._chunks)
            except StopIteration:
                self._dropped(None)
            except _BROKEN as e:
                self._dropped(e)
            else:
                self._feed(chunk)

    def _dropped(self, cause: Optional[BaseException]) -> None:
        self._disconnect()
        try:
            wait = self._session.dropped(cause)
        except BaseException:
            self._closed = True
            raise
        self._sleep(wait)

    def _disconnect(self) -> None:
        connection, self._connection, self._chunks = self._connection, None, None
        if connection is not None:
            connection.close()

    def _feed(self, chunk: bytes) -> None:
        try:
            self._pending.extend(self._session.feed(chunk))
        except BaseException:
            self.close()  # a stream that failed (data that is not JSON) is not read further: its connection goes
            raise

    def close(self) -> None:
        """Closes the connection; iterating further ends at once."""
        self._closed = True
        self._disconnect()

    def __enter__(self) -> "EventStream[T]":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncEventStream(Generic[T]):
    """The async twin of `EventStream`: `async for`, `await aclose()`, `async with`."""

    def __init__(self, session: StreamSession, open: Callable[[Optional[str]], Awaitable[Optional[_AsyncConnection]]], sleep: Callable[[float], Awaitable[None]]) -> None:
        self._session = session
        self._open = open
        self._sleep = sleep
        self._connection: Optional[_AsyncConnection] = None
        self._chunks: Optional[AsyncIterator[bytes]] = None
        self._pending: Deque[Any] = deque()
        self._closed = False

    @property
    def last_event_id(self) -> Optional[str]:
        return self._session.last_event_id

    def __aiter__(self) -> "AsyncEventStream[T]":
        return self

    async def __anext__(self) -> T:
        while True:
            if self._pending:
                event: T = self._pending.popleft()
                return event
            if self._closed or self._session.finished:
                await self.aclose()
                raise StopAsyncIteration
            if self._chunks is None:
                self._connection = await self._open(self._session.last_event_id)
                self._chunks = self._connection.chunks() if self._connection is not None else None
                continue
            try:
                chunk = await self._chunks.__anext__()
            except StopAsyncIteration:
                await self._dropped(None)
            except _BROKEN as e:
                await self._dropped(e)
            else:
                await self._feed(chunk)

    async def _dropped(self, cause: Optional[BaseException]) -> None:
        await self._disconnect()
        try:
            wait = self._session.dropped(cause)
        except BaseException:
            self._closed = True
            raise
        await self._sleep(wait)

    async def _disconnect(self) -> None:
        connection, self._connection, self._chunks = self._connection, None, None
        if connection is not None:
            await connection.close()

    async def _feed(self, chunk: bytes) -> None:
        try:
            self._pending.extend(self._session.feed(chunk))
        except BaseException:
            await self.aclose()
            raise

    async def aclose(self) -> None:
        """Closes the connection; iterating further ends at once."""
        self._closed = True
        await self._disconnect()

    async def __aenter__(self) -> "AsyncEventStream[T]":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
