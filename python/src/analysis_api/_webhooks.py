"""Webhook signatures, as the contract defines them (spec/webhooks/*.yaml, decision W2):
`X-Webhook-Signature: v1=<lowercase hex HMAC-SHA256 of "<X-Webhook-Timestamp>.<raw body>">`, keyed with the
webhook's secret (the whole `whsec_...` string as UTF-8). Receivers reject timestamps more than 300 s away.
`hmac.compare_digest` compares in constant time."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from typing import Any, Dict, Final, Iterable, NamedTuple, Optional, Sequence, Tuple, Union, cast

from ._calls._errors import WebhookVerificationError
from ._http._response import Headers, header
from .models import MODEL_OF, WebhookEvent

ENV_WEBHOOK_SECRET = "ANALYSIS_WEBHOOK_SECRET"

WEBHOOK_HEADERS: Dict[str, str] = {
    "id": "X-Webhook-Id",
    "timestamp": "X-Webhook-Timestamp",
    "signature": "X-Webhook-Signature",
}
"""The delivery headers (components.parameters `WebhookIdHeader`, `WebhookTimestampHeader`, `WebhookSignatureHeader`)."""

WEBHOOK_TOLERANCE_SECONDS = 300

_SIGNATURE = re.compile(r"^v1=([0-9a-f]{64})$")
_TIMESTAMP = re.compile(r"^[0-9]{10}$")

Payload = Union[str, bytes, bytearray, memoryview]
"""The raw request body, exactly as received: its bytes (or the text they decode to)."""


class SignedWebhook(NamedTuple):
    timestamp: str
    signature: str
    headers: Dict[str, str]
    """The two signature headers, ready to send with the delivery."""


def _bytes_of(payload: Payload) -> bytes:
    if isinstance(payload, str):
        return payload.encode("utf-8")
    if isinstance(payload, (bytes, bytearray, memoryview)):
        return bytes(payload)
    raise TypeError("payload must be the raw request body (str or bytes), not a parsed object")


def _mac(secret: str, timestamp: str, payload: bytes) -> str:
    if not isinstance(secret, str) or not secret:
        raise TypeError("secret must be a non-empty string")
    return hmac.new(secret.encode("utf-8"), timestamp.encode("ascii") + b"." + payload, hashlib.sha256).hexdigest()


def sign_webhook_payload(payload: Payload, secret: str, *, timestamp: Union[int, str, None] = None, now: Optional[float] = None) -> SignedWebhook:
    """Signs a delivery as the service does: `v1=` + hex HMAC-SHA256 of `<timestamp>.<raw body>`. `timestamp` is UTC
    epoch seconds (default: `now`, epoch seconds, default the clock)."""
    ts = str(timestamp if timestamp is not None else int(time.time() if now is None else now))
    if not _TIMESTAMP.match(ts):
        raise ValueError("timestamp must be UTC epoch seconds (10 digits)")
    signature = "v1=" + _mac(secret, ts, _bytes_of(payload))
    return SignedWebhook(ts, signature, {WEBHOOK_HEADERS["timestamp"]: ts, WEBHOOK_HEADERS["signature"]: signature})


def verify_webhook_signature(
    payload: Payload,
    headers: Union[Headers, Iterable[Tuple[str, Any]], None] = None,
    *,
    secret: Union[str, Sequence[str]],
    signature: Optional[str] = None,
    timestamp: Optional[str] = None,
    tolerance: int = WEBHOOK_TOLERANCE_SECONDS,
    now: Optional[float] = None,
) -> None:
    """Returns when a delivery is authentic and fresh; raises `WebhookVerificationError` (with `reason`) otherwise.

    `payload` is the raw body, before any JSON parsing. `headers` are the delivery's (a mapping in any letter case,
    `http.server`'s message, or (name, value) pairs); or give `signature` and `timestamp`. `secret` may be a list
    while a secret is being rotated (any one may match). `now` is the clock in epoch seconds. Messages never
    contain the secret or the signature.
    """
    sig = signature if signature is not None else header(headers, WEBHOOK_HEADERS["signature"])
    ts = timestamp if timestamp is not None else header(headers, WEBHOOK_HEADERS["timestamp"])
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets:
        raise TypeError("secret must be a non-empty string or list of strings")
    body = _bytes_of(payload)

    if sig is None or ts is None:
        missing = WEBHOOK_HEADERS["signature"] if sig is None else WEBHOOK_HEADERS["timestamp"]
        raise WebhookVerificationError("missing_header", f"{missing} is missing")
    match = _SIGNATURE.match(sig)
    if not match:
        raise WebhookVerificationError("malformed_signature", f'{WEBHOOK_HEADERS["signature"]} is not "v1=" and 64 hex digits')
    if not _TIMESTAMP.match(ts):
        raise WebhookVerificationError("malformed_timestamp", f"{WEBHOOK_HEADERS['timestamp']} is not UTC epoch seconds")
    skew = abs(int(time.time() if now is None else now) - int(ts))
    if skew > tolerance:
        raise WebhookVerificationError(
            "timestamp_out_of_tolerance",
            f"{WEBHOOK_HEADERS['timestamp']} is {skew} s away from now (tolerance {tolerance} s)",
        )
    given = match.group(1)
    if any(hmac.compare_digest(_mac(s, ts, body), given) for s in secrets):
        return
    raise WebhookVerificationError("signature_mismatch", "the signature does not match the payload and secret")


Secrets = Union[str, Sequence[str]]
"""A webhook's `whsec_...` secret, or several while one is being rotated (any one may match)."""


