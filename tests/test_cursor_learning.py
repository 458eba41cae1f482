"""The learning loop with Cursor's payloads (Cursor itself is not installable here, so its
documented hook payloads go through the real `cogit hook cursor` processes): a failing
command repeated three times (postToolUseFailure) becomes an error_loop rule, and later
conversations are shown the rule at sessionStart; those that avoid the loop earn it a
suppression each, and one that loops again a second detection."""

from __future__ import annotations

import json

ERR = "Exit code 1\nTraceback (most recent call last):\n  File \"app.py\", line 1\nModuleNotFoundError: No module named 'widgets'"
LOOP = "python3 -m app"
FIX = "pip install widgets"


def cursor(event, cid, **fields):
    base = {"conversation_id": cid, "generation_id": f"gen-{cid}", "hook_event_name": event,
            "workspace_roots": ["/tmp"], "model": "claude-4.5-sonnet", "cursor_version": "3.20.17"}
    base.update(fields)
    return base


def shell(cid, n, cmd, ok):
    common = dict(tool_name="Shell", tool_input={"command": cmd}, tool_use_id=f"tool_{cid}_{n}", cwd="/tmp", duration=120)
    if ok:
        return "postToolUse", cursor("postToolUse", cid, tool_output=json.dumps({"output": "ok", "exitCode": 0}), **common)
    return "postToolUseFailure", cursor("postToolUseFailure", cid, error_message=ERR, failure_type="error",
                                        is_interrupt=False, **common)


def conversation(c, cid, calls) -> str:
    """One Cursor conversation through the real hook processes; returns what sessionStart injected."""
    proc = c.run("hook", "cursor", "sessionStart", input=json.dumps(cursor("sessionStart", cid)), check=False)
    assert proc.returncode == 0 and proc.err == ""
    injected = json.loads(proc.out)["additional_context"] if proc.out else ""
    body = cursor("beforeSubmitPrompt", cid, prompt="Make python3 -m app run without the import error please")
    assert c.run("hook", "cursor", "beforeSubmitPrompt", input=json.dumps(body), check=False).returncode == 0
    for n, (cmd, ok) in enumerate(calls(injected)):
        event, body = shell(cid, n, cmd, ok)
        assert c.run("hook", "cursor", event, input=json.dumps(body), check=False).returncode == 0
    c.run("hook", "cursor", "sessionEnd", input=json.dumps(cursor("sessionEnd", cid, reason="user_close")), check=False)
    c.run("finalize")
    return injected


def loops_unless_told(injected):
    if LOOP in injected and "widgets" in injected:
        return [(FIX, True), (LOOP, True)]
    return [(LOOP, False), (LOOP, False), (LOOP, False), (FIX, True), (LOOP, True)]


def test_cursor_loop_becomes_a_rule_that_later_conversations_avoid(initialized):
    c = initialized
    assert LOOP not in conversation(c, "conv-1", loops_unless_told)  # nothing to be shown yet: it loops
    (rule,) = c.json("rules")
    assert (rule["detector"], rule["detections"], rule["suppressions"]) == ("error_loop", 1, 0)
    assert "widgets" in rule["signature"]
    bash = c.json("show", "tools")["tools"]["tools"]["Bash"]
    assert (bash["calls"], bash["failures"]) == (5, 3)
    for cid in ("conv-2", "conv-3", "conv-4"):
        injected = conversation(c, cid, loops_unless_told)
        assert f"[{rule['id']}]" in injected and LOOP in injected
    (rule,) = c.json("rules")
    assert (rule["detections"], rule["suppressions"], rule["sessions_injected"]) == (1, 3, 3)
    assert c.json("show", "tools")["tools"]["tools"]["Bash"]["failures"] == 3
    # Shown the rule and looping anyway: the same rule is detected again, no second rule.
    conversation(c, "conv-5", lambda injected: [(LOOP, False)] * 3)
    (again,) = c.json("rules")
    assert (again["id"], again["detections"], again["suppressions"]) == (rule["id"], 2, 3)
    c.assert_healthy()
