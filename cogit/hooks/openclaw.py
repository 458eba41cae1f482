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

Reflexes (docs/reflexes.md): OpenClaw gives a plugin no way to add context before a tool
call (before_tool_call can change the params, block, or ask for approval: nothing else
reaches the model). So the plugin's before_tool_call only decides the block
(`reflex.block_repeats`: `{"block": true, "blockReason": <the rule and its fix>}`), and the
reflex about a call is decided and given with that call's result (so a result that never
comes through the middleware leaves no receipt of a reflex nobody read). The
result goes through the plugin's agent-tool-result middleware (`tool_result` here), which
replaces the result the model reads next: the call is recorded there (PostToolUse) and
the reply `{"appendText": ...}` is added to the result. after_tool_call is then only the
record of a call the middleware did not see (observe-only: no reflex through it).
"""


from cogit import jsonio
from cogit.hooks.payload import _number, _path, _str, _text, event, max_payload, read_payload, session_id

EVENTS = {
    "session_start": "SessionStart",
    "before_prompt_build": "UserPromptSubmit",
    "before_agent_start": "UserPromptSubmit",
    "before_tool_call": "PreToolUse",
    "after_tool_call": "PostToolUse",
    "tool_result": "PostToolUse",
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
        if error is None and name == "tool_result" and ev.get("isError") is True:
            result = ev.get("result") if isinstance(ev.get("result"), dict) else {}
            error = _content_text(result)[:4000] or "the tool failed"
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
        # before_tool_call reaches no model: its reflex waits for the call's result, which
        # only the tool_result middleware can change (after_tool_call is observe-only).
        pre_context="result" if name in ("before_tool_call", "tool_result") else None,
    )


def render(name: str, ev: dict, context: str | None) -> str:
    if not context:
        return ""
    if name == "before_tool_call":
        # Only a block (this machine's reflex.block_repeats): the model reads the reason as the call's result.
        return jsonio.dumps({"block": True, "blockReason": context}) if ev.get("deny") else ""
    if name == "tool_result":
        return jsonio.dumps({"appendText": context})
    if name not in PROMPT_EVENTS:
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
