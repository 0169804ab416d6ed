"""`with_raw_response`: a call's status and headers next to its parsed result."""

from __future__ import annotations

from typing import Any, Callable, Generic, Optional, TypeVar, cast

from .._http._rate_limit import RateLimit, rate_limit_of
from .._http._response import Headers, Response

T = TypeVar("T")


class AnswerHead:
    """The head of an answer, as `RawResponse` and the streamed twins (`StreamingResponse`) give it."""

    def _head(self) -> Response:
        raise NotImplementedError

    @property
    def status(self) -> int:
        return self._head().status

    @property
    def status_code(self) -> int:
        """`status`, as openai-python and httpx spell it."""
        return self._head().status

    @property
    def request_id(self) -> Optional[str]:
        """The answer's `X-Request-Id`, to quote to support (None when it carried none)."""
        return self._head().request_id

    @property
    def headers(self) -> Headers:
        return self._head().headers

    @property
    def rate_limit(self) -> Optional[RateLimit]:
        """The `X-RateLimit-*` headers of this answer (None when it has none)."""
        return rate_limit_of(self._head())

    @property
    def retries_taken(self) -> int:
        """How many attempts failed or were retried before this answer (0: the first one)."""
        return self._head().retries_taken


class RawResponse(AnswerHead, Generic[T]):
    """A successful answer as received: `status`, `headers`, `response`, and `parse()` for the typed result."""

    def __init__(self, response: Response, parse: Callable[[Response], Any]) -> None:
        self.response = response
        self._parse = parse

    def _head(self) -> Response:
        return self.response

    @property
    def elapsed(self) -> float:
        """Seconds the call took, retries and their waits included, until the answer was read."""
        return self.response.elapsed

    def parse(self) -> T:
        """The result the plain method returns (its JSON, text or None)."""
        return cast(T, self._parse(self.response))

    def __repr__(self) -> str:
        return f"<RawResponse {self.status} {self.response.method} {self.response.path}>"
