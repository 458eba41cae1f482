"""A scripted stand-in for the Gemini API (`models/*:streamGenerateContent?alt=sse`,
`:generateContent`, `:countTokens`), for driving the real Gemini CLI without a network
or a model.

The script is a list of turns: ``{"bash": "cmd"}`` (a run_shell_command call) or a final
text. Which turn a request gets is derived from the request (function responses since
its last user text), so a retried request stays in step. Requests that offer no tools
(Gemini CLI's own side calls: routing, next-speaker checks) get a short JSON text and
never consume the script. Every request is recorded. Standard library only.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DONE_TEXT = "Done."
USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}


@dataclass
class FakeGemini:
    script: list = field(default_factory=list)
    requests: list[tuple[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "FakeGemini":
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _send(self, ctype: str, data: bytes) -> None:
                self.send_response(200)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                fake._record(self.path, None)
                self._send("application/json", b"{}")

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {}
                fake._record(self.path, body)
                if ":countTokens" in self.path:
                    return self._send("application/json", b'{"totalTokens": 10}')
                chunk = fake._answer(body if isinstance(body, dict) else {})
                if ":streamGenerateContent" in self.path:
                    return self._send("text/event-stream", f"data: {json.dumps(chunk)}\r\n\r\n".encode())
                return self._send("application/json", json.dumps(chunk).encode())

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()

    def _record(self, path, body) -> None:
        with self._lock:
            self.requests.append((path, body))

    def main_requests(self) -> list[dict]:
        return [b for p, b in self.requests if isinstance(b, dict) and b.get("tools") and "generatecontent" in p.lower()]

    def _answer(self, body: dict) -> dict:
        contents = body.get("contents") or []
        if not body.get("tools"):
            part = {"text": json.dumps({"reasoning": "scripted", "next_speaker": "user", "model_choice": "flash"})}
        else:
            last_user = max((k for k, c in enumerate(contents) if c.get("role") == "user"
                             and any("text" in p for p in c.get("parts") or [])), default=-1)
            since = sum(1 for c in contents[last_user + 1:] for p in c.get("parts") or [] if "functionResponse" in p)
            turn = self.script[since] if since < len(self.script) else DONE_TEXT
            if isinstance(turn, dict) and "bash" in turn:
                part = {"functionCall": {"name": "run_shell_command", "args": {"command": turn["bash"]}}}
            else:
                part = {"text": str(turn)}
        return {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": USAGE}
