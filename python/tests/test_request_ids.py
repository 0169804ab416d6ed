"""Request ids (issue 49, decisions RQ1-RQ3 and PY34): every error with an answer, and every raw response, carry the
answer's `X-Request-Id` as `request_id`, sync and async, against a scripted server and the mock gateway;
`status_code` is `status` as openai-python spells it."""

from __future__ import annotations

import os
import re
import unittest
from typing import Any

from support import MOCK_KEY_ENV, Answer, FakeServer, analysis_api, client, mock_url

ANALYSIS_ID = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0"
ANALYSIS = {"id": ANALYSIS_ID, "status": "queued"}
FRESH = re.compile(r"^req_[0-9a-f]{12}[0-9a-z]{6,}$")


def async_client(url: str, **options: Any) -> analysis_api.AsyncClient:
    options.setdefault("api_key", "pk_test_python_unit")
    return analysis_api.AsyncClient(url, **options)


class SyncRequestIdTest(unittest.TestCase):
    def test_an_error_carries_the_answer_s_request_id_and_status_code(self) -> None:
        with FakeServer([Answer(404, {"X-Request-Id": "req_abc"}, {"detail": "Analysis not found."})]) as server:
            with self.assertRaises(analysis_api.NotFoundError) as caught:
                client(server.url, retry=False).analyses.get(ANALYSIS_ID)
        self.assertEqual(caught.exception.request_id, "req_abc")
        self.assertEqual(caught.exception.status_code, 404)

    def test_none_when_the_answer_has_none_or_no_answer_came(self) -> None:
        with FakeServer([Answer(404, {}, {"detail": "Analysis not found."})]) as server:
            with self.assertRaises(analysis_api.NotFoundError) as caught:
                client(server.url, retry=False).analyses.get(ANALYSIS_ID)
        self.assertIsNone(caught.exception.request_id)
        with self.assertRaises(analysis_api.ApiConnectionError) as failed:
            client("http://127.0.0.1:9", retry=False).analyses.get(ANALYSIS_ID)
        self.assertIsNone(failed.exception.request_id)
        self.assertIsNone(failed.exception.status_code)

    def test_a_raw_response_carries_it(self) -> None:
        with FakeServer([Answer(200, {"X-Request-Id": "req_raw"}, ANALYSIS)]) as server:
            raw = client(server.url).with_raw_response.analyses.get(ANALYSIS_ID)
        self.assertEqual((raw.request_id, raw.status_code), ("req_raw", 200))

    def test_against_the_mock_every_answer_has_one(self) -> None:
        c = analysis_api.Client(mock_url(), api_key=os.environ.get(MOCK_KEY_ENV, "pk_test_demo_pro"), retry=False)
        raw = c.with_raw_response.analyses.list(limit=1)
        self.assertRegex(raw.request_id or "", FRESH)
        with self.assertRaises(analysis_api.ApiStatusError) as caught:
            c.analyses.get("anl_doesnotexist0000")
        self.assertRegex(caught.exception.request_id or "", FRESH)


class AsyncRequestIdTest(unittest.IsolatedAsyncioTestCase):
    async def test_an_error_carries_the_answer_s_request_id_and_status_code(self) -> None:
        with FakeServer([Answer(404, {"X-Request-Id": "req_abc"}, {"detail": "Analysis not found."})]) as server:
            async with async_client(server.url, retry=False) as c:
                with self.assertRaises(analysis_api.NotFoundError) as caught:
                    await c.analyses.get(ANALYSIS_ID)
        self.assertEqual((caught.exception.request_id, caught.exception.status_code), ("req_abc", 404))

    async def test_a_raw_response_carries_it(self) -> None:
        with FakeServer([Answer(200, {"X-Request-Id": "req_raw"}, ANALYSIS)]) as server:
            async with async_client(server.url) as c:
                raw = await c.with_raw_response.analyses.get(ANALYSIS_ID)
        self.assertEqual((raw.request_id, raw.status_code), ("req_raw", 200))

    async def test_against_the_mock_every_answer_has_one(self) -> None:
        async with analysis_api.AsyncClient(mock_url(), api_key=os.environ.get(MOCK_KEY_ENV, "pk_test_demo_pro"), retry=False) as c:
            raw = await c.with_raw_response.analyses.list(limit=1)
            self.assertRegex(raw.request_id or "", FRESH)
            with self.assertRaises(analysis_api.ApiStatusError) as caught:
                await c.analyses.get("anl_doesnotexist0000")
        self.assertRegex(caught.exception.request_id or "", FRESH)


if __name__ == "__main__":
    unittest.main()
