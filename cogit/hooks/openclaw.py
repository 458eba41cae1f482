"""OpenClaw adapter: the events of cogit's OpenClaw plugin (templates/openclaw/).

OpenClaw hooks are in-process TypeScript; the plugin calls `cogit hook openclaw HOOK`
with `{"event": <the hook's event>, "ctx": <its context>}` on stdin. Session identity
is `ctx.sessionId` (else `ctx.sessionKey`), the project folder `ctx.workspaceDir`.

OpenClaw's session_start reaches no model: the digest goes in at the session's first
`before_prompt_build` as `appendSystemContext` (system context, never the user's
MEMORY.md; the plugin keeps it for the session's later turns), and every later
prompt gets only what changed in memory, as `prependContext`. `before_agent_start` is
the deprecated name of the same turn (the nox-cognitive seed's lifecycle).
"""


from cogit import jsonio
from cogit.hooks.payload import _number, _path, _str, _text, event, max_payload, read_payload, session_id

EVENTS = {
    "session_start": "SessionStart",
    "before_prompt_build": "UserPromptSubmit",
    "before_agent_start": "UserPromptSubmit",
    "before_tool_call": "PreToolUse",
    "after_tool_call": "PostToolUse",
    "agent_end": "Stop",
    "before_compaction": "PreCompact",
    "session_end": "SessionEnd",
}
PROMPT_EVENTS = {"before_prompt_build", "before_agent_start"}
# OpenClaw's core tools -> the names the senses know (cogit/senses/call.py)
TOOLS = {"exec": "Bash", "bash": "Bash", "process": "Bash", "read": "Read", "write": "Write", "edit": "Edit",
         "apply_patch": "Edit", "web_fetch": "WebFetch", "web_search": "WebSearch", "grep": "Grep",
         "find": "Glob", "ls": "LS"}


def _error(value) -> str | None:
    if isinstance(value, dict):
        value = value.get("message")
    return value if isinstance(value, str) and value else None


def to_event(name: str, payload: dict) -> dict:
    if name not in EVENTS:
        raise ValueError(f"unknown OpenClaw hook {name!r}")
    ev = payload.get("event") if isinstance(payload.get("event"), dict) else {}
    ctx = payload.get("ctx") if isinstance(payload.get("ctx"), dict) else {}
    sid = ctx.get("sessionId") or ev.get("sessionId") or ctx.get("sessionKey") or ev.get("sessionKey")
    internal = EVENTS[name]
    tool = _str(ev.get("toolName") or ctx.get("toolName"))
    tool = TOOLS.get(tool, tool) if tool else tool
    params = ev.get("params") if isinstance(ev.get("params"), dict) else {}
    if "file_path" not in params and isinstance(params.get("path"), str) and tool in ("Read", "Write", "Edit"):
        params = dict(params, file_path=params["path"])
    error = _error(ev.get("error")) if internal == "PostToolUse" else None
    if error is not None:
        internal = "PostToolUseFailure"
    return event(
        "openclaw",
        internal,
        session_id(sid, "ctx.sessionId"),
        cwd=_path(ctx.get("workspaceDir")),
        source="resume" if ev.get("resumedFrom") else None,
        prompt=_text(ev.get("prompt")),
        tool_name=tool,
        tool_input=params,
        tool_response=ev.get("result"),
        error=error,
        tool_use_id=_str(ev.get("toolCallId") or ctx.get("toolCallId")),
        duration_ms=_number(ev.get("durationMs")),
        reason=_str(ev.get("reason")),
        digest_at_first_prompt=True,
    )


def render(name: str, ev: dict, context: str | None) -> str:
    if name not in PROMPT_EVENTS or not context:
        return ""
    reply = ev.get("reply") or {}
    out = {}
    if reply.get("digest"):
        out["appendSystemContext"] = reply["digest"]
    turn = "\n\n".join(t for t in (reply.get("update"), reply.get("note")) if t)
    if turn:
        out["prependContext"] = turn
    return jsonio.dumps(out) if out else ""


def main(name: str, stream, home_root: str) -> str:
    from cogit.hooks import core

    ev = to_event(name, read_payload(stream, max_payload(home_root)))
    return render(name, ev, core.handle(ev, home_root))
