"""The sans-I/O core shared by `Client` and `AsyncClient` (decision PY15): it builds requests, decides retries and
their waits, and turns responses into results or typed errors. It never touches a socket or a clock of its own,
so the sync and async front ends differ only in how they send bytes and sleep.
"""

from __future__ import annotations

import copy
import gzip
import json
import logging
import os
import random as _random
import re
import time
import uuid
from urllib.parse import urlsplit
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, TypedDict, Union

from .._http._bodies import EncodedBody, encode_body
from ._errors import ApiStatusError, CredentialsError, EventHookError, ProtocolError, RequestTimeoutError, to_api_error
from .._constants import API_KEY_HEADER
from .._http._rate_limit import RateLimit, rate_limit_of, retry_after_seconds
from .._http._response import Response
from .._http._transport_types import HttpRequest, Request, Retry, Timeout, Timing
from ._types import NOT_GIVEN, NotGiven, Operation, RequestOptions, RetryOption, TimeoutOption
from ._urls import check_base_url, header_params, operation_url, with_token

AUTHORIZATION_HEADER = "Authorization"
IDEMPOTENCY_KEY_HEADER = "Idempotency-Key"
ENV_API_KEY = "ANALYSIS_API_KEY"
ENV_BASE_URL = "ANALYSIS_API_BASE_URL"
DEFAULT_TIMEOUT = 30.0
DEFAULT_STREAM_IDLE_TIMEOUT = 60.0
"""Seconds an open event stream may stay silent: the contract promises a keep-alive comment every 15 s."""

logger = logging.getLogger("analysis_api")
"""The package's logger: one DEBUG line per attempt (method, path, status, wait), never a credential or query."""

ENV_LOG = "ANALYSIS_API_LOG"
"""`debug` or `info`: the package's logger writes to stderr at that level, without configuring `logging` by hand
(as `OPENAI_LOG` does for openai-python)."""


