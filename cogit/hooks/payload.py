"""What every adapter needs from a hook payload: read it bounded, pick fields by type.

Standard library only (the hook path). An adapter turns its agent's payload into the
core's internal event (a dict with the keys of `event()` below) and the core's reply
into the one output form its agent accepts.
"""


from cogit import bounds, jsonio

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


def _number(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


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
    if _lone_surrogate(payload):
        # A `\ud800` escape alone is a lone surrogate: no UTF-8 file (the session's state) or
        # commit could hold it, so every later event of the session would fail. U+FFFD instead.
        payload = _whole(payload)
    return payload


def _lone_surrogate(value) -> bool:
    """Whether a parsed payload holds a string UTF-8 cannot encode. Looked for in the parsed
    strings, not in the text: `"\\ud" in text` took 2.5 ms a search on a 4 MB payload, and an
    ASCII string (most of them, and a 4 MB base64 blob) is known to be one without a look."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if not v.isascii():
                try:
                    v.encode("utf-8")
                except UnicodeEncodeError:
                    return True
        elif isinstance(v, dict):
            stack.extend(v)
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def _whole(value):
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
    if isinstance(value, dict):
        return {_whole(k): _whole(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_whole(v) for v in value]
    return value


def session_id(value, what: str = "session_id") -> str:
    session = _text(value)
    if not session:
        raise ValueError(f"payload has no {what}")
    if len(session) > bounds.NAME:
        raise ValueError(f"{what} over {bounds.NAME} characters")
    return session


def event(agent: str, name: str, session: str, **fields) -> dict:
    """The core's internal event: every key present, unknown ones None. `name` is one of
    the core's events (cogit/hooks/core.py HANDLERS), which are Claude Code's names."""
    out = {
        "agent": agent,
        "event": name,
        "session_id": session,
        "cwd": None,
        "source": None,
        "model": None,
        "prompt": None,
        "tool_name": None,
        "tool_input": {},
        "tool_response": None,
        "error": None,
        "tool_use_id": None,
        "duration_ms": None,
        "reason": None,
        "trigger": None,
        "failed": name == "PostToolUseFailure",
        # Agents that inject nothing at session start (OpenClaw) get the whole digest
        # at the first prompt of a session, then only what changed.
        "digest_at_first_prompt": False,
        # The agent's process, when the adapter knows it (OpenClaw's plugin sends it): a
        # session whose process is gone is over (cogit/runtime.py owner_gone).
        "owner_pid": None,
        # Where a reflex before a tool call goes (cogit/hooks/reflex.py): True, the pre-tool
        # reply reaches the model; False, with the call's result; "result", only a block
        # before the call, the reflex decided and given at its result (OpenClaw); None, no channel.
        "pre_context": True,
    }
    out.update(fields)
    return out


def max_payload(home_root: str) -> int:
    from cogit.hooks import core

    return int(core.settings(home_root).get("hooks", {}).get("max_payload_bytes", DEFAULT_MAX_PAYLOAD))
