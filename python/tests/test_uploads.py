"""Uploads (issue 23): bytes, binary files, `pathlib.Path` and `(name, file, content type)` tuples, streamed with a
computed Content-Length and resent from their start on a retry; anything else is a `TypeError`."""

from __future__ import annotations

import email.parser
import email.policy
import io
import tempfile
import tracemalloc
import unittest
from pathlib import Path
from typing import Any, Dict, List, Tuple

from support import Answer, FakeClock, FakeServer, Recorded, analysis_api, client

ANALYSIS = {"id": "anl_01HZX4A9B7C5D3E1F2G4H6J8K0", "status": "queued"}
AUDIO = bytes(range(256)) * 1000


def parts(request: Recorded) -> List[Tuple[str, Any, str, bytes]]:
    """(field name, file name, content type, content) of each part of a multipart request."""
    raw = f"Content-Type: {request.headers['Content-Type']}\r\n\r\n".encode() + request.body
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(raw)
    out = []
    for part in message.iter_parts():
        payload = part.get_payload(decode=True)
        out.append((part.get_param("name", header="content-disposition"), part.get_filename(), part.get_content_type(), payload))
    return out


class UploadTest(unittest.TestCase):
    def upload(self, fields: Dict[str, Any], answers: Any = None, **options: Any) -> FakeServer:
        with FakeServer(answers or [Answer(201, {}, ANALYSIS)]) as server:
            client(server.url, FakeClock(), **options).analyses.upload(fields)  # type: ignore[arg-type]
        return server

    def test_a_binary_file_is_sent_as_its_content(self) -> None:
        # 0.1 sent the text "<_io.BufferedReader name='x.mp3'>" as the file.
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "x.mp3"
            path.write_bytes(AUDIO)
            with open(path, "rb") as f:
                server = self.upload({"file": f, "title": "Call"})
        [file, title] = parts(server.requests[0])
        self.assertEqual(file, ("file", "x.mp3", "audio/mpeg", AUDIO))
        self.assertEqual(title[3], b"Call")

    def test_a_path_and_a_tuple_with_a_content_type(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "call.wav"
            path.write_bytes(AUDIO)
            server = self.upload({"file": path})
            self.assertEqual(parts(server.requests[0])[0][1:], ("call.wav", "audio/wav", AUDIO))
            with open(path, "rb") as f:
                server = self.upload({"file": ("renamed.wav", f, "audio/wav")})
        self.assertEqual(parts(server.requests[0])[0][1:], ("renamed.wav", "audio/wav", AUDIO))
        server = self.upload({"file": ("b.bin", AUDIO)})
        self.assertEqual(parts(server.requests[0])[0][1:], ("b.bin", "application/octet-stream", AUDIO))

    def test_the_content_type_is_guessed_from_the_file_name_or_given(self) -> None:
        # Issue 34: every file went as application/octet-stream, and the service took call.wav for a video.
        cases = [
            ({"file": ("call.mp4", AUDIO)}, ("call.mp4", "video/mp4")),
            ({"file": ("notes.txt", b"hello")}, ("notes.txt", "text/plain")),
            ({"file": AUDIO}, ("file", "application/octet-stream")),
            ({"file": analysis_api.File(AUDIO, filename="call.flac")}, ("call.flac", "audio/flac")),
            ({"file": analysis_api.File(AUDIO, content_type="audio/ogg")}, ("file", "audio/ogg")),
            ({"file": analysis_api.File(io.BytesIO(AUDIO), filename="x.mp3", content_type="audio/wav")}, ("x.mp3", "audio/wav")),
        ]
        for fields, expected in cases:
            with self.subTest(expected=expected):
                self.assertEqual(parts(self.upload(fields).requests[0])[0][1:3], expected)
        self.assertEqual(analysis_api.guess_content_type("CALL.MP3"), "audio/mpeg")

    def test_the_length_is_computed_and_not_chunked(self) -> None:
        f = io.BytesIO(b"skip" + AUDIO)
        f.read(4)  # a file is sent from where it stands
        server = self.upload({"file": f})
        request = server.requests[0]
        self.assertEqual(int(request.headers["Content-Length"]), len(request.body))
        self.assertNotIn("Transfer-Encoding", request.headers)
        self.assertEqual(parts(request)[0][3], AUDIO)

    def test_a_retry_sends_the_file_again_from_its_start(self) -> None:
        server = self.upload({"file": io.BytesIO(AUDIO)}, [Answer(503, {}, {"detail": "x"}), Answer(201, {}, ANALYSIS)])
        self.assertEqual(len(server.requests), 2)
        self.assertEqual(parts(server.requests[1])[0][3], AUDIO)
        self.assertEqual(server.requests[0].body, server.requests[1].body.replace(*self.boundaries(server)))

    @staticmethod
    def boundaries(server: FakeServer) -> Tuple[bytes, bytes]:
        b = [r.headers["Content-Type"].split("boundary=")[1].encode() for r in server.requests]
        return b[1], b[0]

    def test_anything_else_is_a_type_error_before_sending(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "t.txt"
            path.write_text("text")
            with open(path, "r", encoding="utf-8") as text:
                bad: List[Any] = [text, "a path as a string", 42, [b"x"], ("name",), ("n", "text")]
                with FakeServer([Answer(201, {}, ANALYSIS)]) as server:
                    for value in bad:
                        with self.assertRaises(TypeError, msg=repr(value)) as caught:
                            client(server.url).analyses.upload({"file": value})  # type: ignore[typeddict-item]
                        self.assertIn("'file'", str(caught.exception))
        self.assertEqual(server.requests, [])

    def test_memory_stays_flat_whatever_the_size(self) -> None:
        # The body is a list of segments: the caller's bytes are sent as they are (a memoryview) and files are read
        # 64 KiB at a time, so encoding and sending 16 MiB allocates far less than the file (0.1 made three copies).
        from analysis_api._http._bodies import encode_multipart

        big = b"\0" * (16 << 20)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "big.bin"
            path.write_bytes(big)
            for value in (big, path):
                tracemalloc.start()
                body = encode_multipart({"file": value, "title": "x"}, ("file",))
                payload = body.payload()
                assert not isinstance(payload, bytes) and payload is not None
                sent = sum(len(chunk) for chunk in payload)
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
                self.assertEqual(sent, body.length)
                self.assertLess(peak, 1 << 20, type(value).__name__)


if __name__ == "__main__":
    unittest.main()
