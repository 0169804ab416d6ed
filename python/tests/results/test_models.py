"""Answers as models (issue 49, decision PY30): attribute access, nested models, unknown fields kept, `to_dict()`,
`to_json()`, `==`, pickling, and dict access deprecated. Sync and async, through an injected transport."""

from __future__ import annotations

import asyncio
import copy
import json
import pickle
import unittest
import warnings
from typing import Any, Dict, List

from support import analysis_api

from analysis_api import HttpRequest, HttpResponse, models
from analysis_api._model import Model

ANALYSIS: Dict[str, Any] = {
    "id": "anl_01HZX4A9B7C5D3E1F2G4H6J8K0",
    "status": "failed",
    "media_type": "audio",
    "title": None,
    "summary": None,
    "features": ["transcription"],
    "error": {"code": "media_unreadable", "message": "not audio"},
    "field_of_a_newer_contract": {"kept": True},
}
PAGE = {"data": [{"id": "spk_1", "name": "Ada"}, {"id": "spk_2", "name": "Grace"}], "has_more": False, "next_cursor": None}


def sse(*events: Dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['event']}\nid: {e['id']}\ndata: {json.dumps(e['data'])}\n\n".encode() for e in events)


STREAM = sse(
    {"event": "transcript.segment", "id": "evt_1", "data": {"id": "seg_1", "start": 0.0, "end": 1.0, "text": "Hello"}},
    {"event": "completed", "id": "evt_2", "data": ANALYSIS},
)


class Answers:
    """A transport answering by path."""

    def handle_request(self, request: HttpRequest) -> HttpResponse:
        if request.url.endswith("/stream"):
            return HttpResponse(200, {"Content-Type": "text/event-stream"}, STREAM)
        body = PAGE if "/v1/speakers" in request.url else ANALYSIS
        return HttpResponse(200, {"Content-Type": "application/json"}, json.dumps(body).encode())

    async def handle_async_request(self, request: HttpRequest) -> HttpResponse:
        await asyncio.sleep(0)
        return self.handle_request(request)


def sync_client() -> analysis_api.Client:
    return analysis_api.Client("https://api.example.com", api_key="pk_test_models", transport=Answers())


class ModelChecks(unittest.TestCase):
    """What every model answer is, whichever client fetched it."""

    def check_analysis(self, analysis: models.Analysis) -> None:
        self.assertIsInstance(analysis, models.Analysis)
        self.assertEqual((analysis.id, analysis.status, analysis.title, analysis.features), (ANALYSIS["id"], "failed", None, ["transcription"]))
        self.assertIsNone(analysis.summary)
        self.assertIsNone(models.AnalysisCreateMediaUrl({"media_url": "u", "media_type": "audio"}).title)  # an optional key absent
        error = analysis.error
        assert error is not None
        self.assertIsInstance(error, models.AnalysisError)
        self.assertEqual((error.code, error.message), ("media_unreadable", "not audio"))
        self.assertEqual(analysis.to_dict()["field_of_a_newer_contract"], {"kept": True})
        self.assertEqual(json.loads(analysis.to_json()), ANALYSIS)
        with self.assertRaises(AttributeError):
            analysis.status = "queued"  # type: ignore[misc]
        with self.assertRaises(AttributeError):
            analysis.__dict__  # noqa: B018  (slots only)

    def check_values(self, analysis: models.Analysis) -> None:
        self.assertEqual(analysis, models.Analysis(copy.deepcopy(ANALYSIS)))
        self.assertEqual(analysis, ANALYSIS)  # as the 1.x dict compared
        self.assertNotEqual(analysis, models.Analysis({**ANALYSIS, "status": "queued"}))
        self.assertNotEqual(analysis, models.Speaker(ANALYSIS))  # another class, the same JSON
        again = pickle.loads(pickle.dumps(analysis))
        self.assertEqual((type(again), again), (models.Analysis, analysis))
        analysis.to_dict()["status"] = "queued"
        self.assertEqual(analysis.status, "failed")  # to_dict() is a copy

    def check_dict_access_warns(self, analysis: models.Analysis) -> None:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            self.assertEqual(analysis["status"], "failed")
            self.assertEqual(analysis.get("title", "x"), None)
            self.assertIn("error", analysis)
        self.assertEqual([w.category for w in seen], [DeprecationWarning] * 3)
        self.assertIn("analysis['status']) is deprecated", str(seen[0].message))
        self.assertEqual(seen[0].filename, __file__)  # pointed at the caller's line
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            with self.assertRaises(DeprecationWarning):
                analysis["status"]

    def check_events(self, events: List[Any]) -> None:
        self.assertEqual([type(e) for e in events], [models.AnalysisStreamTranscriptSegmentEvent, models.AnalysisStreamCompletedEvent])
        self.assertEqual(events[0].data.text, "Hello")
        self.assertIsInstance(events[1].data, models.Analysis)
        self.assertEqual(events[1].data.error.code, "media_unreadable")


