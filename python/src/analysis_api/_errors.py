"""Typed errors. An HTTP failure is an `ApiError`, or its subclass `ValidationError` (422) or `RateLimitError`
(429); the client's own failures have their own classes. Every class derives from `ClientError`. No message ever
carries a credential: messages are built from the method, the URL path (never the query) and the server's
`detail`."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional

from ._rate_limit import retry_after_seconds
from ._response import Response
from .models import ValidationErrorItem

ApiErrorKind = Literal[
    "bad_request", "unauthorized", "forbidden", "not_found", "conflict", "validation", "rate_limited", "server", "http"
]

_KIND_BY_STATUS: Dict[int, ApiErrorKind] = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    409: "conflict",
    422: "validation",
    429: "rate_limited",
}

_MAX_TEXT_DETAIL = 200


def kind_of_status(status: int) -> ApiErrorKind:
    return _KIND_BY_STATUS.get(status, "server" if status >= 500 else "http")


class ClientError(Exception):
    """Base class of every error this package raises."""


class ApiError(ClientError):
    """The service answered with a status other than 2xx."""

    def __init__(self, response: Response, body: Any, detail: str) -> None:
        super().__init__(f"{response.method} {response.path} failed with {response.status}: {detail}")
        self.response = response
        """The response (headers such as `X-RateLimit-*` included)."""
        self.status = response.status
        self.kind: ApiErrorKind = kind_of_status(response.status)
        self.detail = detail
        """The server's `detail`; for a 422, its items joined into one line."""
        self.body = body
        """The parsed error body (JSON when it was JSON, else the text)."""
        self.method = response.method
        self.path = response.path
        """The request's path, without the query string."""


class ValidationError(ApiError):
    """422: the request failed schema validation; `errors` lists one item per invalid field."""

    def __init__(self, response: Response, body: Dict[str, Any]) -> None:
        self.errors: List[ValidationErrorItem] = list(body["detail"])
        detail = "; ".join(f"{'.'.join(str(p) for p in item['loc'])}: {item['msg']}" for item in self.errors)
        super().__init__(response, body, detail)


class RateLimitError(ApiError):
    """429: a rate limit was exceeded. Fields as in the contract's `RateLimitError` body."""

    def __init__(self, response: Response, body: Dict[str, Any], retry_after: int) -> None:
        super().__init__(response, body, str(body["detail"]))
        self.error: Literal["rate_limit_exceeded", "daily_limit_exceeded"] = body["error"]
        """`rate_limit_exceeded` (per minute) or `daily_limit_exceeded`."""
        limit = body.get("limit")
        self.limit: int = limit if isinstance(limit, int) else 0
        self.window: str = str(body.get("window", ""))
        """`1 minute` or `1 day`."""
        self.retry_after = retry_after
        """Seconds to wait (the body's `retry_after`, else the `Retry-After` header)."""


class CredentialsError(ClientError, ValueError):
    """No usable credentials: raised before any request is sent."""


class RequestTimeoutError(ClientError, TimeoutError):
    """An attempt got no response, or no body, within the timeout."""

    def __init__(self, method: str, path: str, timeout: float, what: str = "response") -> None:
        super().__init__(f"{method} {path} got no {what} within {timeout:g} s")
        self.method = method
        self.path = path
        self.timeout = timeout


class NetworkError(ClientError, ConnectionError):
    """The connection failed (refused, reset, closed early), or a body was cut short. `__cause__` is the OS error."""

    def __init__(self, method: str, path: str, message: str) -> None:
        super().__init__(f"{method} {path}: {message}")
        self.method = method
        self.path = path


class InsecureTransportError(ClientError, ValueError):
    """A token would have been put into a URL that is not sent over TLS (interface specification, rule 7)."""


class ProtocolError(ClientError):
    """The service answered something the contract does not allow (e.g. a list page without `has_more`)."""


class StreamError(ProtocolError):
    """An event stream broke the contract, or ended before its last event more often than the reconnects allow."""


class WebhookVerificationError(ClientError, ValueError):
    """A webhook delivery is not authentic or not fresh; `reason` says why."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        """`missing_header`, `malformed_signature`, `malformed_timestamp`, `timestamp_out_of_tolerance` or
        `signature_mismatch`."""


def _is_validation_body(body: Any) -> bool:
    return (
        isinstance(body, dict)
        and isinstance(body.get("detail"), list)
        and all(
            isinstance(i, dict) and isinstance(i.get("loc"), list) and isinstance(i.get("msg"), str) and isinstance(i.get("type"), str)
            for i in body["detail"]
        )
    )


def _detail_of(body: Any, response: Response) -> str:
    if isinstance(body, dict) and isinstance(body.get("detail"), str):
        return str(body["detail"])
    if isinstance(body, str) and body.strip():
        text = " ".join(body.split())
        return text[:_MAX_TEXT_DETAIL] + "…" if len(text) > _MAX_TEXT_DETAIL else text
    return response.reason or f"HTTP {response.status}"


def _body_of(response: Response) -> Any:
    if "json" in response.content_type.lower():
        try:
            return response.json()
        except ValueError:
            pass
    return response.text()


def to_api_error(response: Response) -> ApiError:
    """The typed error for a non-2xx response whose body has been read."""
    body = _body_of(response)
    if response.status == 422 and _is_validation_body(body):
        return ValidationError(response, body)
    if (
        response.status == 429
        and isinstance(body, dict)
        and isinstance(body.get("detail"), str)
        and body.get("error") in ("rate_limit_exceeded", "daily_limit_exceeded")
    ):
        after = body.get("retry_after")
        header_after: Optional[int] = retry_after_seconds(response.headers)
        retry_after = after if isinstance(after, int) else (header_after or 0)
        return RateLimitError(response, body, retry_after)
    return ApiError(response, body, _detail_of(body, response))
