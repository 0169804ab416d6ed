"""Logging at `info` (issue 49, decision PY37): with `ANALYSIS_API_LOG=info` (or the `analysis_api` logger at
INFO), every answer is one line with method, path, status and request id, and every retry one line; sync and
async alike (the environment switch at `info`: test_client.py). Before, every line was DEBUG and `info` printed
nothing, even for a retried 429."""

from __future__ import annotations

import logging
import unittest

from support import Answer, FakeClock, FakeServer, analysis_api, client

ANALYSIS_ID = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0"
ANALYSIS = {"id": ANALYSIS_ID, "status": "queued"}
ANSWERS = [Answer(429, {"X-Request-Id": "req_first", "Retry-After": "1"}, {"detail": "slow down", "error": "rate_limit_exceeded", "limit": 1, "window": "1 minute", "retry_after": 1}), Answer(200, {"X-Request-Id": "req_second"}, ANALYSIS)]


class SyncLoggingTest(unittest.TestCase):
    def test_info_names_each_answer_and_retry(self) -> None:
        with FakeServer(list(ANSWERS)) as server:
            with self.assertLogs("analysis_api", logging.INFO) as logs:
                client(server.url, FakeClock(), api_key="pk_live_SECRET").analyses.get(ANALYSIS_ID)
        text = "\n".join(logs.output)
        self.assertIn(f"INFO:analysis_api:GET /v1/analyses/{ANALYSIS_ID} -> 429 (request id req_first)", text)
        self.assertRegex(text, r"INFO:analysis_api:GET /v1/analyses/\S+: 429; retrying in [\d.]+ s")
        self.assertIn(f"GET /v1/analyses/{ANALYSIS_ID} -> 200 (request id req_second)", text)
        self.assertNotIn("SECRET", text)


class AsyncLoggingTest(unittest.IsolatedAsyncioTestCase):
    async def test_info_names_each_answer_and_retry(self) -> None:
        with FakeServer(list(ANSWERS)) as server:
            with self.assertLogs("analysis_api", logging.INFO) as logs:
                async with analysis_api.AsyncClient(server.url, api_key="pk_live_SECRET", sleep=FakeClock().sleep) as c:
                    await c.analyses.get(ANALYSIS_ID)
        text = "\n".join(logs.output)
        self.assertIn(f"INFO:analysis_api:GET /v1/analyses/{ANALYSIS_ID} -> 429 (request id req_first)", text)
        self.assertRegex(text, r"INFO:analysis_api:GET /v1/analyses/\S+: 429; retrying in [\d.]+ s")
        self.assertIn("-> 200 (request id req_second)", text)


if __name__ == "__main__":
    unittest.main()