def log_from_environment() -> None:
    """Applies `$ANALYSIS_API_LOG` once: a stderr handler on the `analysis_api` logger, unless it has one."""
    level = {"debug": logging.DEBUG, "info": logging.INFO}.get((os.environ.get(ENV_LOG) or "").strip().lower())
    if level is None or logger.handlers:
        return
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("[%(asctime)s %(name)s %(levelname)s] %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(level)


TokenSource = Union[str, Callable[[], str]]
"""A bearer JWT, or a function giving a fresh one (called before every attempt; it may cache)."""

_HEADER_SAFE = re.compile(r"^[\x21-\x7e]+$")
_SECRET_HEADERS = frozenset({API_KEY_HEADER.lower(), AUTHORIZATION_HEADER.lower(), "cookie", "proxy-authorization"})
_WRITES = frozenset({"POST", "PATCH"})


def checked_seconds(timeout: Optional[float], name: str = "timeout") -> Optional[float]:
    """A number of seconds, or None to wait forever. 0 is refused: it used to mean "forever" silently."""
    if timeout is None:
        return None
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout != timeout or timeout <= 0:
        raise ValueError(f"{name} must be a positive number of seconds, a Timeout, or None to wait forever (got {timeout!r})")
    return float(timeout)


def checked_timeout(timeout: Union[Timeout, float, None]) -> Optional[Timeout]:
    """A `Timeout`; a number of seconds t is `Timeout(connect=t, read=t, total=t)`, None waits forever."""
    if isinstance(timeout, Timeout):
        return timeout
    seconds = checked_seconds(timeout)
    return None if seconds is None else Timeout(seconds, seconds, seconds)


def resolve_retry(retry: Union[Retry, bool]) -> Optional[Retry]:
    if retry is True:
        return Retry()
    if retry is False:
        return None
    if not isinstance(retry, Retry):
        raise TypeError("retry must be a Retry policy, True (the default policy) or False (send once)")
    return None if retry.max_attempts == 1 else retry


def _checked(name: str, value: object) -> str:
    if not isinstance(value, str) or not _HEADER_SAFE.match(value):
        # The value itself is never part of the message.
        raise CredentialsError(f"{name} must be a non-empty string of visible ASCII characters without spaces")
    return value


class Credentials:
    """Where the credentials go; the names are the contract's security schemes (`ApiKeyAuth`, `BearerAuth`)."""

    def __init__(self, api_key: Optional[str], token: Optional[TokenSource]) -> None:
        if api_key is not None and token is not None:
            raise CredentialsError("pass either api_key (server-to-server) or token (a user's JWT), not both")
        if api_key is None and token is None:
            api_key = os.environ.get(ENV_API_KEY) or None
        if api_key is None and token is None:
            raise CredentialsError(
                f"no credentials: pass api_key (sent as X-API-Key) or token (a JWT, or a function returning one, "
                f"sent as Authorization: Bearer), or set {ENV_API_KEY}"
            )
        if api_key is not None:
            _checked("api_key", api_key)
        elif isinstance(token, str):
            _checked("token", token)
        elif not callable(token):
            raise CredentialsError("token must be a string or a function returning one")
        self._api_key = api_key
        self._token = token

    def __repr__(self) -> str:
        return "<Credentials api_key=***>" if self._api_key is not None else "<Credentials token=***>"

    def query_token(self) -> str:
        """The credential for the `token` query parameter."""
        if self._api_key is not None:
            return self._api_key
        token = self._token
        return _checked("token", token) if isinstance(token, str) else _checked("the token function's result", token() if token else None)

    def authenticate(self, headers: Dict[str, str]) -> None:
        if self._api_key is not None:
            headers[API_KEY_HEADER] = self._api_key
        else:
            headers[AUTHORIZATION_HEADER] = f"Bearer {self.query_token()}"


def redacted(headers: Mapping[str, str]) -> Dict[str, str]:
    """Headers fit for a log: credentials replaced by `***`."""
    return {k: ("***" if k.lower() in _SECRET_HEADERS else v) for k, v in headers.items()}


@dataclass
class Clock:
    """What retries wait with; tests inject fakes."""

    sleep: Callable[[float], None] = time.sleep
    monotonic: Callable[[], float] = time.monotonic
    random: Callable[[], float] = _random.random


@dataclass
class Config:
    """A client's settings, shared by the sync and async front ends."""

    base_url: str
    credentials: Credentials
    timeout: Optional[Timeout]
    retry: Optional[Retry]
    headers: Dict[str, str]
    stream_idle_timeout: Optional[float]
    max_stream_reconnects: int
    clock: Clock
    on_rate_limit: Optional[Callable[[RateLimit, Response], None]]
    last_rate_limit: Any = field(default=None)
    default_query: Optional[Mapping[str, Any]] = None
    """Query parameters sent with every call (a call's `extra_query` wins)."""
    on_request: Optional[Callable[[str, str, Dict[str, str]], None]] = None
    """Told each call's method, path and headers (which it may change) before the first attempt."""
    on_response: Optional[Callable[[Response], None]] = None
    """Told every response as it arrives (each attempt's), before its body is read."""
    response_hooks: Tuple[Callable[[Response], None], ...] = ()
    """`event_hooks["response"]`: told every response after `on_response` (issue 49)."""

    def with_changes(self, timeout: TimeoutOption, retry: RetryOption, headers: Optional[Mapping[str, str]]) -> "Config":
        changed = copy.copy(self)
        if not isinstance(timeout, NotGiven):
            changed.timeout = checked_timeout(timeout)
        if not isinstance(retry, NotGiven):
            changed.retry = resolve_retry(retry)
        if headers:
            changed.headers = {**self.headers, **headers}
        return changed


def base_url_of(base_url: Optional[str]) -> str:
    if base_url is None:
        base_url = os.environ.get(ENV_BASE_URL)
        if not base_url:
            raise ValueError(f"no base_url: pass base_url= (e.g. https://api.example.com) or set {ENV_BASE_URL}")
    return check_base_url(base_url)


def timeout_error(request: Request, timing: Timing, what: str = "response") -> RequestTimeoutError:
    """The error of an attempt that ran out of time, naming the limit it hit (`connect`, `read`, `total`)."""
    limit, seconds = timing.limit
    return RequestTimeoutError(request.method, request.path, seconds, f"{what} ({limit} timeout)")


def may_resend(request: Request) -> bool:
    """May this request be sent again after it reached the server? Yes unless it is a write (POST, PATCH) without
    an `Idempotency-Key` (issue 21): the server may have acted on it."""
    return request.method not in _WRITES or any(k.lower() == "idempotency-key" for k in request.headers)


def prepare(config: Config, op: Operation, args: Dict[str, Any], body: Any, options: RequestOptions, accept: Optional[str] = None) -> Request:
    """The request of one call: URL, headers, encoded body, and the call's timeout and retry policy."""
    timeout_option, retry_option, extra_headers, extra_query, idempotency_key, extra_body = options
    if config.default_query:
        extra_query = {**config.default_query, **(extra_query or {})}
    url = operation_url(config.base_url, op, args, extra_query)
    headers = dict(config.headers)
    in_headers = header_params(op, args)
    if in_headers:
        headers.update(in_headers)
    if extra_headers:
        headers.update(extra_headers)
    if accept:
        headers["Accept"] = accept
    encoded = _NO_BODY
    if op.body:
        if extra_body:
            if body is not None and not isinstance(body, Mapping):
                raise TypeError(f"extra_body needs an object body; {op.method} {op.path} was given {type(body).__name__}")
            body = {**(body or {}), **extra_body}
        encoded = encode_body(op.body, body, op.files)
        if encoded.content_type:
            headers["Content-Type"] = encoded.content_type
        if encoded.length is not None:
            headers["Content-Length"] = str(encoded.length)
    timeout = config.timeout if isinstance(timeout_option, NotGiven) else checked_timeout(timeout_option)
    retry = config.retry if isinstance(retry_option, NotGiven) else resolve_retry(retry_option)
    if op.method in _WRITES:
        _idempotency_key(headers, idempotency_key, retry)
    origin, prefix = _origin(config.base_url)
    target = url[prefix:] or "/"
    path = url[len(config.base_url) :].split("?", 1)[0]
    if config.on_request is not None:
        config.on_request(op.method, path, headers)  # before the credentials, which it never sees
    return Request(op.method, url, path, headers, encoded, timeout, retry, origin, target)


def _idempotency_key(headers: Dict[str, str], given: Optional[str], retry: Optional[Retry]) -> None:
    """Issue 21: the caller's key (`idempotency_key=`, then an `Idempotency-Key` header), else a new UUID4 when the
    call may be retried; once per call, so every attempt sends the same."""
    own = next((k for k in headers if k.lower() == "idempotency-key"), None)
    if given is not None:
        if own is not None:
            del headers[own]
        headers[IDEMPOTENCY_KEY_HEADER] = _checked("idempotency_key", given)
    elif own is None and retry is not None:
        headers[IDEMPOTENCY_KEY_HEADER] = str(uuid.uuid4())


_ORIGINS: Dict[str, Tuple[Tuple[str, str, Optional[int]], int]] = {}
_NO_BODY = EncodedBody(None, None)


def _origin(base_url: str) -> Tuple[Tuple[str, str, Optional[int]], int]:
    """(scheme, host, port) of a base URL, and the length of `scheme://host:port`; split once per base URL."""
    known = _ORIGINS.get(base_url)
    if known is None:
        parts = urlsplit(base_url)
        known = _ORIGINS[base_url] = ((parts.scheme, parts.hostname or "", parts.port), len(f"{parts.scheme}://{parts.netloc}"))
    return known


def token_url(config: Config, op: Operation, args: Dict[str, Any]) -> str:
    return with_token(operation_url(config.base_url, op, args), config.credentials.query_token(), op.kind == "websocket")


class RetryState:
    """The retry decisions of one call (decisions C3, L7-L9 of the TypeScript client, and issue 21's rule). Made on
    every call: a plain class with slots, cheaper to make than a dataclass."""

    __slots__ = ("request", "clock", "started", "attempt", "_since")

    def __init__(self, request: Request, clock: Clock) -> None:
        self.request = request
        self.clock = clock
        self.attempt = 0
        self.started = clock.monotonic()
        self._since = time.perf_counter()

    def begin(self) -> None:
        self.attempt += 1

    def done(self, response: Response) -> Response:
        """Stamps the answer handed out with the call's `elapsed` time and `retries_taken`."""
        response.elapsed = time.perf_counter() - self._since
        response.retries_taken = self.attempt - 1
        return response

    def _budget(self, wait: Optional[float]) -> Optional[float]:
        retry = self.request.retry
        if wait is None or retry is None:
            return None
        if self.clock.monotonic() - self.started + wait > retry.max_elapsed:
            return None
        return wait

    def after_failure(self, error: BaseException, sent: bool) -> Optional[float]:
        """The wait before the next attempt after no response came, or None to raise. `sent`: the request may have
        reached the server (a refused connection had not)."""
        retry = self.request.retry
        if not retry or self.attempt >= retry.max_attempts or not retry.retry_network_errors or not self.request.body.replayable:
            return None
        if sent and not may_resend(self.request):
            return None
        if type(error).__name__ == "SSLCertVerificationError":
            return None  # a certificate that does not verify will not verify on the next attempt either
        return self._budget(retry.backoff(self.attempt, self.clock.random))

    def after_response(self, response: Response) -> Optional[float]:
        """The wait before the next attempt after a non-2xx answer, or None to hand the answer out."""
        retry = self.request.retry
        if response.ok or not retry or self.attempt >= retry.max_attempts or not self.request.body.replayable:
            return None
        if response.status == 429 and retry.retry_rate_limited:
            after = retry_after_seconds(response.headers)
            wait = retry.backoff(self.attempt, self.clock.random) if after is None else after + self.clock.random() * retry.base_delay
        elif response.status in retry.retry_statuses and may_resend(self.request):
            wait = retry.backoff(self.attempt, self.clock.random)
        else:
            return None
        return self._budget(wait)


def observe(config: Config, response: Response) -> None:
    """Tells the rate-limit hook and `last_rate_limit` about a response, and logs it."""
    if logger.isEnabledFor(logging.INFO):
        logger.info("%s %s -> %s (request id %s)", response.method, response.path, response.status, response.request_id)
    if config.on_response is not None:
        config.on_response(response)
    for hook in config.response_hooks:
        _tell("response", hook, response, response.method, response.path)
    rate_limit = rate_limit_of(response)
    if rate_limit is None:
        return
    if config.last_rate_limit is not None:
        config.last_rate_limit.value = rate_limit
    if config.on_rate_limit is not None:
        config.on_rate_limit(rate_limit, response)


class EventHooks(TypedDict, total=False):
    """`event_hooks=`: `{"request": [f, ...], "response": [g, ...]}`, as httpx spells it (openai-python's
    `http_client=`): each function is told one `HttpRequest` (credentials redacted) or `Response`."""

    request: Sequence[Callable[[HttpRequest], Any]]
    response: Sequence[Callable[[Response], Any]]

_HOOK_KINDS = ("request", "response")


def checked_event_hooks(hooks: Optional[EventHooks]) -> Dict[str, Tuple[Callable[[Any], Any], ...]]:
    """`event_hooks=` checked when the client is made: known kinds, each a list of functions."""
    if hooks is None:
        return {}
    if not isinstance(hooks, Mapping):
        raise TypeError('event_hooks must be a dict: {"request": [functions], "response": [functions]}')
    checked: Dict[str, Tuple[Callable[[Any], Any], ...]] = {}
    for kind, functions in hooks.items():
        if kind not in _HOOK_KINDS:
            raise ValueError(f"event_hooks has {kind!r}: the kinds are 'request' and 'response'")
        if not isinstance(functions, (list, tuple)) or not all(callable(f) for f in functions):
            raise TypeError(f'event_hooks["{kind}"] must be a list of functions taking one argument')
        checked[kind] = tuple(functions)
    return checked


def _tell(kind: str, hook: Callable[[Any], Any], value: Any, method: str, path: str) -> None:
    """Calls one hook; what it raises becomes an `EventHookError` naming it (never a failed attempt to retry)."""
    try:
        hook(value)
    except Exception as e:
        name = getattr(hook, "__qualname__", None) or repr(hook)
        raise EventHookError(f"the {kind} hook {name} raised {type(e).__name__}: {e} ({method} {path})") from e


def request_teller(hooks: Sequence[Callable[[Any], Any]]) -> Optional[Callable[[Request, Dict[str, str]], None]]:
    """What a transport calls with each attempt's final headers (credentials added): `event_hooks["request"]` are
    told an `HttpRequest` with the credentials redacted. None without hooks (the default path pays nothing)."""
    if not hooks:
        return None
    told: List[Callable[[Any], Any]] = list(hooks)

    def tell(request: Request, headers: Dict[str, str]) -> None:
        payload = request.body.payload() if request.body.stream is None else None
        seen = HttpRequest(request.method, request.url, redacted(headers), payload if isinstance(payload, bytes) else b"", request.timeout)
        for hook in told:
            _tell("request", hook, seen, request.method, request.path)

    return tell


def decoded(response: Response) -> bytes:
    """The body with its `Content-Encoding: gzip` undone (the client asks for gzip)."""
    if response.decoded:
        return response.content
    response.decoded = True
    if (response.lower_headers.get("content-encoding") or "").lower() == "gzip" and response.content:
        try:
            return gzip.decompress(response.content)
        except (OSError, EOFError) as e:
            raise ProtocolError(f"{response.method} {response.path} answered a gzip body that does not decompress") from e
    return response.content


_SECRET_KEYS = frozenset({"secret", "access_token", "refresh_token"})


class SecretDict(Dict[str, Any]):
    """A JSON object holding a secret (an API key's or webhook's `secret`, an OAuth `access_token`): a plain dict
    whose `repr` hides the secret, so a log line or a traceback never prints it (decision PY21)."""

    def __repr__(self) -> str:
        return repr({k: ("***" if k in _SECRET_KEYS and isinstance(v, str) else v) for k, v in self.items()})

    __str__ = __repr__


def error_of(response: Response) -> ApiStatusError:
    """The typed error of a non-2xx answer whose body has been read."""
    response.content = decoded(response)
    return to_api_error(response)


def model_of(op: Operation, value: Any) -> Any:
    """A JSON answer wrapped in its model (decision PY30)."""
    if op.convert is None or not isinstance(value, (dict, list)):
        return value
    return op.convert(value)


def result_of(response: Response) -> Any:
    """The result of a call: its JSON, its text or None; a typed `ApiError` for a non-2xx answer."""
    response.content = decoded(response)
    if not response.ok:
        raise to_api_error(response)
    if not response.content:
        return None
    if "json" in response.content_type.lower():
        try:
            value = json.loads(response.content)
        except ValueError:
            raise ProtocolError(f"{response.method} {response.path} answered {response.status} with a body that is not JSON") from None
        return SecretDict(value) if isinstance(value, dict) and not _SECRET_KEYS.isdisjoint(value) else value
    return response.text()


def check_page(op: Operation, page: Any, cursor: Optional[str]) -> Tuple[Any, Optional[str]]:
    """The items of a list page and the next cursor (None at the end)."""
    if not (isinstance(page, dict) and isinstance(page.get("data"), list) and isinstance(page.get("has_more"), bool)):
        raise ProtocolError(f"{op.method} {op.path} did not answer a list page ({{data, next_cursor, has_more}})")
    if not page["has_more"]:
        return page["data"], None
    following = page.get("next_cursor")
    if not isinstance(following, str) or following == cursor:
        raise ProtocolError(f"{op.method} {op.path} answered has_more without a new next_cursor; stopping instead of looping")
    return page["data"], following


def with_stream_options(options: RequestOptions, last_event_id: Optional[str]) -> RequestOptions:
    if last_event_id is None:
        return options
    return options._replace(extra_headers={**(options.extra_headers or {}), "Last-Event-ID": last_event_id})
