"""A typed consumer of the client: what an integrator writes. `mypy --strict` checks it (.ci/run: the types are
precise enough to narrow an event on its kind and to catch a wrong field), and the tests run it against the mock.

    ANALYSIS_API_URL=http://127.0.0.1:4010 ANALYSIS_API_KEY=pk_test_demo_pro python3 python/examples/consumer.py
"""

from __future__ import annotations

import os
import sys
from itertools import islice
from typing import List

from analysis_api import ApiError, Client, RateLimit, Response, ValidationError
from analysis_api.models import Analysis, AnalysisCreate, AnalysisStreamEvent


def describe(event: AnalysisStreamEvent) -> str:
    """One line per event; each branch sees its own event type."""
    if event["event"] == "status":
        return f"status: {event['data']['status']} ({event['data']['progress']}%)"
    if event["event"] == "transcript.segment":
        segment = event["data"]
        speaker = segment["speaker_label"] or "?"
        return f"{segment['start']:7.1f}s {speaker}: {segment['text']}"
    if event["event"] == "signal":
        return f"signal: {event['data']['name']} = {event['data']['score']:.2f}"
    if event["event"] == "alert":
        return f"alert ({event['data']['severity']}): {event['data']['message']}"
    if event["event"] == "completed":
        analysis: Analysis = event["data"]
        return f"completed: {analysis['summary'] or '(no summary)'}"
    return f"error: {event['data']['detail']}"


def main(base_url: str, api_key: str) -> int:
    seen: List[RateLimit] = []

    def on_rate_limit(rate_limit: RateLimit, response: Response) -> None:
        seen.append(rate_limit)

    client = Client(base_url, api_key=api_key, on_rate_limit=on_rate_limit)
    request: AnalysisCreate = {"media_url": "https://media.example.com/calls/renewal.mp3", "media_type": "audio", "features": ["transcription", "summary"]}
    created = client.analyses.create(request)
    print(f"created {created['id']}: {created['status']}")
    for event in client.streaming.stream_analysis_events(created["id"]):
        print(describe(event))

    for analysis in islice(client.analyses.iter(status="completed"), 3):
        duration = analysis["duration_seconds"]
        print(f"{analysis['id']} {analysis['status']} {duration if duration is not None else '-'} s")

    try:
        client.analyses.get("not-an-analysis-id")
    except ValidationError as e:
        for item in e.errors:
            print("invalid:", ".".join(str(part) for part in item["loc"]), item["msg"])
    except ApiError as e:
        print("unexpected", e.status, e.detail)
        return 1

    if client.last_rate_limit is None or not seen:
        print("no rate-limit headers seen")
        return 1
    print(f"{client.last_rate_limit.remaining} of {client.last_rate_limit.limit} requests left this minute")
    return 0


if __name__ == "__main__":
    sys.exit(main(os.environ.get("ANALYSIS_API_URL", "http://127.0.0.1:4010"), os.environ.get("ANALYSIS_API_KEY", "pk_test_demo_pro")))
