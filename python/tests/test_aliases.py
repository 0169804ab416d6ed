"""openai-python's spellings as aliases (issue 49, decision PY36): `max_retries=` and `default_headers=` on the
client and on `with_options`, `copy()` = `with_options()`, sync and async; each beside our own name."""

from __future__ import annotations

import unittest
from typing import Any

from support import Answer, FakeClock, FakeServer, analysis_api

ANALYSIS_ID = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0"
ANALYSIS = {"id": ANALYSIS_ID, "status": "queued"}
BUSY = Answer(503, {}, {"detail": "busy"})


def sync(url: str, **options: Any) -> analysis_api.Client:
    return analysis_api.Client(url, api_key="pk_test_python_unit", sleep=FakeClock().sleep, **options)


def async_client(url: str, **options: Any) -> analysis_api.AsyncClient:
    return analysis_api.AsyncClient(url, api_key="pk_test_python_unit", **options)


class SyncAliasTest(unittest.TestCase):
    def test_max_retries_is_retries_after_the_first_attempt(self) -> None:
        with FakeServer([BUSY, BUSY, Answer(200, {}, ANALYSIS)]) as server:
            self.assertEqual(sync(server.url, max_retries=2).analyses.get(ANALYSIS_ID), ANALYSIS)
        self.assertEqual(len(server.requests), 3)
        with FakeServer([BUSY, Answer(200, {}, ANALYSIS)]) as server:
            with self.assertRaises(analysis_api.InternalServerError):
                sync(server.url, max_retries=0).analyses.get(ANALYSIS_ID)
        self.assertEqual(len(server.requests), 1)

    def test_max_retries_refuses_nonsense_and_a_second_spelling(self) -> None:
        for bad in (-1, 1.5, True):
            with self.assertRaises(ValueError):
                sync("http://127.0.0.1:9", max_retries=bad)
        with self.assertRaisesRegex(ValueError, "retry= or max_retries="):
            sync("http://127.0.0.1:9", max_retries=1, retry=False)
        with self.assertRaisesRegex(ValueError, "headers= or default_headers="):
            sync("http://127.0.0.1:9", headers={"A": "1"}, default_headers={"B": "2"})

    def test_default_headers_are_headers(self) -> None:
        with FakeServer([Answer(200, {}, ANALYSIS)] * 2) as server:
            c = sync(server.url, default_headers={"X-Tenant": "t"})
            c.analyses.get(ANALYSIS_ID)
            c.with_options(default_headers={"X-Other": "o"}).analyses.get(ANALYSIS_ID)
        self.assertEqual(server.requests[0].headers.get("X-Tenant"), "t")
        self.assertEqual((server.requests[1].headers.get("X-Tenant"), server.requests[1].headers.get("X-Other")), ("t", "o"))

    def test_copy_is_with_options_and_takes_max_retries(self) -> None:
        with FakeServer([BUSY, Answer(200, {}, ANALYSIS)]) as server:
            base = sync(server.url, retry=False)
            copied = base.copy(max_retries=1)
            self.assertIsInstance(copied, analysis_api.Client)
            self.assertEqual(copied.analyses.get(ANALYSIS_ID), ANALYSIS)
        self.assertEqual(len(server.requests), 2)


class AsyncAliasTest(unittest.IsolatedAsyncioTestCase):
    async def test_max_retries_default_headers_and_copy(self) -> None:
        with FakeServer([BUSY, Answer(200, {}, ANALYSIS), BUSY]) as server:
            async with async_client(server.url, max_retries=1, default_headers={"X-Tenant": "t"}, sleep=FakeClock().sleep) as c:
                self.assertEqual(await c.analyses.get(ANALYSIS_ID), ANALYSIS)
                with self.assertRaises(analysis_api.InternalServerError):
                    await c.copy(max_retries=0).analyses.get(ANALYSIS_ID)
        self.assertEqual(len(server.requests), 3)
        self.assertEqual(server.requests[0].headers.get("X-Tenant"), "t")


if __name__ == "__main__":
    unittest.main()
