"""Claude Code adapter: its payload -> one internal event; a reply -> its output JSON.

Field names are the ones Claude Code really sends (see docs/claude-code.md and
shared/reference/claude-code-observed.md): a failed tool call arrives as
`PostToolUseFailure` with a string `error` and no `tool_response`.
"""


from cogit import jsonio
from cogit.hooks.payload import DEFAULT_MAX_PAYLOAD, _number, _path, _str, _text, read_payload, session_id  # noqa: F401

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


def to_event(name: str, payload: dict) -> dict:
    if name not in EVENTS:
        raise ValueError(f"unknown Claude Code event {name!r}")
    from cogit.hooks.payload import event

    return event(
        "claude-code",
        name,
        session_id(payload.get("session_id")),
        cwd=_path(payload.get("cwd")),
        source=_str(payload.get("source")),
        model=_str(payload.get("model")),
        prompt=_text(payload.get("prompt")),
        tool_name=_str(payload.get("tool_name")),
        tool_input=payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {},
        tool_response=payload.get("tool_response"),
        error=_text(payload.get("error")),
        tool_use_id=_str(payload.get("tool_use_id")),
        duration_ms=_number(payload.get("duration_ms")),
        reason=_str(payload.get("reason")),
        trigger=_str(payload.get("trigger")),
    )


def render(name: str, context: str | None, notice: str | None = None, deny: bool = False) -> str:
    """The reply: `additionalContext` reaches the model; `systemMessage` is shown to the user.
    A reflex that blocks (this machine's `reflex.block_repeats`) denies the PreToolUse with
    the rule and its fix as `permissionDecisionReason`, which Claude Code gives the model."""
    if not context or name not in CONTEXT_EVENTS:
        return jsonio.dumps({"systemMessage": notice}) if notice else ""
    if deny and name == "PreToolUse":
        return jsonio.dumps({"hookSpecificOutput": {"hookEventName": name, "permissionDecision": "deny",
                                                    "permissionDecisionReason": context}})
    reply = {"hookSpecificOutput": {"hookEventName": name, "additionalContext": context}}
    if notice:
        reply["systemMessage"] = notice
    return jsonio.dumps(reply)


def main(name: str, stream, home_root: str) -> str:
    from cogit.hooks import core
    from cogit.hooks.payload import max_payload

    event = to_event(name, read_payload(stream, max_payload(home_root)))
    context = core.handle(event, home_root)
    return render(name, context, event.get("notice"), bool(event.get("deny")))
