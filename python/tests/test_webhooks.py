"""Webhook signatures: the contract's documented test vector (the same one the TypeScript client checks) and
every way a delivery is refused."""

from __future__ import annotations

import hashlib
import hmac
import json
import unittest

from support import analysis_api, contract

DOC = contract()
SECRET: str = DOC["components"]["examples"]["WebhookWithSecret"]["value"]["secret"]
TIMESTAMP: str = DOC["components"]["parameters"]["WebhookTimestampHeader"]["schema"]["examples"][0]
DOCUMENTED: str = DOC["components"]["parameters"]["WebhookSignatureHeader"]["schema"]["examples"][0]
# The body as the TypeScript test writes it (JSON.stringify): compact, keys in order, non-ASCII as is.
BODY = json.dumps(DOC["components"]["examples"]["WebhookEventAnalysisCompleted"]["value"], separators=(",", ":"), ensure_ascii=False)
NOW = float(TIMESTAMP)
# The vector, computed independently of the code under test.
EXPECTED = "v1=" + hmac.new(SECRET.encode(), f"{TIMESTAMP}.{BODY}".encode(), hashlib.sha256).hexdigest()


class WebhookTest(unittest.TestCase):
    def reason(self, **kwargs: object) -> str:
        args = {"payload": BODY, "signature": EXPECTED, "timestamp": TIMESTAMP, "secret": SECRET, "now": NOW, **kwargs}
        with self.assertRaises(analysis_api.WebhookVerificationError) as caught:
            analysis_api.verify_webhook_signature(**args)  # type: ignore[arg-type]
        message = str(caught.exception)
        self.assertNotIn(SECRET, message)
        self.assertNotIn(EXPECTED[3:], message)
        return caught.exception.reason

    def test_the_contract_s_documented_vector(self) -> None:
        self.assertEqual(DOCUMENTED, EXPECTED)
        analysis_api.verify_webhook_signature(BODY, signature=DOCUMENTED, timestamp=TIMESTAMP, secret=SECRET, now=NOW)
        self.assertEqual(analysis_api.sign_webhook_payload(BODY, SECRET, timestamp=TIMESTAMP).signature, DOCUMENTED)

    def test_signs_the_bytes_exactly(self) -> None:
        body = '{"detail":"Größe ✓ 成田"}'
        expected = "v1=" + hmac.new(SECRET.encode(), f"{TIMESTAMP}.".encode() + body.encode("utf-8"), hashlib.sha256).hexdigest()
        signed = analysis_api.sign_webhook_payload(body.encode("utf-8"), SECRET, timestamp=int(TIMESTAMP))
        self.assertEqual(signed.signature, expected)
        self.assertEqual(signed.headers, {"X-Webhook-Timestamp": TIMESTAMP, "X-Webhook-Signature": expected})
        self.assertEqual(analysis_api.sign_webhook_payload(BODY, SECRET, now=NOW).timestamp, TIMESTAMP)

    def test_accepts_headers_in_any_case_and_bytes(self) -> None:
        analysis_api.verify_webhook_signature(BODY.encode(), {"x-webhook-signature": EXPECTED, "X-WEBHOOK-TIMESTAMP": TIMESTAMP}, secret=SECRET, now=NOW + 299)
        analysis_api.verify_webhook_signature(BODY, [("X-Webhook-Signature", EXPECTED), ("X-Webhook-Timestamp", TIMESTAMP)], secret=SECRET, now=NOW - 300)

    def test_accepts_any_of_several_secrets_while_rotating(self) -> None:
        analysis_api.verify_webhook_signature(BODY, signature=EXPECTED, timestamp=TIMESTAMP, secret=["whsec_old0000000000000000000000000000", SECRET], now=NOW)

    def test_rejects_a_changed_body_a_wrong_secret_or_a_moved_signature(self) -> None:
        self.assertEqual(self.reason(payload=BODY.replace("completed", "c0mpleted")), "signature_mismatch")
        self.assertEqual(self.reason(payload=BODY + " "), "signature_mismatch")
        self.assertEqual(self.reason(secret=SECRET + "x"), "signature_mismatch")
        self.assertEqual(self.reason(timestamp=str(int(TIMESTAMP) + 1)), "signature_mismatch")

    def test_rejects_timestamps_more_than_300_s_away(self) -> None:
        self.assertEqual(self.reason(now=NOW + 301), "timestamp_out_of_tolerance")
        self.assertEqual(self.reason(now=NOW - 301), "timestamp_out_of_tolerance")
        self.assertEqual(self.reason(now=NOW + 11, tolerance=10), "timestamp_out_of_tolerance")

    def test_rejects_missing_and_malformed_headers(self) -> None:
        with self.assertRaises(analysis_api.WebhookVerificationError) as caught:
            analysis_api.verify_webhook_signature(BODY, {"X-Webhook-Timestamp": TIMESTAMP}, secret=SECRET, now=NOW)
        self.assertEqual(caught.exception.reason, "missing_header")
        self.assertEqual(self.reason(signature=EXPECTED.upper()), "malformed_signature")
        self.assertEqual(self.reason(signature="v2=" + EXPECTED[3:]), "malformed_signature")
        self.assertEqual(self.reason(timestamp="2026-11-21T12:00:00Z"), "malformed_timestamp")

    def test_a_parsed_body_is_refused(self) -> None:
        with self.assertRaises(TypeError):
            analysis_api.verify_webhook_signature(json.loads(BODY), signature=EXPECTED, timestamp=TIMESTAMP, secret=SECRET, now=NOW)

    def test_header_names_and_tolerance_are_the_contract_s(self) -> None:
        p = DOC["components"]["parameters"]
        self.assertEqual(
            analysis_api.WEBHOOK_HEADERS,
            {"id": p["WebhookIdHeader"]["name"], "timestamp": p["WebhookTimestampHeader"]["name"], "signature": p["WebhookSignatureHeader"]["name"]},
        )
        self.assertIn(f"more than {analysis_api.WEBHOOK_TOLERANCE_SECONDS} seconds", p["WebhookTimestampHeader"]["description"])



