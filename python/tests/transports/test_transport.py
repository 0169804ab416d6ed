"""An injected transport (issue 34: "no way to inject a transport or hooks (tracing, test doubles)"): the client
builds, retries and types; the caller's object exchanges the bytes. No socket is opened in this file."""

from __future__ import annotations

import asyncio
import json
import socket
import unittest
from typing import Any, Dict, List
from unittest import mock

from support import FakeClock, analysis_api

from analysis_api import HttpRequest, HttpResponse

ANALYSIS = {"id": "anl_01HZX4A9B7C5D3E1F2G4H6J8K0", "status": "completed", "media_type": "audio"}


def _json(status: int, body: Any, headers: Dict[str, str] | None = None) -> HttpResponse:
    return HttpResponse(status, {"Content-Type": "application/json", **(headers or {})}, json.dumps(body).encode())


class Recorder:
    """A test double: answers from a script and keeps every request."""

    def __init__(self, *answers: "HttpResponse | OSError") -> None:
        self.answers: List["HttpResponse | OSError"] = list(answers)
        self.requests: List[HttpRequest] = []

    def handle_request(self, request: HttpRequest) -> HttpResponse:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, OSError):
            raise answer
        return answer

    async def handle_async_request(self, request: HttpRequest) -> HttpResponse:
        await asyncio.sleep(0)
        return self.handle_request(request)


def no_sockets() -> Any:
    return mock.patch.object(socket.socket, "connect", side_effect=AssertionError("a socket was opened"))


class InjectedTransportTest(unittest.TestCase):
    def test_a_fake_transport_answers_and_no_socket_is_opened(self) -> None:
        fake = Recorder(_json(200, ANALYSIS))
        with no_sockets():
            client = analysis_api.Client("https://api.example.com", api_key="pk_test_fake", transport=fake)
            self.assertEqual(client.analyses.get(ANALYSIS["id"], extra_query={"expand": "x"}), ANALYSIS)
        sent = fake.requests[0]
        self.assertEqual((sent.method, sent.url), ("GET", f"https://api.example.com/v1/analyses/{ANALYSIS['id']}?expand=x"))
        self.assertEqual(sent.headers["X-API-Key"], "pk_test_fake")  # the credentials are the client's to add

    def test_retries_errors_bodies_and_hooks_stay_the_clients(self) -> None:
        clock = FakeClock()
        seen: List[int] = []
        fake = Recorder(ConnectionResetError("reset"), _json(503, {"detail": "busy"}), _json(201, ANALYSIS), _json(404, {"detail": "gone"}))
        with no_sockets():
            client = analysis_api.Client("https://api.example.com", api_key="pk_test_fake", transport=fake, sleep=clock.sleep,
                                         on_response=lambda r: seen.append(r.status))
            raw = client.with_raw_response.analyses.create({"media_type": "audio", "source_url": "https://example.com/a.wav"})
            self.assertEqual((raw.status, raw.retries_taken), (201, 2))
            with self.assertRaises(analysis_api.NotFoundError):
                client.analyses.get("anl_missing", retry=False)
        self.assertEqual(seen, [503, 201, 404])  # every response, the retried one included
        keys = {r.headers["Idempotency-Key"] for r in fake.requests[:3]}
        self.assertEqual(len(keys), 1)  # one key for every attempt of the write
        self.assertEqual(json.loads(fake.requests[0].content)["media_type"], "audio")

    def test_a_network_failure_of_the_transport_is_a_network_error(self) -> None:
        with no_sockets():
            client = analysis_api.Client("https://api.example.com", api_key="pk_test_fake", transport=Recorder(ConnectionRefusedError("no")), retry=False)
            with self.assertRaises(analysis_api.NetworkError):
                client.analyses.get(ANALYSIS["id"])

    def test_something_that_is_not_a_transport_is_refused(self) -> None:
        with self.assertRaisesRegex(TypeError, "handle_request"):
            analysis_api.Client("https://api.example.com", api_key="pk_test_fake", transport=object())

    def test_async_client_takes_an_async_transport(self) -> None:
        fake = Recorder(_json(503, {"detail": "busy"}), _json(200, ANALYSIS))
        clock = FakeClock()

        async def main() -> Any:
            async with analysis_api.AsyncClient("https://api.example.com", api_key="pk_test_fake", transport=fake, sleep=clock.sleep) as client:
                return await client.analyses.get(ANALYSIS["id"])

        with no_sockets():
            self.assertEqual(asyncio.run(main()), ANALYSIS)
        self.assertEqual(len(fake.requests), 2)


if __name__ == "__main__":
    unittest.main()
