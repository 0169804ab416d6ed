"""Python client of the audio, video and text analysis API, generated from the same contract as the TypeScript
client (spec/openapi.yaml). Standard library only.

    from analysis_api import Client
    with Client(base_url="https://api.example.com", api_key="pk_live_...") as client:
        for analysis in client.analyses.iter(status="completed"):
            print(analysis["id"])

`AsyncClient` is the asyncio twin. The JSON bodies are typed in `analysis_api.models`; see docs/python.md.
"""

# The package's layers, each importing only those before it (each folder's `__init__.py` says what it holds):
#   the contract, generated: `_constants.py`, `models.py` (with `_file.py`), and `_version.py`;
#   `_http/`        HTTP messages as values and bytes: requests, bodies, head bytes, responses, rate-limit headers;
#   `_calls/`       a call sans I/O: its types, URL, errors, and the core (preparing, retrying, results);
#   `_transports/`  moving the bytes: the sync pool, the asyncio transport, a transport of the caller's own;
#   `_results/`     what a call hands back: pages, raw responses, event streams and their SSE parser;
#   `_webhooks.py`, `_runtime.py` (the resources' bases), `_operations.py` (generated resources);
#   `_client.py`, `_async_client.py`, and this file, which exports the public names.

from ._constants import API_KEY_HEADER, CONTRACT_VERSION, RATE_LIMIT_HEADERS, TOKEN_QUERY_PARAM
from ._operations import METHOD_NAMES, OPERATIONS
from ._version import __version__ as __version__  # the contract's info.version (decision PY22); `as`: exported

from . import models  # noqa: E402
from ._async_client import AsyncClient  # noqa: E402
from ._client import BaseClient, Client  # noqa: E402
from ._calls._core import (  # noqa: E402
    AUTHORIZATION_HEADER,
    ENV_API_KEY,
    ENV_BASE_URL,
    IDEMPOTENCY_KEY_HEADER,
    TokenSource,
    redacted,
)
from ._calls._errors import (  # noqa: E402
    ApiConnectionError,
    ApiError,
    ApiStatusError,
    AuthenticationError,
    BadRequestError,
    ClientError,
    ConflictError,
    CredentialsError,
    EventHookError,
    InsecureTransportError,
    InternalServerError,
    NetworkError,
    NotFoundError,
    PermissionDeniedError,
    ProtocolError,
    RateLimitError,
    RequestTimeoutError,
    StreamError,
    UnprocessableEntityError,
    ValidationError,
    WebhookVerificationError,
)
from ._results._raw import RawResponse  # noqa: E402
from ._results._streaming import AsyncStreamingResponse, StreamingResponse  # noqa: E402
from ._http._rate_limit import RateLimit, read_rate_limit  # noqa: E402
from ._http._response import Response  # noqa: E402
from ._calls._types import NOT_GIVEN, BinaryBody, NotGiven, Operation, Param, RequestOptions  # noqa: E402
from ._results._sse import SseMessage, SseParser, is_final_event  # noqa: E402
from ._results._streams import AsyncEventStream, EventStream  # noqa: E402
from ._http._transport_types import Retry, Timeout  # noqa: E402
from ._calls._urls import is_loopback_host  # noqa: E402
from ._http._bodies import guess_content_type  # noqa: E402
from ._file import File  # noqa: E402
from ._http._transport_types import HttpRequest, HttpResponse  # noqa: E402
from ._transports._injected import AsyncTransport, SyncTransport  # noqa: E402
from ._transports._default import AsyncHTTPTransport, HTTPTransport  # noqa: E402
from ._results._pages import AsyncPage, AsyncPaginator, BasePage, SyncPage  # noqa: E402
from ._webhooks import (  # noqa: E402
    WEBHOOK_HEADERS,
    WEBHOOK_TOLERANCE_SECONDS,
    ENV_WEBHOOK_SECRET,
    SignedWebhook,
    sign_webhook_payload,
    unwrap_webhook,
    verify_webhook_signature,
)

__all__ = [
    "API_KEY_HEADER",
    "AUTHORIZATION_HEADER",
    "ApiConnectionError",
    "ApiError",
    "ApiStatusError",
    "AsyncClient",
    "AsyncEventStream",
    "AsyncHTTPTransport",
    "AsyncPage",
    "AsyncPaginator",
    "AsyncStreamingResponse",
    "AsyncTransport",
    "AuthenticationError",
    "BadRequestError",
    "BaseClient",
    "BasePage",
    "BinaryBody",
    "CONTRACT_VERSION",
    "Client",
    "ClientError",
    "ConflictError",
    "CredentialsError",
    "ENV_API_KEY",
    "ENV_BASE_URL",
    "ENV_WEBHOOK_SECRET",
    "EventHookError",
    "EventStream",
    "File",
    "HTTPTransport",
    "HttpRequest",
    "HttpResponse",
    "IDEMPOTENCY_KEY_HEADER",
    "InsecureTransportError",
    "InternalServerError",
    "METHOD_NAMES",
    "NOT_GIVEN",
    "NetworkError",
    "NotFoundError",
    "NotGiven",
    "OPERATIONS",
    "Operation",
    "Param",
    "PermissionDeniedError",
    "ProtocolError",
    "RATE_LIMIT_HEADERS",
    "RateLimit",
    "RateLimitError",
    "RawResponse",
    "RequestOptions",
    "RequestTimeoutError",
    "Response",
    "Retry",
    "SignedWebhook",
    "SseMessage",
    "SseParser",
    "StreamError",
    "StreamingResponse",
    "SyncPage",
    "SyncTransport",
    "TOKEN_QUERY_PARAM",
    "Timeout",
    "TokenSource",
    "UnprocessableEntityError",
    "ValidationError",
    "WEBHOOK_HEADERS",
    "WEBHOOK_TOLERANCE_SECONDS",
    "WebhookVerificationError",
    "guess_content_type",
    "is_final_event",
    "is_loopback_host",
    "models",
    "read_rate_limit",
    "redacted",
    "sign_webhook_payload",
    "unwrap_webhook",
    "verify_webhook_signature",
]