class SyncModelTest(ModelChecks):
    def test_an_answer_is_its_model_with_nested_models_and_unknown_fields(self) -> None:
        self.check_analysis(sync_client().analyses.get(ANALYSIS["id"]))

    def test_equality_pickling_and_to_dict(self) -> None:
        self.check_values(sync_client().analyses.get(ANALYSIS["id"]))

    def test_dict_access_still_works_with_a_deprecation_warning(self) -> None:
        self.check_dict_access_warns(sync_client().analyses.get(ANALYSIS["id"]))

    def test_pages_hold_models_and_pickle_with_them(self) -> None:
        page = sync_client().speakers.list()
        self.assertEqual([(type(s), s.name) for s in page], [(models.Speaker, "Ada"), (models.Speaker, "Grace")])
        again = pickle.loads(pickle.dumps(page))
        self.assertEqual([s.name for s in again.data], ["Ada", "Grace"])
        self.assertIsInstance(again.data[0], models.Speaker)

    def test_events_are_the_model_their_discriminator_names(self) -> None:
        with sync_client().streaming.stream_analysis_events(ANALYSIS["id"]) as events:
            self.check_events(list(events))

    def test_raw_responses_parse_into_models(self) -> None:
        raw = sync_client().with_raw_response.analyses.get(ANALYSIS["id"])
        self.assertIsInstance(raw.parse(), models.Analysis)
        listed = sync_client().with_raw_response.speakers.list().parse()
        self.assertIsInstance(listed, models.SpeakerList)
        self.assertIsInstance(listed.data[0], models.Speaker)

    def test_a_union_is_wrapped_by_its_discriminator_and_unknown_tags_fall_back(self) -> None:
        wrap = models.MODEL_OF["AgentTrigger"]
        self.assertIsInstance(wrap({"type": "event", "schedule": None, "event_types": []}), models.AgentEventTrigger)
        self.assertIsInstance(wrap({"type": "manual"}), models.AgentManualTrigger)
        self.assertEqual(wrap({"type": "a newer kind"}).to_dict(), {"type": "a newer kind"})

    def test_a_union_without_a_discriminator_is_wrapped_by_the_keys_a_variant_requires(self) -> None:
        wrap = models.MODEL_OF["AnalysisCreate"]  # "exactly one of" media_url / text
        self.assertIsInstance(wrap({"text": "hi", "media_type": "text"}), models.AnalysisCreateText)
        self.assertIsInstance(wrap({"media_url": "https://m.example.com/a.mp3", "media_type": "audio"}), models.AnalysisCreateMediaUrl)

    def test_every_model_is_slotted_over_its_json(self) -> None:
        classes = [c for c in vars(models).values() if isinstance(c, type) and issubclass(c, Model) and c is not Model]
        self.assertGreater(len(classes), 150)
        for c in classes:
            self.assertEqual(c.__slots__, (), c.__name__)
            self.assertFalse(hasattr(c({}), "__dict__"), c.__name__)


class AsyncModelTest(ModelChecks):
    def client(self) -> analysis_api.AsyncClient:
        return analysis_api.AsyncClient("https://api.example.com", api_key="pk_test_models", transport=Answers())

    def test_an_answer_is_its_model(self) -> None:
        async def run() -> models.Analysis:
            async with self.client() as c:
                return await c.analyses.get(ANALYSIS["id"])

        analysis = asyncio.run(run())
        self.check_analysis(analysis)
        self.check_values(analysis)
        self.check_dict_access_warns(analysis)

    def test_pages_and_events(self) -> None:
        async def run() -> Any:
            async with self.client() as c:
                names = [s.name async for s in c.speakers.list()]
                page = await c.speakers.list()
                async with c.streaming.stream_analysis_events(ANALYSIS["id"]) as events:
                    return names, page, [e async for e in events]

        names, page, events = asyncio.run(run())
        self.assertEqual(names, ["Ada", "Grace"])
        self.assertIsInstance(pickle.loads(pickle.dumps(page)).data[1], models.Speaker)
        self.check_events(events)


if __name__ == "__main__":
    unittest.main()
