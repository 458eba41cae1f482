"""Gemini CLI adapter (the `hooks` object of ~/.gemini/settings.json or <repo>/.gemini/settings.json).

Payloads carry `session_id`, `transcript_path`, `cwd`, `hook_event_name`, `timestamp`;
BeforeAgent adds `prompt`; BeforeTool/AfterTool add `tool_name`, `tool_input`, and
AfterTool `tool_response{llmContent, returnDisplay, error}` (a shell command that ran and
failed has no `error`: its llmContent ends in `Exit Code: N`). Context reaches the model
through `hookSpecificOutput.additionalContext` on SessionStart, BeforeAgent (appended to
this turn's prompt) and AfterTool (appended to the tool result). Stdout must be that
JSON and nothing else: any other text would become a `systemMessage`.
"""


from cogit import jsonio
from cogit.hooks.payload import _path, _str, _text, event, max_payload, read_payload, session_id

EVENTS = {
    "SessionStart": "SessionStart",
    "BeforeAgent": "UserPromptSubmit",
    "BeforeTool": "PreToolUse",
    "AfterTool": "PostToolUse",
    "AfterAgent": "Stop",
    "PreCompress": "PreCompact",
    "Notification": "Stop",
    "SessionEnd": "SessionEnd",
}
CONTEXT_EVENTS = {"SessionStart", "BeforeAgent", "AfterTool"}
# Gemini CLI's built-in tools -> the names the senses know (cogit/senses/call.py)
TOOLS = {"run_shell_command": "Bash", "read_file": "Read", "read_many_files": "Read", "write_file": "Write",
         "replace": "Edit", "edit": "Edit", "glob": "Glob", "search_file_content": "Grep", "grep_search": "Grep",
         "list_directory": "LS", "web_fetch": "WebFetch", "google_web_search": "WebSearch"}


def _input(tool_input: dict) -> dict:
    if "file_path" not in tool_input and isinstance(tool_input.get("absolute_path"), str):
        return dict(tool_input, file_path=tool_input["absolute_path"])
    return tool_input


def _exit_code(text: str) -> int | None:
    """run_shell_command's `Exit Code: N` line (Gemini CLI reports a command that ran and
    failed this way, without `error`); string search, no `re`."""
    i = text.rfind("Exit Code: ", max(0, len(text) - 4096))
    if i < 0:
        return None
    digits = text[i + 11 : i + 16].split("\n", 1)[0].strip()
    return int(digits) if digits.isdigit() else None


def _error(tool, response) -> str | None:
    if not isinstance(response, dict):
        return None
    err = response.get("error")
    if isinstance(err, dict):
        err = err.get("message")
    if isinstance(err, str) and err:
        return err
    content = response.get("llmContent")
    if tool == "Bash" and isinstance(content, str) and _exit_code(content):
        return content
    return None


def _call_id(tool, tool_input: dict) -> str | None:
    """Gemini CLI sends no tool call id, and no duration: a call's BeforeTool and AfterTool
    carry the same tool name and input, so that pair names the call, and the core times it
    from BeforeTool to AfterTool as it does for any PreToolUse without `duration_ms`.
    (zlib is built in: no import cost on the per-call path.)"""
    if not tool:
        return None
    from zlib import crc32

    try:
        key = jsonio.dumps(tool_input)
    except (TypeError, ValueError):
        return None
    return f"gemini:{tool}:{crc32(key.encode('utf-8', 'surrogatepass')):08x}"


def to_event(name: str, payload: dict) -> dict:
    if name not in EVENTS:
        raise ValueError(f"unknown Gemini CLI event {name!r}")
    internal = EVENTS[name]
    tool = _str(payload.get("tool_name"))
    tool = TOOLS.get(tool, tool) if tool else tool
    tool_input = _input(payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {})
    response = payload.get("tool_response")
    error = _error(tool, response) if internal == "PostToolUse" else None
    if error is not None:
        internal = "PostToolUseFailure"
    return event(
        "gemini-cli",
        internal,
        session_id(payload.get("session_id")),
        cwd=_path(payload.get("cwd")),
        source=_str(payload.get("source")),
        prompt=_text(payload.get("prompt")),
        tool_name=tool,
        tool_input=tool_input,
        tool_response=response.get("llmContent") if isinstance(response, dict) and error is None else None,
        error=error,
        # Not a tool_use_id (the senses take one id twice for one call delivered twice): a key
        # for timing only, the same for every identical call.
        call_key=_call_id(tool, tool_input) if internal in ("PreToolUse", "PostToolUse", "PostToolUseFailure") else None,
        reason=_str(payload.get("reason")),
        trigger=_str(payload.get("trigger")),
        # BeforeTool's additionalContext reaches no model (gemini-cli 0.61 reads it only from
        # AfterTool): a reflex before the call is given with the same call's AfterTool.
        pre_context=False,
    )


def render(name: str, context: str | None, deny: bool = False) -> str:
    if context and deny and name == "BeforeTool":
        # A blocked call: the model reads "Tool execution blocked: <reason>" as its result.
        return jsonio.dumps({"decision": "deny", "reason": context})
    if not context or name not in CONTEXT_EVENTS:
        return ""
    return jsonio.dumps({"hookSpecificOutput": {"hookEventName": name, "additionalContext": context}})


def main(name: str, stream, home_root: str) -> str:
    from cogit.hooks import core

    ev = to_event(name, read_payload(stream, max_payload(home_root)))
    return render(name, core.handle(ev, home_root), bool(ev.get("deny")))
