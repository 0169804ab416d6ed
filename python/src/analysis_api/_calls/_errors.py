"""Typed errors, as Python users catch them (decision PY17): every failed call is an `ApiError`; an answer other
than 2xx is an `ApiStatusError` subclass by status (400 `BadRequestError`, 401 `AuthenticationError`, 403
`PermissionDeniedError`, 404 `NotFoundError`, 409 `ConflictError`, 422 `UnprocessableEntityError`, 429
`RateLimitError`, 5xx `InternalServerError`), and no answer an `ApiConnectionError` (`NetworkError`,
`RequestTimeoutError`). The client's own failures have their own classes. Every class derives from `ClientError`. No message ever
carries a credential: messages are built from the method, the URL path (never the query) and the server's
`detail`."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, Tuple, cast

from .._http._rate_limit import retry_after_seconds
from .._http._response import Response
from ..models import ValidationErrorItem

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
    """Base class of every error this package raises.

    Every error pickles and deep-copies with its attributes (decision PY17): an exception raised in a worker of a
    `ProcessPoolExecutor` reaches the parent as itself, not as `BrokenProcessPool`."""

    def __reduce__(self) -> Tuple[Any, ...]:
        return (_rebuild, (type(self), self.args, dict(self.__dict__)))


def _rebuild(cls: "type[ClientError]", args: Tuple[Any, ...], state: Dict[str, Any]) -> ClientError:
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class ApiError(ClientError):
    """A call failed: the service answered with a status other than 2xx (`ApiStatusError` and its subclasses), or
    no answer came (`ApiConnectionError`: `NetworkError`, `RequestTimeoutError`).

    `status`, `error`, `detail` and `response` are None when no response came."""

    status: Optional[int]
    """The HTTP status (None when no response came)."""
    error: Optional[str]
    """The contract's machine-readable code (the body's `error`, e.g. `token_expired`), when the body has one."""
    detail: str
    """The server's `detail` (for a 422 its items joined into one line), or what went wrong when no response came."""
    response: Optional[Response]
    """The response, headers such as `X-RateLimit-*` included (None when no response came)."""
    request_id: Optional[str]
    """The answer's `X-Request-Id`, to quote to support (None when no response came, or it carried none)."""
    method: str
    path: str
    """The request's path, without the query string (which may hold a token)."""

    def __init__(self, message: str, *, method: str, path: str) -> None:
        super().__init__(message)
        self.method = method
        self.path = path
        self.status = None
        self.error = None
        self.detail = message
        self.response = None
        self.request_id = None

    @property
    def status_code(self) -> Optional[int]:
        """`status`, as openai-python and httpx spell it."""
        return self.status


class ApiStatusError(ApiError):
    """The service answered with a status other than 2xx. Raised as the subclass of its status (see the table in
    docs/python.md); a status without one (e.g. 418) raises this class itself."""

    status: int
    response: Response

    @property
    def status_code(self) -> int:
        """`status`, as openai-python and httpx spell it."""
        return self.status

    def __init__(self, response: Response, body: Any, detail: Optional[str] = None) -> None:
        if detail is None:
            detail = _detail_of(body, response)
        super().__init__(f"{response.method} {response.path} failed with {response.status}: {detail}", method=response.method, path=response.path)
        self.response = response
        self.status = response.status
        self.request_id: Optional[str] = response.request_id
        self.kind: ApiErrorKind = kind_of_status(response.status)
        self.detail = detail
        fields = cast(Dict[str, Any], body) if isinstance(body, dict) else {}
        code = fields.get("error")
        self.error: Optional[str] = code if isinstance(code, str) else None
        self.body: Any = body
        """The parsed error body (JSON when it was JSON, else the text)."""


class BadRequestError(ApiStatusError):
    """400: the request is malformed (e.g. a file over the size limit)."""


class AuthenticationError(ApiStatusError):
    """401: no credentials, or credentials the service does not accept; `error` says which."""


class PermissionDeniedError(ApiStatusError):
    """403: the credentials may not do this; `error` says why."""


