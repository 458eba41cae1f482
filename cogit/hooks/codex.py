"""OpenAI Codex CLI adapter (hooks.json in ~/.codex or <repo>/.codex).

Codex's payloads copy Claude Code's (snake_case, plus `turn_id`, `model`,
`permission_mode`; `transcript_path` may be null), and so does its reply:
`hookSpecificOutput.additionalContext` with `hookEventName` equal to the event.
Its output schemas allow no other keys, and its validator rejects a bare
`{"continue": true}` from SessionStart, so cogit answers with `additionalContext` when
it has something to say and with nothing at all otherwise (an empty `additionalContext`
reached the model as an empty developer message on every prompt).

Codex has no failure event: a failed tool call fires no PostToolUseFailure. Codex
0.171 (tests/e2e/test_codex.py) sends a shell call as `tool_name: "Bash"`,
`tool_input: {"command": "..."}` and `tool_response` as the command's output, a plain
string with no exit code, so a command that exited non-zero looks like a success and
the repeated-failure sense stays quiet on Codex; the other senses work as on Claude
Code. A `tool_response` object with a non-zero `exit_code` (documented for some
tools) is taken as a failure.
"""


from cogit import jsonio
from cogit.hooks.payload import _number, _path, _str, _text, event, max_payload, read_payload, session_id

# Codex event -> the core's event
EVENTS = {
    "SessionStart": "SessionStart",
    "UserPromptSubmit": "UserPromptSubmit",
    "PreToolUse": "PreToolUse",
    "PostToolUse": "PostToolUse",
    "Stop": "Stop",
    "SubagentStop": "SubagentStop",
    "PreCompact": "PreCompact",
    "SessionEnd": "SessionEnd",
}
CONTEXT_EVENTS = {"SessionStart", "UserPromptSubmit", "PostToolUse"}
# Codex's tool names -> the names the senses know (cogit/senses/call.py)
TOOLS = {"shell": "Bash", "local_shell": "Bash", "exec_command": "Bash", "container.exec": "Bash",
         "apply_patch": "Edit", "read_file": "Read", "list_dir": "LS", "grep_files": "Grep"}


def _command(tool_input: dict) -> dict:
    cmd = tool_input.get("command")
    if isinstance(cmd, list) and all(isinstance(a, str) for a in cmd[:64]):
        # ["bash", "-lc", "pytest -q"]: the script is what the senses read
        cmd = cmd[-1] if len(cmd) >= 3 and cmd[1] in ("-c", "-lc") else " ".join(cmd[:64])
        return dict(tool_input, command=cmd)
    return tool_input


def _exit_failure(response) -> str | None:
    """The error text of a shell call that exited non-zero, else None."""
    if not isinstance(response, dict):
        return None
    code = response.get("exit_code", response.get("exitCode"))
    if _number(code) is None or code == 0:
        return None
    out = _text(response.get("stderr")) or _text(response.get("output")) or _text(response.get("stdout")) or ""
    return f"Exit code {int(code)}\n{out}"


def to_event(name: str, payload: dict) -> dict:
    if name not in EVENTS:
        raise ValueError(f"unknown Codex event {name!r}")
    internal = EVENTS[name]
    tool_input = payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {}
    tool = _str(payload.get("tool_name"))
    tool = TOOLS.get(tool, tool) if tool else tool
    if tool == "Bash":
        tool_input = _command(tool_input)
    response = payload.get("tool_response")
    error = _exit_failure(response) if internal == "PostToolUse" else None
    if error is not None:
        internal = "PostToolUseFailure"
    return event(
        "codex",
        internal,
        session_id(payload.get("session_id")),
        cwd=_path(payload.get("cwd")),
        source=_str(payload.get("source")),
        model=_str(payload.get("model")),
        prompt=_text(payload.get("prompt")),
        tool_name=tool,
        tool_input=tool_input,
        tool_response=response,
        error=error,
        tool_use_id=_str(payload.get("tool_use_id")),
        duration_ms=_number(payload.get("duration_ms")),
        reason=_str(payload.get("reason")),
        trigger=_str(payload.get("trigger")),
    )


def render(name: str, context: str | None) -> str:
    if context and name in CONTEXT_EVENTS:
        return jsonio.dumps({"hookSpecificOutput": {"hookEventName": name, "additionalContext": context}})
    return ""


def main(name: str, stream, home_root: str) -> str:
    from cogit.hooks import core

    ev = to_event(name, read_payload(stream, max_payload(home_root)))
    return render(name, core.handle(ev, home_root))
