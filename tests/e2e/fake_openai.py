"""A scripted stand-in for the OpenAI Responses API (`POST /v1/responses`, streamed as
server-sent events), for driving the real Codex CLI without a network or a model.

The script is a list of turns: ``{"bash": "cmd"}`` (Codex's shell tool call),
``{"tool": NAME, "args": {...}}`` (any other function call) or a final text (a ``str``);
or a function of the request body that returns such a list (a model that acts on what
it was shown). Which turn a request gets is derived from the request (how many tool
outputs its input already holds), so a retried request stays in step. Every request is
recorded (path, parsed JSON body) so tests can assert what the model was shown.
Standard library only.
"""

from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DONE_TEXT = "Done."


@dataclass
class FakeOpenAI:
    script: list = field(default_factory=list)
    requests: list[tuple[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "FakeOpenAI":
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                fake._record(self.path, None)
                body = json.dumps({"object": "list", "data": [], "models": []}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                fake._record(self.path, body)
                if not self.path.rstrip("/").endswith("/responses"):
                    self.send_response(404)
                    self.send_header("content-length", "0")
                    self.end_headers()
                    return
                events = fake._events(body if isinstance(body, dict) else {})
                data = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

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
        return [b for p, b in self.requests if p.rstrip("/").endswith("/responses") and isinstance(b, dict) and b.get("tools")]

    def _events(self, body: dict) -> list[dict]:
        n = next(self._ids)
        items = body.get("input") or []
        done = sum(1 for i in items if isinstance(i, dict) and i.get("type") == "function_call_output")
        # A turn counts from the last user message of this request.
        users = [k for k, i in enumerate(items) if isinstance(i, dict) and i.get("role") == "user"]
        since_user = sum(1 for i in items[users[-1] + 1:] if isinstance(i, dict) and i.get("type") == "function_call_output") if users else done
        script = self.script(body) if callable(self.script) else self.script
        turn = script[since_user] if body.get("tools") and since_user < len(script) else DONE_TEXT
        rid = f"resp_{n}"
        out = [{"type": "response.created", "response": {"id": rid}}]
        if isinstance(turn, dict) and "bash" in turn:
            item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": "exec_command",
                    "arguments": json.dumps({"cmd": turn["bash"]})}
        elif isinstance(turn, dict) and "tool" in turn:
            item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": turn["tool"],
                    "arguments": json.dumps(turn.get("args") or {})}
        else:
            item = {"type": "message", "role": "assistant", "id": f"msg_{n}",
                    "content": [{"type": "output_text", "text": str(turn)}]}
        out.append({"type": "response.output_item.done", "item": item})
        out.append({"type": "response.completed", "response": {"id": rid, "usage": {
            "input_tokens": 10, "input_tokens_details": None, "output_tokens": 5,
            "output_tokens_details": None, "total_tokens": 15}}})
        return out