class UnwrapTest(unittest.TestCase):
    """`client.webhooks.unwrap()` (issue 34): verify, then the typed event."""

    headers = {"X-Webhook-Timestamp": TIMESTAMP, "x-webhook-signature": EXPECTED, "X-Webhook-Id": "whd_1"}

    def test_unwrap_returns_the_typed_event_with_the_client_s_secret(self) -> None:
        c = analysis_api.Client("https://api.example.com", api_key="pk_test_x", webhook_secret=SECRET)
        event = c.webhooks.unwrap(BODY.encode(), self.headers, now=NOW)
        self.assertEqual(event, json.loads(BODY))
        self.assertEqual(event["type"], "analysis.completed")
        if event["type"] == "analysis.completed":
            self.assertEqual(event["data"]["analysis"]["status"], "completed")
        self.assertNotIn(SECRET, repr(c))

    def test_rotation_tolerance_and_an_explicit_secret(self) -> None:
        c = analysis_api.Client("https://api.example.com", api_key="pk_test_x", webhook_secret=["whsec_new_one", SECRET])
        self.assertEqual(c.webhooks.unwrap(BODY, self.headers, now=NOW)["type"], "analysis.completed")
        with self.assertRaises(analysis_api.WebhookVerificationError) as caught:
            c.webhooks.unwrap(BODY, self.headers, now=NOW + 301)
        self.assertEqual(caught.exception.reason, "timestamp_out_of_tolerance")
        self.assertEqual(c.webhooks.unwrap(BODY, self.headers, now=NOW + 301, tolerance=600)["type"], "analysis.completed")
        with self.assertRaises(analysis_api.WebhookVerificationError) as caught:
            c.webhooks.unwrap(BODY, self.headers, "whsec_wrong", now=NOW)
        self.assertEqual(caught.exception.reason, "signature_mismatch")

    def test_the_environment_s_secret_is_read_when_used(self) -> None:
        # Issue 49: $ANALYSIS_WEBHOOK_SECRET was read only when the client was made.
        import os
        from unittest import mock

        for cls in (analysis_api.Client, analysis_api.AsyncClient):
            with mock.patch.dict(os.environ, {}, clear=False):
                os.environ.pop("ANALYSIS_WEBHOOK_SECRET", None)
                c = cls("https://api.example.com", api_key="pk_test_x")
                self.assertIsNone(c.webhook_secret)
                os.environ["ANALYSIS_WEBHOOK_SECRET"] = SECRET
                self.assertEqual(c.webhook_secret, SECRET, cls.__name__)
                self.assertEqual(c.webhooks.unwrap(BODY, self.headers, now=NOW)["type"], "analysis.completed")
                given = cls("https://api.example.com", api_key="pk_test_x", webhook_secret="whsec_given")
                self.assertEqual(given.webhook_secret, "whsec_given")

    def test_refusals_are_typed(self) -> None:
        c = analysis_api.Client("https://api.example.com", api_key="pk_test_x")
        with self.assertRaises(analysis_api.WebhookVerificationError) as caught:
            c.webhooks.unwrap(BODY, self.headers, now=NOW)
        self.assertEqual(caught.exception.reason, "missing_secret")
        signed = analysis_api.sign_webhook_payload(b"[1, 2]", SECRET, now=NOW)
        with self.assertRaises(analysis_api.WebhookVerificationError) as caught:
            analysis_api.unwrap_webhook(b"[1, 2]", signed.headers, secret=SECRET, now=NOW)
        self.assertEqual(caught.exception.reason, "malformed_payload")
        with self.assertRaises(analysis_api.WebhookVerificationError) as caught:
            c.webhooks.unwrap(BODY, {}, SECRET, now=NOW)
        self.assertEqual(caught.exception.reason, "missing_header")


if __name__ == "__main__":
    unittest.main()
