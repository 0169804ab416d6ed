"""Python client of the audio, video and text analysis API, generated from the same contract as the TypeScript
client (spec/openapi.yaml). Standard library only.

    from analysis_api import Client
    client = Client(base_url="https://api.example.com", api_key="pk_live_...")
    for analysis in client.iter_analyses(status="completed"):
        print(analysis["id"])

The JSON bodies are typed in `analysis_api.models`.
"""

__version__ = "0.1.0"

from . import models
from ._client import AUTHORIZATION_HEADER, Client, TokenSource
from ._errors import (
    ApiError,
    ClientError,
    CredentialsError,
    InsecureTransportError,
    NetworkError,
    ProtocolError,
    RateLimitError,
    RequestTimeoutError,
    StreamError,
    ValidationError,
    WebhookVerificationError,
)
from ._operations import API_KEY_HEADER, OPERATIONS, RATE_LIMIT_HEADERS, TOKEN_QUERY_PARAM
from ._rate_limit import RateLimit, read_rate_limit
from ._response import Response
from ._runtime import BinaryBody, Operation, Param
from ._sse import SseMessage, SseParser, is_final_event
from ._transport import Retry
from ._urls import is_loopback_host
from ._webhooks import (
    WEBHOOK_HEADERS,
    WEBHOOK_TOLERANCE_SECONDS,
    SignedWebhook,
    sign_webhook_payload,
    verify_webhook_signature,
)

__all__ = [
    "API_KEY_HEADER",
    "AUTHORIZATION_HEADER",
    "ApiError",
    "BinaryBody",
    "Client",
    "ClientError",
    "CredentialsError",
    "InsecureTransportError",
    "NetworkError",
    "OPERATIONS",
    "Operation",
    "Param",
    "ProtocolError",
    "RATE_LIMIT_HEADERS",
    "RateLimit",
    "RateLimitError",
    "RequestTimeoutError",
    "Response",
    "Retry",
    "SignedWebhook",
    "SseMessage",
    "SseParser",
    "StreamError",
    "TOKEN_QUERY_PARAM",
    "TokenSource",
    "ValidationError",
    "WEBHOOK_HEADERS",
    "WEBHOOK_TOLERANCE_SECONDS",
    "WebhookVerificationError",
    "is_final_event",
    "is_loopback_host",
    "models",
    "read_rate_limit",
    "sign_webhook_payload",
    "verify_webhook_signature",
]
