"""The async `AsyncClient`: the same resources as `Client`, awaited, on asyncio streams (decision PY15)."""

from __future__ import annotations

import asyncio
import time
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, Mapping, Optional, Union, cast

from ._transports._async_transport import AsyncStreamedResponse, AsyncTransport
from ._client import BaseClient
from ._transports._injected import AsyncBufferedStream, AsyncInjectedTransport
from ._transports._injected import AsyncTransport as InjectedAsyncTransport
from ._calls._core import error_of, model_of, observe, prepare, result_of, token_url, with_stream_options
from ._operations import AsyncClientWithRawResponse, AsyncClientWithStreamingResponse, AsyncResources
from ._results._pages import AsyncPage, AsyncPaginator
from ._results._raw import RawResponse
from ._results._streaming import AsyncStreamingResponse
from ._http._response import Response
from ._runtime import AsyncCaller
from ._results._streams import AsyncEventStream
from ._calls._types import NOT_GIVEN, Operation, RequestOptions, RetryOption, TimeoutOption


class AsyncClient(BaseClient, AsyncResources, AsyncCaller):
    """The asyncio client: `async with AsyncClient(base_url=..., api_key=...) as client:` then
    `await client.analyses.get(...)`, `async for a in client.analyses.iter()`, `async with client.streaming.stream_analysis_events(...) as events`.
    Settings as `Client`'s (`BaseClient`); retries wait with `asyncio.sleep`."""

    def _setup(self) -> None:
        self._transport: Union[AsyncTransport, AsyncInjectedTransport]
        if self._injected is not None:
            self._transport = AsyncInjectedTransport(cast(InjectedAsyncTransport, self._injected), sleep=self._async_sleep(), authenticate=self._config.credentials.authenticate,
                                                     on_response=lambda r: observe(self._config, r), clock=self._config.clock,
                                                     on_request=self._request_hooks)
        else:
            self._transport = AsyncTransport(
                authenticate=self._config.credentials.authenticate,
                on_response=lambda r: observe(self._config, r),
                clock=self._config.clock,
                sleep=self._async_sleep(),
                ssl_context=self._ssl_context,
                proxy=self._proxy,
                max_connections=self._max_connections,
                on_request=self._request_hooks,
            )
        self._bind_resources(self)

    def _async_sleep(self) -> Callable[[float], Awaitable[None]]:
        """`asyncio.sleep`, unless a `sleep=` was given (a test's fake clock), which is then called as it is."""
        sleep = self._config.clock.sleep
        if sleep is time.sleep:
            return asyncio.sleep

        async def given(seconds: float) -> None:
            sleep(seconds)

        return given

    async def aclose(self) -> None:
        """Closes the pooled connections."""
        await self._transport.aclose()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def with_options(
        self, *, timeout: TimeoutOption = NOT_GIVEN, retry: RetryOption = NOT_GIVEN, headers: Optional[Mapping[str, str]] = None,
        max_retries: Optional[int] = None, default_headers: Optional[Mapping[str, str]] = None,
    ) -> "AsyncClient":
        """A copy with another timeout, retry policy or extra headers; it shares the connection pool.
        `max_retries=` and `default_headers=` are openai-python's spellings of `retry=` and `headers=`."""
        clone = self._with_config(timeout, retry, headers, max_retries, default_headers)
        clone._bind_resources(clone)
        return clone

    copy = with_options
    """openai-python's name of `with_options`."""

    @property
    def with_raw_response(self) -> AsyncClientWithRawResponse:
        """The same resources, whose calls return a `RawResponse` (status, headers, `parse()`)."""
        return AsyncClientWithRawResponse(self)

    @property
    def with_streaming_response(self) -> AsyncClientWithStreamingResponse:
        """The same resources, whose calls return an `AsyncStreamingResponse` to use in `async with`: sent when the
        block starts, the body read as it arrives (`aiter_bytes()`, `aiter_lines()`, `await read()`, `await
        parse()`), closed when it ends."""
        return AsyncClientWithStreamingResponse(self)

    async def _send(self, op: Operation, args: Dict[str, Any], body: Any, options: RequestOptions) -> Response:
        response = await self._transport.send(prepare(self._config, op, args, body, options))
        assert isinstance(response, Response)
        return response

    async def _call(self, op: Operation, args: Dict[str, Any], body: Any, options: RequestOptions) -> Any:
        value = result_of(await self._send(op, args, body, options))
        return value if op.paginated else model_of(op, value)  # a page wraps its own items

    async def _call_raw(self, op: Operation, args: Dict[str, Any], body: Any, options: RequestOptions) -> RawResponse[Any]:
        response = await self._send(op, args, body, options)
        value = model_of(op, result_of(response))
        return RawResponse(response, lambda _: value)

    def _call_streaming(self, op: Operation, args: Dict[str, Any], body: Any, options: RequestOptions) -> AsyncStreamingResponse[Any]:
        request = prepare(self._config, op, args, body, options)  # a bad argument raises here, not in the block
        read_timeout = request.timeout.read if request.timeout is not None else None

        async def open_body() -> Union[AsyncStreamedResponse, AsyncBufferedStream]:
            answer = await self._transport.send(request, stream=True, stream_idle_timeout=read_timeout)
            if isinstance(answer, Response):
                raise error_of(answer)  # a status other than 2xx, its body read
            return answer

        return AsyncStreamingResponse(open_body, lambda response: model_of(op, result_of(response)), read_timeout)

    async def _page(self, op: Operation, args: Dict[str, Any], options: RequestOptions) -> AsyncPage[Any]:
        cursor: Optional[str] = args.get("cursor")
        return AsyncPage(op, await self._call(op, args, None, options), cursor, lambda following: self._page(op, {**args, "cursor": following}, options))

    def _pager(self, op: Operation, args: Dict[str, Any], options: RequestOptions) -> AsyncPaginator[Any]:
        return AsyncPaginator(lambda: self._page(op, args, options))

    async def _paginate(self, op: Operation, args: Dict[str, Any], options: RequestOptions) -> AsyncIterator[Any]:
        async for item in await self._page(op, args, options):
            yield item

    def _events(self, op: Operation, args: Dict[str, Any], options: RequestOptions) -> AsyncEventStream[Any]:
        session = self._stream_session(op, args)

        async def open_stream(last_event_id: Optional[str]) -> Union[AsyncStreamedResponse, AsyncBufferedStream, None]:
            request = prepare(self._config, op, args, None, with_stream_options(options, last_event_id), accept="text/event-stream")
            response = await self._transport.send(request, stream=True, stream_idle_timeout=self._config.stream_idle_timeout)
            if isinstance(response, Response):
                raise error_of(response)
            try:
                opened = session.opened(response.response.status, response.response.content_type)
            except BaseException:
                await response.close()  # not an event stream: its connection is not kept
                raise
            if not opened:
                await response.close()
                return None
            return response

        return AsyncEventStream(session, open_stream, self._async_sleep())

    def _token_url(self, op: Operation, args: Dict[str, Any]) -> str:
        return token_url(self._config, op, args)
