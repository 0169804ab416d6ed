"""The client against the mock gateway (`npm start`'s, started by test/python/python.test.ts on a free port).

These check shapes, types and statuses, never that two calls return the same example: they hold for today's
mock, which answers from the contract's examples, and for one that keeps what is created."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
import tempfile
import unittest
import urllib.request
from pathlib import Path
from typing import Any, List, get_args

from support import MOCK_KEY_ENV, MOCK_LIMITED_KEY_ENV, REPO, analysis_api, mock_url
from test_contract import mismatch, typed

from analysis_api._model import Model

models = analysis_api.models
ANALYSIS_ID = re.compile(r"^anl_[0-9A-Za-z]{8,40}$")
CREATE: models.AnalysisCreate = {"media_url": "https://media.example.com/calls/renewal.mp3", "media_type": "audio"}


def mock_client(**options: Any) -> analysis_api.Client:
    options.setdefault("api_key", os.environ.get(MOCK_KEY_ENV, "pk_test_demo_pro"))
    return analysis_api.Client(mock_url(), **options)


class MockTest(unittest.TestCase):
    def fits(self, value: Any, hint: Any, json_hint: Any = None) -> None:
        """The answer is the model `hint` names (or one of a union's) and its JSON fits the contract's shape."""
        if isinstance(value, Model):
            arms = get_args(hint) or (hint,)
            self.assertIn(type(value).__name__, [getattr(a, "__forward_arg__", getattr(a, "__name__", None)) for a in arms])
            value = value.to_dict()
        self.assertEqual(mismatch(value, json_hint or typed(hint.__name__), "answer"), [])

    def test_list_create_get_update_delete(self) -> None:
        c = mock_client()
        page = c.analyses.list(status="completed", limit=5)
        self.fits(page.to_dict(), models.AnalysisList)
        created = c.analyses.create(CREATE)
        self.fits(created, models.Analysis)
        self.assertRegex(created.id, ANALYSIS_ID)
        self.assertEqual(created.status, "queued")
        self.fits(c.analyses.get(created.id), models.Analysis)
        self.fits(c.analyses.update(created.id, {"title": "Renewal call"}), models.Analysis)
        self.assertIsNone(c.analyses.delete(created.id))

    def test_iter_yields_typed_items_page_by_page(self) -> None:
        items = list(itertools.islice(mock_client().analyses.iter(limit=1), 1))
        for item in items:
            self.fits(item, models.Analysis)

    def test_an_uploaded_path_is_typed_by_its_file_name(self) -> None:
        # Issue 34: a Path went as application/octet-stream, and the mock took call.wav for a video.
        with tempfile.TemporaryDirectory() as tmp:
            for name, kind in (("call.wav", "audio"), ("demo.mp4", "video"), ("notes.txt", "text")):
                path = Path(tmp) / name
                path.write_bytes(b"RIFF\x00\x00\x00\x00WAVE" if kind != "text" else b"Hello.")
                with self.subTest(name=name):
                    self.assertEqual(mock_client().analyses.upload({"file": path}).media_type, kind)

    def test_other_bodies_multipart_stream_form_and_text(self) -> None:
        c = mock_client()
        upload: models.AnalysisUploadParam = {"file": ("call.wav", b"RIFF\x00\x00\x00\x00WAVE", "audio/wav"), "media_type": "audio", "features": ["transcription"], "metadata": {"team": "cs"}}
        self.fits(c.analyses.upload(upload), models.Analysis)
        self.fits(c.stream_uploads.create(iter([b"\x00" * 1000, b"\x01" * 1000]), media_type="audio", features=["transcription", "diarization"]), models.Analysis)
        self.fits(c.oauth.create_token({"grant_type": "client_credentials", "client_id": "northwind-crm-connector"}), models.OAuthToken)
        self.assertIn("openapi: 3.1", c.documentation.get_openapi_description())
        self.fits(c.health.get_gateway(), models.GatewayHealth)

    def test_errors_arrive_typed(self) -> None:
        with self.assertRaises(analysis_api.ApiError) as caught:
            mock_client(api_key="pk_test_nobody_has_this").analyses.list()
        self.assertEqual((caught.exception.status, caught.exception.kind), (401, "unauthorized"))
        with self.assertRaises(analysis_api.ApiError) as caught:
            mock_client(api_key="pk_test_demo_frozen").analyses.list()
        self.assertEqual((caught.exception.status, caught.exception.kind), (403, "forbidden"))
        with self.assertRaises(analysis_api.ValidationError) as invalid:
            mock_client().analyses.get("nope")
        self.assertEqual(invalid.exception.errors[0]["loc"], ["path", "analysis_id"])
        with self.assertRaises(analysis_api.ApiError) as caught:
            mock_client(headers={"Prefer": "code=404"}).analyses.get("anl_01HZX4A9B7C5D3E1F2G4H6J8K0")
        self.assertEqual((caught.exception.status, caught.exception.kind), (404, "not_found"))

    def test_the_per_minute_limit_is_a_rate_limit_error(self) -> None:
        key = os.environ.get(MOCK_LIMITED_KEY_ENV)
        if not key:
            self.skipTest(f"{MOCK_LIMITED_KEY_ENV} is not set")
        c = mock_client(api_key=key, retry=False)
        with self.assertRaises(analysis_api.RateLimitError) as caught:
            for _ in range(2):  # the key allows 1 request per minute
                c.speakers.list()
        e = caught.exception
        self.assertEqual((e.status, e.error, e.limit, e.window), (429, "rate_limit_exceeded", 1, "1 minute"))
        self.assertGreater(e.retry_after, 0)
        rate_limit = analysis_api.read_rate_limit(e.response)
        assert rate_limit is not None
        self.assertEqual((rate_limit.remaining, rate_limit.retry_after), (0, e.retry_after))

    def test_rate_limit_headers_of_every_response(self) -> None:
        seen: List[analysis_api.RateLimit] = []
        c = mock_client(on_rate_limit=lambda rl, response: seen.append(rl))
        c.speakers.list()
        first = c.last_rate_limit
        c.speakers.list()
        assert first is not None and c.last_rate_limit is not None
        self.assertEqual(len(seen), 2)
        self.assertEqual(c.last_rate_limit.remaining, first.remaining - 1)
        self.assertEqual(c.last_rate_limit.limit, first.limit)

    def test_event_stream_typed_to_its_last_event_and_resumed(self) -> None:
        c = mock_client()
        analysis_id = c.analyses.create(CREATE).id
        events = list(c.streaming.stream_analysis_events(analysis_id))
        self.assertEqual(events[0].event, "status")
        self.assertTrue(analysis_api.is_final_event(events[-1]))
        for event in events:
            self.fits(event, models.AnalysisStreamEvent, models.AnalysisStreamEventParam)
        rest = list(c.streaming.stream_analysis_events(analysis_id, last_event_id=events[1].id))
        self.assertEqual(rest, events[2:])

    def test_the_token_url_opens_the_stream_without_headers(self) -> None:
        url = mock_client().streaming.stream_analysis_events_url("anl_01HZX4A9B7C5D3E1F2G4H6J8K0")
        self.assertIn("token=", url)
        with urllib.request.urlopen(url, timeout=30) as response:
            self.assertEqual(response.status, 200)
            self.assertTrue(response.headers["Content-Type"].startswith("text/event-stream"))

    def test_the_consumer_example_runs(self) -> None:
        env = {**os.environ, "ANALYSIS_API_URL": mock_url(), "ANALYSIS_API_KEY": os.environ.get(MOCK_KEY_ENV, "pk_test_demo_pro")}
        env["PYTHONPATH"] = os.pathsep.join(p for p in [str(REPO / "python" / "src"), env.get("PYTHONPATH", "")] if p)
        run = subprocess.run([sys.executable, str(REPO / "python" / "examples" / "consumer.py")], env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("completed:", run.stdout)
        self.assertIn("invalid: path.analysis_id", run.stdout)


if __name__ == "__main__":
    unittest.main()
