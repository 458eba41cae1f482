"""OpenClaw adapter: the events of cogit's OpenClaw plugin (templates/openclaw/).

OpenClaw hooks are in-process TypeScript; the plugin calls `cogit hook openclaw HOOK`
with `{"event": <the hook's event>, "ctx": <its context>}` on stdin. Session identity
is `ctx.sessionId` (else `ctx.sessionKey`), the project folder `ctx.workspaceDir`.

OpenClaw's session_start reaches no model: the digest goes in at the session's first
`before_prompt_build` as `appendSystemContext` (system context, never the user's
MEMORY.md; the plugin keeps it for the session's later turns), and every later
prompt gets only what changed in memory, as `prependContext`. `before_agent_start` is
the deprecated name of the same turn (the nox-cognitive seed's lifecycle).

A tool call failed when its `error` says so, or when its result's `details` do: the
exec tool reports a command that ran and exited non-zero as a result with
`details.exitCode` (1) and the text ending `(Command exited with code 1)`, no `error`
(seen from the real OpenClaw in tests/e2e/test_openclaw.py).

`openclaw agent --local` sends no session_start or session_end: the plugin ends the
sessions its process ran when the process exits (`session_end` with reason
`process_exit`), and every payload names the process (`process.pid`), so a session whose
process is gone is over at once, not after hooks.session_stale_minutes.
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


def _content_text(result: dict) -> str:
    content = result.get("content")
    if isinstance(content, list):
        return "\n".join(c["text"] for c in content[:64] if isinstance(c, dict) and isinstance(c.get("text"), str))
    return content if isinstance(content, str) else ""


def _exit_error(result) -> str | None:
    """The error text of a command that ran and failed, from the tool's result, else None."""
    if not isinstance(result, dict):
        return None
    details = result.get("details") if isinstance(result.get("details"), dict) else {}
    out = _text(details.get("aggregated")) or _content_text(result)
    code = details.get("exitCode")
    if _number(code) is not None:
        return f"Exit code {int(code)}\n{out}" if code != 0 else None
    signal = details.get("exitSignal")
    if isinstance(signal, str) and signal:
        return f"Killed by {signal[:32]}\n{out}"
    if details.get("status") in ("failed", "error"):
        return out or "the command failed"
    # A result without details: the text's own last line says how the command exited.
    tail = out[-200:].rstrip()
    i = tail.rfind("(Command exited with code ")
    if i >= 0 and tail.endswith(")"):
        digits = tail[i + 26 : -1]
        if digits.isdigit() and int(digits) != 0:
            return f"Exit code {int(digits)}\n{out}"
    return None


def _owner(payload: dict):
    proc = payload.get("process")
    pid = proc.get("pid") if isinstance(proc, dict) else None
    return pid if isinstance(pid, int) and not isinstance(pid, bool) and 1 < pid < 1 << 31 else None


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
    error = None
    if internal == "PostToolUse":
        error = _error(ev.get("error")) or (_exit_error(ev.get("result")) if tool == "Bash" else None)
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
        owner_pid=_owner(payload),
        # No reflexes: after_tool_call is observe-only and the plugin registers no
        # before_tool_call (it fails closed), so nothing would reach the model (docs/reflexes.md).
        pre_context=None,
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
