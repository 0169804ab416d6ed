"""Pages of a list (issue 34): what `client.<resource>.list(...)` returns.

A page holds one answer `{data, next_cursor, has_more}` and knows how to fetch the next one with the same
arguments. Iterating a page yields its items and then those of every following page, fetched only when the loop
gets there (`for` on `SyncPage`, `async for` on `AsyncPage`); `iter_pages()` yields the pages themselves. On
`AsyncClient`, `list()` answers an `AsyncPaginator`: awaited, the first page; `async for`, every item.

`page["data"]` (the 1.2 dict) still works for this release with a `DeprecationWarning`; `to_dict()` is the answer
as it came, unknown fields included.
"""

from __future__ import annotations

import warnings
from itertools import chain
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, Generator, Generic, Iterator, List, Optional, TypeVar

from .._calls._core import check_page
from .._calls._types import Operation

T = TypeVar("T")

_DEPRECATED = "indexing a page (page[{key!r}]) is deprecated and goes in the next release: use page.{attr}, or page.to_dict()"


class BasePage(Generic[T]):
    """What sync and async pages share: the answer and its cursor, checked once (a `ProtocolError` for an answer
    that is not a page, or that says `has_more` without a new cursor)."""

    def __init__(self, op: Operation, body: Any, cursor: Optional[str]) -> None:
        items, following = check_page(op, body, cursor)
        self._body: Dict[str, Any] = body
        self._following = following
        # The answer's model (`<Things>List`) wraps the items once, here; the page keeps the answer as it came.
        self.data: List[T] = items if op.convert is None else op.convert(body).data
        """The items of this page only."""

    @property
    def has_more(self) -> bool:
        """The answer's `has_more`: a page follows this one."""
        return self._following is not None

    @property
    def next_cursor(self) -> Optional[str]:
        """The cursor of the next page (None on the last page)."""
        return self._following

    def has_next_page(self) -> bool:
        return self._following is not None

    def to_dict(self) -> Dict[str, Any]:
        """The answer as it came (`data`, `next_cursor`, `has_more` and any other field)."""
        return dict(self._body)

    def __getitem__(self, key: str) -> Any:
        warnings.warn(_DEPRECATED.format(key=key, attr=key if key in ("data", "has_more", "next_cursor") else "to_dict()[...]"), DeprecationWarning, stacklevel=2)
        return self._body[key]

    def get(self, key: str, default: Any = None) -> Any:
        """Deprecated like `page[key]`."""
        warnings.warn(_DEPRECATED.format(key=key, attr=key), DeprecationWarning, stacklevel=2)
        return self._body.get(key, default)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, BasePage):
            return self._body == other._body
        return isinstance(other, dict) and self._body == other

    def __hash__(self) -> int:
        raise TypeError(f"unhashable type: {type(self).__name__!r}")  # it compares equal to a dict

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {len(self.data)} items, has_more={self.has_more}>"

    def __getstate__(self) -> Dict[str, Any]:
        # Pickled with its answer and cursor, not the client that fetches (its sockets and locks do not pickle,
        # issue 49): an unpickled page reads as it was, and `get_next_page()` says to list again from the cursor.
        state = dict(self.__dict__)
        state.pop("_fetch", None)
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__["_fetch"] = _cannot_fetch


def _cannot_fetch(cursor: str) -> Any:
    raise RuntimeError(f"an unpickled page cannot fetch the next one: call list(cursor={cursor!r}) on a client")


class SyncPage(BasePage[T]):
    """A page of a list; `for item in page` walks every item of this page and the following ones."""

    def __init__(self, op: Operation, body: Any, cursor: Optional[str], fetch: Callable[[str], "SyncPage[T]"]) -> None:
        super().__init__(op, body, cursor)
        self._fetch = fetch

    def get_next_page(self) -> "SyncPage[T]":
        """Fetches the next page; `RuntimeError` on the last one (check `has_next_page()`)."""
        if self._following is None:
            raise RuntimeError("this is the last page: check has_next_page() before get_next_page()")
        return self._fetch(self._following)

    def iter_pages(self) -> Iterator["SyncPage[T]"]:
        """This page, then each following one as the loop gets there."""
        page = self
        while True:
            yield page
            if page._following is None:
                return
            page = page.get_next_page()

    def __iter__(self) -> Iterator[T]:
        # `chain` hands out the items in C: a generator here (`yield from page.data`) was resumed once per item,
        # which cost the loop over 1,000 items more than the ten requests' own Python (npm run bench, Python row).
        return chain.from_iterable(page.data for page in self.iter_pages())


class AsyncPage(BasePage[T]):
    """A page of a list on `AsyncClient`; `async for item in page` walks every item of this page and the
    following ones."""

    def __init__(self, op: Operation, body: Any, cursor: Optional[str], fetch: Callable[[str], Awaitable["AsyncPage[T]"]]) -> None:
        super().__init__(op, body, cursor)
        self._fetch = fetch

    async def get_next_page(self) -> "AsyncPage[T]":
        """Fetches the next page; `RuntimeError` on the last one (check `has_next_page()`)."""
        if self._following is None:
            raise RuntimeError("this is the last page: check has_next_page() before get_next_page()")
        return await self._fetch(self._following)

    async def iter_pages(self) -> AsyncIterator["AsyncPage[T]"]:
        """This page, then each following one as the loop gets there."""
        page = self
        while True:
            yield page
            if page._following is None:
                return
            page = await page.get_next_page()

    async def __aiter__(self) -> AsyncIterator[T]:
        async for page in self.iter_pages():
            for item in page.data:
                yield item


class AsyncPaginator(Generic[T]):
    """What `list()` on `AsyncClient` returns (issue 49), as openai-python's `AsyncPaginator`: `await` it for the
    first page (an `AsyncPage`), or `async for item in client.analyses.list()` for every item of every page.
    Nothing is sent until it is awaited or iterated; each await or loop sends its own requests."""

    __slots__ = ("_first",)

    def __init__(self, first: Callable[[], Awaitable[AsyncPage[T]]]) -> None:
        self._first = first

    def __await__(self) -> Generator[Any, None, AsyncPage[T]]:
        return self._first().__await__()

    async def __aiter__(self) -> AsyncIterator[T]:
        async for item in await self._first():
            yield item
