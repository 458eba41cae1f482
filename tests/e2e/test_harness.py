"""Prove the harness: real Claude Code, scripted model, command hooks that record.

Independent of cogit, so when the cogit end-to-end test fails this one says
whether the harness (install, stand-in, hook wiring) still works.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from .conftest import claude_result

EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
          "PostToolUseFailure", "Stop", "SessionEnd"]
TOOL_EVENTS = {"PreToolUse", "PostToolUse", "PostToolUseFailure"}

# Appends each payload as one JSON line (a single O_APPEND write, so concurrent
# hooks cannot interleave) and injects context on two events.
HOOK = """\
import json, os, sys
payload = json.load(sys.stdin)
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
os.write(fd, (json.dumps(payload) + "\\n").encode())
os.close(fd)
marker = {"SessionStart": "MARKER-123", "PostToolUseFailure": "FAIL-MARKER"}
event = payload["hook_event_name"]
if event in marker:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": marker[event]}}))
"""


def write_settings(home: Path, command: str) -> None:
    hooks = {}
    for event in EVENTS:
        entry = {"hooks": [{"type": "command", "command": command, "timeout": 30}]}
        if event in TOOL_EVENTS:
            entry["matcher"] = "*"
        hooks[event] = [entry]
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}, indent=2))


def test_hooks_fire_in_order_and_context_reaches_model(tmp_path, fake_anthropic, run_claude):
    home = tmp_path / "home"
    log = tmp_path / "hooks.jsonl"
    script = tmp_path / "record_hook.py"
    script.write_text(HOOK)
    write_settings(home, shlex.join([sys.executable, str(script), str(log)]))
    fake_anthropic.script = [{"bash": "echo hi"}, {"bash": "ls /nonexistent-xyz"}, "All checks done."]

    result = claude_result(run_claude("run the checks", home))
    assert result["result"] == "All checks done."

    payloads = [json.loads(line) for line in log.read_text().splitlines()]
    assert [p["hook_event_name"] for p in payloads] == [
        "SessionStart", "UserPromptSubmit",
        "PreToolUse", "PostToolUse",
        "PreToolUse", "PostToolUseFailure",
        "Stop", "SessionEnd",
    ]
    # One session throughout, and it is the one --output-format json reports.
    assert {p["session_id"] for p in payloads} == {result["session_id"]}
    by_event = {p["hook_event_name"]: p for p in payloads}
    assert by_event["UserPromptSubmit"]["prompt"] == "run the checks"
    assert by_event["PostToolUse"]["tool_input"]["command"] == "echo hi"
    assert by_event["PostToolUse"]["tool_response"]["stdout"] == "hi"
    failure = by_event["PostToolUseFailure"]
    assert failure["tool_name"] == "Bash"
    assert failure["error"].startswith("Exit code 2")

    # Three main-conversation requests: one per scripted turn.
    main = fake_anthropic.main_requests
    assert len(main) == 3
    bodies = [json.dumps(r.body) for r in main]
    # SessionStart context is in every request; the failure's only after it happened.
    assert all("MARKER-123" in b for b in bodies)
    assert ["FAIL-MARKER" in b for b in bodies] == [False, False, True]
    assert "PostToolUseFailure:Bash hook additional context: FAIL-MARKER" in bodies[2]
