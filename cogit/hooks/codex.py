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
string with no exit code. The exit code is read, in this order, from:

1. a `tool_response` object with `exit_code` (documented for some tools), or a string
   that is Codex's own JSON (`{"output", "metadata": {"exit_code"}}`) or its exec
   header (`Process exited with code N`);
2. the session's rollout record (`transcript_path`): Codex writes the call's
   `item_completed` event, with `exit_code`, before it runs PostToolUse (seen every
   time with 0.171). The path comes from the payload, so it is read as hostile data:
   a regular file named `rollout-*.jsonl` only (no FIFO, device or symlink), its last
   ROLLOUT_TAIL bytes only, one line parsed, and only an `item_completed` event of a
   `CommandExecution` whose `id` is this call's counts;
3. the output text's own ending (cogit/hooks/shell_output.py): an uncaught exception,
   the shell's complaint, a test summary with failures... never the mere word "error".

A found exit code is final both ways: 0 is a success whatever the output says.
"""


import os
import stat

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
CONTEXT_EVENTS = {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"}
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


ROLLOUT_TAIL = 1 << 20  # bytes of the rollout record read: the current call is at its end
ROLLOUT_LINES = 16  # lines naming the call looked at, newest first
_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.|:")


def _code(value) -> int | None:
    return int(value) if _number(value) is not None and value == int(value) else None


def _from_response(response) -> tuple[int | None, str]:
    """(exit code or None, output text) of what Codex sent as the tool's response."""
    if isinstance(response, dict):
        out = _text(response.get("stderr")) or _text(response.get("output")) or _text(response.get("stdout")) or ""
        return _code(response.get("exit_code", response.get("exitCode"))), out
    if not isinstance(response, str):
        return None, ""
    if response.startswith('{"output"') and len(response) < 4_000_000:
        # The `shell` tool's own answer, JSON in a string: {"output", "metadata": {"exit_code"}}
        try:
            data = jsonio.loads(response)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("metadata"), dict):
            return _code(data["metadata"].get("exit_code")), _text(data.get("output")) or ""
    if response.startswith("Chunk ID: "):
        # unified exec's header: Chunk ID, Wall time, Process exited with code N, ..., Output:
        head = response[:400]
        i = head.find("\nProcess exited with code ")
        if i >= 0:
            digits = head[i + 26:].split("\n", 1)[0].strip()
            body = response.split("\nOutput:\n", 1)
            if digits.lstrip("-").isdigit():
                return int(digits), body[1] if len(body) == 2 else response
    return None, response


def rollout_exit_code(path, call_id) -> int | None:
    """The exit code Codex recorded for call `call_id` in the rollout record at `path`,
    or None (no such record, not written yet, or anything unexpected)."""
    if not isinstance(path, str) or not isinstance(call_id, str) or not call_id or len(call_id) > 128:
        return None
    name = path.rsplit("/", 1)[-1]
    if not (name.startswith("rollout-") and name.endswith(".jsonl")) or not all(c in _ID_CHARS for c in call_id):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NOCTTY)
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        start = max(0, info.st_size - ROLLOUT_TAIL)
        data = os.pread(fd, ROLLOUT_TAIL, start)
    except OSError:
        return None
    finally:
        os.close(fd)
    needle = f'"id":"{call_id}"'.encode()
    pos, seen = len(data), 0
    while seen < ROLLOUT_LINES and (pos := data.rfind(needle, 0, pos)) >= 0:
        seen += 1
        begin = data.rfind(b"\n", 0, pos) + 1
        end = data.find(b"\n", pos)
        pos = begin
        if end < 0 or (begin == 0 and start > 0) or b'"item_completed"' not in data[begin:end]:
            continue  # a line still being written, cut by the tail, or another event
        try:
            line = jsonio.loads(data[begin:end].decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        body = line.get("payload") if isinstance(line, dict) else None
        item = body.get("item") if isinstance(body, dict) else None
        if (isinstance(item, dict) and body.get("type") == "item_completed" and item.get("id") == call_id
                and item.get("type") == "CommandExecution"):
            return _code(item.get("exit_code"))
    return None


def _exit_failure(response, tool=None, transcript=None, call_id=None) -> str | None:
    """The error text of a shell call that exited non-zero, else None."""
    code, out = _from_response(response)
    if code is None and tool == "Bash":
        code = rollout_exit_code(transcript, call_id)
        if code is None:
            from cogit.hooks import shell_output

            return out if shell_output.failed(out) else None
    if code is None or code == 0:
        return None
    return f"Exit code {code}\n{out}"


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
    error = None
    if internal == "PostToolUse":
        error = _exit_failure(response, tool, payload.get("transcript_path"), payload.get("tool_use_id"))
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


def render(name: str, context: str | None, deny: bool = False) -> str:
    if context and deny and name == "PreToolUse":
        # Codex's schema: a deny needs a non-empty permissionDecisionReason (the rule and its fix).
        return jsonio.dumps({"hookSpecificOutput": {"hookEventName": name, "permissionDecision": "deny",
                                                    "permissionDecisionReason": context}})
    if context and name in CONTEXT_EVENTS:
        return jsonio.dumps({"hookSpecificOutput": {"hookEventName": name, "additionalContext": context}})
    return ""


def main(name: str, stream, home_root: str) -> str:
    from cogit.hooks import core

    ev = to_event(name, read_payload(stream, max_payload(home_root)))
    return render(name, core.handle(ev, home_root), bool(ev.get("deny")))
