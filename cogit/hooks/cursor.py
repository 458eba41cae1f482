"""Cursor adapter (~/.cursor/hooks.json or <repo>/.cursor/hooks.json, `{"version": 1, "hooks": {...}}`).

Payloads carry `conversation_id` (the session), `generation_id`, `hook_event_name`,
`workspace_roots[]`, optionally `model`; beforeSubmitPrompt adds `prompt`; the tool
events `tool_name`, `tool_input`, `tool_use_id`, `cwd`, `duration`, and `tool_output`
(postToolUse) or `error_message` (postToolUseFailure). The reply is top-level snake_case:
`additional_context` (sessionStart: attached to every request of the conversation;
beforeSubmitPrompt, with `continue: true`: a per-turn system reminder; the tool events).
Stdout must be JSON or empty.
"""


from cogit import jsonio
from cogit.hooks.payload import _number, _path, _str, _text, event, max_payload, read_payload, session_id

EVENTS = {
    "sessionStart": "SessionStart",
    "beforeSubmitPrompt": "UserPromptSubmit",
    "preToolUse": "PreToolUse",
    "postToolUse": "PostToolUse",
    "postToolUseFailure": "PostToolUseFailure",
    "stop": "Stop",
    "subagentStop": "SubagentStop",
    "preCompact": "PreCompact",
    "sessionEnd": "SessionEnd",
}
CONTEXT_EVENTS = {"sessionStart", "beforeSubmitPrompt", "preToolUse", "postToolUse", "postToolUseFailure"}
TOOLS = {"Shell": "Bash", "run_terminal_cmd": "Bash", "read_file": "Read", "edit_file": "Edit",
         "StrReplace": "Edit", "Delete": "Write", "grep_search": "Grep", "file_search": "Glob", "list_dir": "LS"}


def to_event(name: str, payload: dict) -> dict:
    if name not in EVENTS:
        raise ValueError(f"unknown Cursor event {name!r}")
    roots = payload.get("workspace_roots")
    root = roots[0] if isinstance(roots, list) and roots else None
    tool = _str(payload.get("tool_name"))
    tool = TOOLS.get(tool, tool) if tool else tool
    error = _text(payload.get("error_message")) or _text(payload.get("error"))
    duration = _number(payload.get("duration"))
    return event(
        "cursor",
        EVENTS[name],
        session_id(payload.get("conversation_id") or payload.get("session_id"), "conversation_id"),
        cwd=_path(payload.get("cwd")) or _path(root),
        source=_str(payload.get("source")),
        model=_str(payload.get("model")),
        prompt=_text(payload.get("prompt")),
        tool_name=tool,
        tool_input=payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {},
        tool_response=payload.get("tool_output"),
        error=(error or "tool call failed") if name == "postToolUseFailure" else None,
        tool_use_id=_str(payload.get("tool_use_id")),
        duration_ms=duration,
        reason=_str(payload.get("reason") or payload.get("status")),
    )


def render(name: str, context: str | None, deny: bool = False) -> str:
    if not context or name not in CONTEXT_EVENTS:
        return ""
    if deny and name == "preToolUse":
        # The before-shell form Cursor documents: the agent reads agent_message, the person user_message.
        return jsonio.dumps({"permission": "deny", "agent_message": context,
                             "user_message": "cogit blocked an exact repeat of a failed command (reflex.block_repeats)"})
    if name == "beforeSubmitPrompt":
        return jsonio.dumps({"continue": True, "additional_context": context})
    return jsonio.dumps({"additional_context": context})


def main(name: str, stream, home_root: str) -> str:
    from cogit.hooks import core

    ev = to_event(name, read_payload(stream, max_payload(home_root)))
    return render(name, core.handle(ev, home_root), bool(ev.get("deny")))