def unwrap_webhook(
    payload: Payload,
    headers: Union[Headers, Iterable[Tuple[str, Any]], None],
    *,
    secret: Secrets,
    tolerance: int = WEBHOOK_TOLERANCE_SECONDS,
    now: Optional[float] = None,
) -> WebhookEvent:
    """Verifies a delivery (`verify_webhook_signature`) and returns its event, typed by `models.WebhookEvent`
    (narrowed on `event["type"]`). Raises `WebhookVerificationError`: the signature's reasons, or `malformed_payload`
    for a body that is not a JSON object with a string `type`. An event type this version does not know is still
    returned: the contract lets new ones come."""
    verify_webhook_signature(payload, headers, secret=secret, tolerance=tolerance, now=now)
    try:
        event = json.loads(_bytes_of(payload))
    except ValueError:
        raise WebhookVerificationError("malformed_payload", "the delivery's body is not JSON") from None
    if not isinstance(event, dict) or not isinstance(event.get("type"), str):
        raise WebhookVerificationError("malformed_payload", "the delivery's body is not an event (a JSON object with a `type`)")
    return cast(WebhookEvent, MODEL_OF["WebhookEvent"](event))


class WebhookHelpers:
    """What `client.webhooks` offers besides the contract's operations: checking and making signatures, and
    `unwrap()`, which checks a delivery and returns its typed event."""

    _client: Any
    verify_signature: Final = staticmethod(verify_webhook_signature)
    sign_payload: Final = staticmethod(sign_webhook_payload)

    def unwrap(
        self,
        payload: Payload,
        headers: Union[Headers, Iterable[Tuple[str, Any]], None],
        secret: Optional[Secrets] = None,
        *,
        tolerance: int = WEBHOOK_TOLERANCE_SECONDS,
        now: Optional[float] = None,
    ) -> WebhookEvent:
        """`unwrap_webhook` with `secret` defaulting to the client's `webhook_secret` (then
        `$ANALYSIS_WEBHOOK_SECRET`): `event = client.webhooks.unwrap(request_body, request_headers)`."""
        given = secret if secret is not None else getattr(self._client, "webhook_secret", None)
        if not given:
            raise WebhookVerificationError("missing_secret", f"no webhook secret: pass secret=, or webhook_secret= to the client, or set {ENV_WEBHOOK_SECRET}")
        return unwrap_webhook(payload, headers, secret=given, tolerance=tolerance, now=now)