class NotFoundError(ApiStatusError):
    """404: no such resource."""


class ConflictError(ApiStatusError):
    """409: the resource is not in a state that allows this (e.g. canceling a finished run)."""


class UnprocessableEntityError(ApiStatusError):
    """422: the request failed schema validation; `errors` lists one item per invalid field."""

    def __init__(self, response: Response, body: Any, detail: Optional[str] = None) -> None:
        self.errors: List[ValidationErrorItem] = list(body["detail"]) if _is_validation_body(body) else []
        joined = "; ".join(f"{'.'.join(str(p) for p in item['loc'])}: {item['msg']}" for item in self.errors)
        super().__init__(response, body, detail or joined or None)


ValidationError = UnprocessableEntityError
"""The 0.1 name of `UnprocessableEntityError` (the same class)."""


class RateLimitError(ApiStatusError):
    """429: a rate limit was exceeded, whatever the body (an HTML 429 of a proxy included). Fields as in the
    contract's `RateLimitError` body, when it is one; `retry_after` falls back to the `Retry-After` header."""

    def __init__(self, response: Response, body: Any, detail: Optional[str] = None) -> None:
        super().__init__(response, body, detail)
        fields = body if isinstance(body, dict) else {}
        limit = fields.get("limit")
        self.limit: int = limit if isinstance(limit, int) else 0
        """Requests allowed in the window (0 when the body does not say)."""
        self.window: str = str(fields.get("window", ""))
        """`1 minute` or `1 day` (empty when the body does not say)."""
        after = fields.get("retry_after")
        self.retry_after: int = after if isinstance(after, int) else (retry_after_seconds(response.headers) or 0)
        """Seconds to wait (the body's `retry_after`, else the `Retry-After` header, else 0)."""


class InternalServerError(ApiStatusError):
    """5xx: the service failed; retried by the default policy (500, 502, 503, 504) before it is raised."""


_CLASS_BY_STATUS: Dict[int, "type[ApiStatusError]"] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    429: RateLimitError,
}


class CredentialsError(ClientError, ValueError):
    """The client was given no usable credentials (raised before any request; the message never holds a secret)."""


class ApiConnectionError(ApiError):
    """No response came: the connection failed or timed out. `__cause__` is the OS error."""


class RequestTimeoutError(ApiConnectionError, TimeoutError):
    """No response (or no whole body, or no event on an open stream) within the timeout."""

    def __init__(self, method: str, path: str, timeout: float, what: str = "response") -> None:
        super().__init__(f"{method} {path} got no {what} within {timeout:g} s", method=method, path=path)
        self.timeout = timeout


class NetworkError(ApiConnectionError, ConnectionError):
    """The connection failed (refused, reset, closed early), or a body was cut short. `__cause__` is the OS error."""

    def __init__(self, method: str, path: str, message: str) -> None:
        super().__init__(f"{method} {path}: {message}", method=method, path=path)


class EventHookError(ClientError):
    """A function of `event_hooks=` raised: the call stops there, without a retry (whatever it raised, even an
    `OSError`, is the hook's failure, not the network's). The message names the hook, what it raised and the
    request; `__cause__` is the hook's own exception."""


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
        """`missing_header`, `malformed_signature`, `malformed_timestamp`, `timestamp_out_of_tolerance`,
        `signature_mismatch`; from `unwrap()` also `malformed_payload` and `missing_secret`."""


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


def error_class(status: int) -> "type[ApiStatusError]":
    """The class raised for a non-2xx status."""
    if status == 422:
        return UnprocessableEntityError
    return _CLASS_BY_STATUS.get(status, InternalServerError if status >= 500 else ApiStatusError)


def to_api_error(response: Response) -> ApiStatusError:
    """The typed error for a non-2xx response whose body has been read."""
    body = _body_of(response)
    return error_class(response.status)(response, body)


# Tracebacks and reprs name the public module (`analysis_api.NotFoundError`), where the classes are exported.
for _cls in list(globals().values()):
    if isinstance(_cls, type) and issubclass(_cls, ClientError):
        _cls.__module__ = "analysis_api"
