"""The Python row of `npm run bench` (scripts/bench/client/python.ts starts it with a loopback server's URL).

    python3 scripts/bench/client/python_client.py calls URL ROUNDS CALLS   sequential calls/s: the client vs http.client by hand
    python3 scripts/bench/client/python_client.py pages URL ROUNDS         items/s over a 1,000-item list: page iteration vs a cursor loop by hand
    python3 scripts/bench/client/python_client.py upload URL KIND MIB      peak RSS of one upload (KIND: bytes, path, none)

Prints one JSON object. "By hand" is what a careful integrator writes without the client: one `http.client`
connection kept alive, the same headers, the JSON parsed.
"""

from __future__ import annotations

import http.client
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "python" / "src"))

import analysis_api  # noqa: E402

ANALYSIS_ID = "anl_01HZX4A9B7C5D3E1F2G4H6J8K0"


def by_hand(url: str) -> Callable[[], Any]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    headers = {"X-API-Key": "pk_test_bench", "User-Agent": "bench", "Accept-Encoding": "gzip"}

    def call() -> Any:
        conn.request("GET", f"/v1/analyses/{ANALYSIS_ID}", headers=headers)
        response = conn.getresponse()
        body = response.read()
        if response.status != 200:
            raise RuntimeError(f"by hand: {response.status}")
        return json.loads(body)

    return call


def calls(url: str, rounds: int, n: int) -> Dict[str, Any]:
    client = analysis_api.Client(url, api_key="pk_test_bench")
    hand = by_hand(url)
    # Each reads the status, as a caller does: the client's model (attribute access, PY30) against the dict by hand.
    variants: Dict[str, Callable[[], Any]] = {"client": lambda: client.analyses.get(ANALYSIS_ID).status, "byHand": lambda: hand()["status"]}
    samples: Dict[str, List[float]] = {k: [] for k in variants}
    for name, call in variants.items():
        for _ in range(200):
            call()  # warm up
    for r in range(rounds):
        order = list(variants) if r % 2 == 0 else list(reversed(variants))
        for name in order:
            call = variants[name]
            t0 = time.perf_counter()
            for _ in range(n):
                call()
            samples[name].append(n / (time.perf_counter() - t0))
    per_call = interleaved(variants, rounds * n // 2)
    client.close()
    return {"rounds": rounds, "calls": n, "samples": samples, "perCallMicros": per_call}


def interleaved(variants: Dict[str, Callable[[], Any]], n: int) -> Dict[str, float]:
    """Median µs per call, the variants taking turns call by call (the first one alternating): steadier than
    rounds on a busy machine, whose bursts then hit both alike."""
    times: Dict[str, List[int]] = {k: [] for k in variants}
    names = list(variants)
    clock = time.perf_counter_ns
    for i in range(n):
        for name in names if i % 2 else reversed(names):
            t0 = clock()
            variants[name]()
            times[name].append(clock() - t0)
    return {k: sorted(v)[len(v) // 2] / 1000 for k, v in times.items()}


def cursor_loop_by_hand(url: str) -> Callable[[], int]:
    """What an integrator writes without the client: follow `next_cursor` while `has_more`, one connection."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    headers = {"X-API-Key": "pk_test_bench", "User-Agent": "bench", "Accept-Encoding": "gzip"}

    def walk() -> int:
        ids = []
        cursor = None
        while True:
            conn.request("GET", "/v1/analyses?limit=100" + (f"&cursor={cursor}" if cursor else ""), headers=headers)
            response = conn.getresponse()
            page = json.loads(response.read())
            if response.status != 200:
                raise RuntimeError(f"by hand: {response.status}")
            ids.extend(item["id"] for item in page["data"])
            if not page["has_more"]:
                return len(ids)
            cursor = page["next_cursor"]

    return walk


def pages(url: str, rounds: int, walks: int = 5) -> Dict[str, Any]:
    """Items per second walking a 1,000-item list (10 pages of 100): `for item in client.analyses.list(limit=100)`
    against the cursor loop by hand, in alternating rounds of `walks` walks each (one walk is ~5 ms: a round of one
    was a single burst of the machine's), then the two taking turns walk by walk (the median µs of each)."""
    client = analysis_api.Client(url, api_key="pk_test_bench")
    variants: Dict[str, Callable[[], int]] = {
        "client": lambda: len([item.id for item in client.analyses.list(limit=100)]),  # models (PY30)
        "byHand": cursor_loop_by_hand(url),
    }
    samples: Dict[str, List[float]] = {k: [] for k in variants}
    for call in variants.values():
        for _ in range(5):
            assert call() == 1000, "the bench server's list is 1,000 items"
    for r in range(rounds):
        for name in list(variants) if r % 2 == 0 else list(reversed(variants)):
            walk = variants[name]
            t0 = time.perf_counter()
            items = sum(walk() for _ in range(walks))
            samples[name].append(items / (time.perf_counter() - t0))
    per_walk = interleaved(variants, rounds * walks)
    client.close()
    return {"rounds": rounds, "walks": walks, "samples": samples, "perWalkMicros": per_walk}


def upload(url: str, kind: str, mib: int) -> Dict[str, Any]:
    """Peak RSS (KiB) of this process after one upload of `mib` MiB, and its RSS before the file was made."""
    client = analysis_api.Client(url, api_key="pk_test_bench", timeout=120)
    client.health.get_gateway()  # everything imported and one call made: the constant part
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    size = mib << 20
    if kind == "bytes":
        data = b"\0" * size
        client.analyses.upload({"file": ("big.bin", data)})
    elif kind == "path":
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "big.bin"
            with open(path, "wb") as f:
                f.truncate(size)  # a sparse file: its pages are never in this process's memory
            client.analyses.upload({"file": path})
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"kind": kind, "mib": mib, "rssBeforeKiB": before, "peakKiB": peak}


if __name__ == "__main__":
    what, url = sys.argv[1], sys.argv[2]
    if what == "calls":
        print(json.dumps(calls(url, int(sys.argv[3]), int(sys.argv[4]))))
    elif what == "pages":
        print(json.dumps(pages(url, int(sys.argv[3]))))
    else:
        print(json.dumps(upload(url, sys.argv[3], int(sys.argv[4]))))
