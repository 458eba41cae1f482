"""The person hears the interrupt: when the nociceptive interrupt reaches its last level,
the Claude Code hook's reply carries `systemMessage` (shown to the user, not the model),
once per failure episode. Real hook subprocesses."""

from __future__ import annotations

import json

from cogit.hooks.claude import render

SID = "3c1b2c3d-4b7e-4f7a-9d0a-2f1c3e5b7a92"
ERR = "Exit code 1\nModuleNotFoundError: No module named 'widgets'"


def _payload(event, **fields):
    return {"session_id": SID, "transcript_path": "/tmp/x.jsonl", "cwd": "/tmp", "hook_event_name": event, **fields}


def _fail(c, n):
    out = c.hook("PostToolUseFailure", _payload("PostToolUseFailure", tool_name="Bash", tool_input={"command": "python -m app"},
                                                 tool_use_id=f"t{n}", error=ERR, is_interrupt=False, duration_ms=30))
    assert out.returncode == 0 and out.err == ""
    return json.loads(out.out) if out.out else {}


def _ok(c, n):
    out = c.hook("PostToolUse", _payload("PostToolUse", tool_name="Bash", tool_input={"command": "python -m app"},
                                         tool_response={"stdout": "ok", "stderr": "", "interrupted": False},
                                         tool_use_id=f"ok{n}", duration_ms=30))
    return json.loads(out.out) if out.out else {}


def test_the_last_level_is_shown_to_the_person_once_per_episode(initialized):
    c = initialized
    c.hook("SessionStart", _payload("SessionStart", source="startup"))
    replies = [_fail(c, n) for n in range(1, 13)]  # level 1 at 3, 2 at 5, 3 at 7, level 3 again at 11
    told = [n for n, r in enumerate(replies, 1) if "systemMessage" in r]
    assert told == [7]
    assert "Level 3 of 3" in replies[6]["hookSpecificOutput"]["additionalContext"]
    assert "Level 3 of 3" in replies[10]["hookSpecificOutput"]["additionalContext"]  # the model is told again; the person not
    notice = replies[6]["systemMessage"]
    assert "7 times" in notice and "No module named" in notice and "ask you" in notice
    # The episode resolves; a new one that reaches the last level is heard again.
    for n in range(3):
        _ok(c, n)
    replies = [_fail(c, 100 + n) for n in range(1, 8)]
    assert [n for n, r in enumerate(replies, 1) if "systemMessage" in r] == [7]


def test_render_keeps_the_notice_for_events_without_context():
    assert json.loads(render("Stop", None, "cogit: x")) == {"systemMessage": "cogit: x"}
    assert render("Stop", None, None) == ""
    out = json.loads(render("PostToolUseFailure", "ctx", "note"))
    assert out["systemMessage"] == "note" and out["hookSpecificOutput"]["additionalContext"] == "ctx"
