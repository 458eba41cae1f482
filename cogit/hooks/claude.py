"""Claude Code adapter: its payload -> one internal event; a reply -> its output JSON.

Field names are the ones Claude Code really sends (see docs/claude-code.md and
shared/reference/claude-code-observed.md): a failed tool call arrives as
`PostToolUseFailure` with a string `error` and no `tool_response`.
"""

from __future__ import annotations

from cogit import bounds, jsonio

EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "SessionEnd",
)
# Events whose additionalContext reaches the model.
CONTEXT_EVENTS = {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure"}
DEFAULT_MAX_PAYLOAD = 4_000_000


def _str(value, limit: int = bounds.NAME) -> str | None:
    """A short string field, cut to `limit` (long texts, the prompt and the error, are cut
    where they are analysed: cogit/bounds.py)."""
    return value[:limit] if isinstance(value, str) else None


def _text(value) -> str | None:
    return value if isinstance(value, str) else None


def _path(value) -> str | None:
    """A path; one longer than bounds.PATH names no real directory and is dropped."""
    return value if isinstance(value, str) and len(value) <= bounds.PATH else None


def read_payload(stream, limit: int = DEFAULT_MAX_PAYLOAD) -> dict:
    data = stream.read(limit + 1)
    if len(data) > limit:
        while stream.read(1 << 20):  # drain, so the writer never blocks on a full pipe
            pass
        raise ValueError(f"payload over {limit} bytes; ignored")
    if not data or data.isspace():  # (no strip(): it would copy 4 MB)
        raise ValueError("empty payload")
    text = data.decode("utf-8")
    del data  # a 4 MB payload: hold the bytes, the text and the parsed value no longer than needed
    payload = jsonio.loads(text)
    del text
    if not isinstance(payload, dict):
        raise ValueError("payload is not a JSON object")
    return payload


def to_event(name: str, payload: dict) -> dict:
    if name not in EVENTS:
        raise ValueError(f"unknown Claude Code event {name!r}")
    session = _text(payload.get("session_id"))
    if not session:
        raise ValueError("payload has no session_id")
    if len(session) > bounds.NAME:
        raise ValueError(f"session_id over {bounds.NAME} characters")
    duration = payload.get("duration_ms")
    return {
        "agent": "claude-code",
        "event": name,
        "session_id": session,
        "cwd": _path(payload.get("cwd")),
        "source": _str(payload.get("source")),
        "model": _str(payload.get("model")),
        "prompt": _text(payload.get("prompt")),
        "tool_name": _str(payload.get("tool_name")),
        "tool_input": payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {},
        "tool_response": payload.get("tool_response"),
        "error": _text(payload.get("error")),
        "tool_use_id": _str(payload.get("tool_use_id")),
        "duration_ms": duration if isinstance(duration, (int, float)) and not isinstance(duration, bool) else None,
        "reason": _str(payload.get("reason")),
        "trigger": _str(payload.get("trigger")),
        "failed": name == "PostToolUseFailure",
    }


def render(name: str, context: str | None, notice: str | None = None) -> str:
    """The reply: `additionalContext` reaches the model; `systemMessage` is shown to the user."""
    if not context or name not in CONTEXT_EVENTS:
        return jsonio.dumps({"systemMessage": notice}) if notice else ""
    reply = {"hookSpecificOutput": {"hookEventName": name, "additionalContext": context}}
    if notice:
        reply["systemMessage"] = notice
    return jsonio.dumps(reply)


def main(name: str, stream, home_root: str) -> str:
    from cogit.hooks import core

    limit = core.settings(home_root).get("hooks", {}).get("max_payload_bytes", DEFAULT_MAX_PAYLOAD)
    event = to_event(name, read_payload(stream, int(limit)))
    context = core.handle(event, home_root)
    return render(name, context, event.get("notice"))
