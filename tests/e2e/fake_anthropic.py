"""A scripted stand-in for the Anthropic Messages API, for driving the real
Claude Code CLI in tests without a network or a model.

The script is a list of turns. Each turn is either a tool call, ``{"bash": "cmd"}``,
or a final text (a plain ``str``). The n-th *main conversation* request gets the
n-th turn; once the script is used up every further main request gets "Done.".

Which turn a request gets is derived from the request itself (the number of
assistant messages it already contains), not from a counter. That keeps the
script in step even if Claude Code retries a request or sends an extra copy.

Side requests (no ``tools`` in the body: quota probes, title generation, topic
detection...) never consume the script; they get a short harmless text.

Every request is recorded (method, path, parsed JSON body) so tests can assert
what the model was shown. Standard library only.
"""

from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Turn = dict | str
SIDE_TEXT = "ok"
DONE_TEXT = "Done."


@dataclass
class Recorded:
    method: str
    path: str
    body: Any  # parsed JSON, or the raw text if it was not JSON, or None
    main: bool = False  # a main-conversation /v1/messages request


@dataclass
class FakeAnthropic:
    script: list[Turn] = field(default_factory=list)  # may be set after start()
    requests: list[Recorded] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------
    def start(self) -> "FakeAnthropic":
        fake = self

        class Handler(_Handler):
            owner = fake

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "FakeAnthropic":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    # -- what tests look at ------------------------------------------------
    @property
    def main_requests(self) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.main]

    def dump(self) -> str:
        """All recorded bodies as one JSON string: handy for `in` assertions."""
        with self._lock:
            return json.dumps([r.body for r in self.requests], ensure_ascii=False)

    # -- the model ---------------------------------------------------------
    def _record(self, rec: Recorded) -> None:
        with self._lock:
            self.requests.append(rec)

    def reply_for(self, body: dict) -> dict:
        """The assistant message (content + stop_reason) to answer `body` with."""
        if not body.get("tools"):
            return {"content": [{"type": "text", "text": SIDE_TEXT}], "stop_reason": "end_turn"}
        done = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        turn = self.script[done] if done < len(self.script) else DONE_TEXT
        if isinstance(turn, str):
            return {"content": [{"type": "text", "text": turn}], "stop_reason": "end_turn"}
        (tool, arg), = turn.items()
        if tool == "bash":
            name, tool_input = "Bash", {"command": arg, "description": "run"}
        elif tool == "tool":  # any tool by name, e.g. an MCP server's mcp__cogit__search
            name, tool_input = arg["name"], arg["input"]
        else:
            raise ValueError(f"unsupported scripted tool: {turn!r}")
        block = {
            "type": "tool_use",
            "id": f"toolu_{next(self._ids):04d}",
            "name": name,
            "input": tool_input,
        }
        return {"content": [block], "stop_reason": "tool_use"}


_msg_ids = itertools.count()


def _message(reply: dict, model: str) -> dict:
    return {
        # Unique per reply: Claude Code merges streamed blocks that share a
        # message id, so a constant id glues all turns into one assistant message.
        "id": f"msg_fake{next(_msg_ids):04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": reply["content"],
        "stop_reason": reply["stop_reason"],
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def _sse(reply: dict, model: str) -> bytes:
    """The reply as the Messages API's server-sent event stream."""
    start = _message({"content": [], "stop_reason": None}, model)
    start["usage"]["output_tokens"] = 1
    events: list[tuple[str, dict]] = [("message_start", {"type": "message_start", "message": start})]
    for i, block in enumerate(reply["content"]):
        if block["type"] == "text":
            opening = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            opening = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            ("content_block_start", {"type": "content_block_start", "index": i, "content_block": opening}),
            ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": i}),
        ]
    events += [
        ("message_delta", {
            "type": "message_delta",
            "delta": {"stop_reason": reply["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": 5},
        }),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


class _Handler(BaseHTTPRequestHandler):
    owner: FakeAnthropic
    # HTTP/1.1 so the client may keep connections alive; every reply carries
    # a Content-Length (the whole SSE stream is known up front).
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:  # keep pytest output clean
        pass

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _send(self, status: int, payload: bytes, ctype: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("request-id", "req_fake")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj).encode())

    def do_POST(self) -> None:
        body = self._body()
        path = self.path.split("?", 1)[0]
        if path == "/v1/messages" and isinstance(body, dict):
            main = bool(body.get("tools"))
            self.owner._record(Recorded("POST", self.path, body, main))
            model = body.get("model", "claude-fake")
            reply = self.owner.reply_for(body)
            if body.get("stream"):
                self._send(200, _sse(reply, model), "text/event-stream")
            else:
                self._json(200, _message(reply, model))
            return
        self.owner._record(Recorded("POST", self.path, body))
        if path == "/v1/messages/count_tokens":
            # Rough but plausible: Claude Code only uses it for budgeting.
            self._json(200, {"input_tokens": max(1, len(json.dumps(body)) // 4)})
            return
        self._not_found()

    def do_GET(self) -> None:
        self.owner._record(Recorded(self.command, self.path, None))
        self._not_found()

    do_HEAD = do_GET

    def _not_found(self) -> None:
        # The API's error shape, so a client that probes an optional endpoint
        # sees an ordinary "not found" and carries on.
        self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": "not in the fake"}})
