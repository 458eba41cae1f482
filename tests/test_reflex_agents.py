"""Reflexes in each agent's form (issue 23 part 1): the rule learned from a real session,
then each adapter's pre-tool event, failure form and block through the real
`cogit hook <agent> EVENT` subprocesses, with payloads shaped as each agent sends them."""

from __future__ import annotations

import json

import pytest

from test_agent_hooks import SID, codex, cursor, gemini, hook, openclaw, state
from test_reflexes import CMD, ERR, FIX, learned

OUT = "Traceback (most recent call last):\n  File \"src/app.py\", line 1, in <module>\nModuleNotFoundError: No module named 'dih_helpers'"


def start(c, agent):
    if agent == "claude":
        return hook(c, "claude", "SessionStart", {"session_id": SID, "cwd": "/tmp", "hook_event_name": "SessionStart", "source": "startup"})
    if agent == "codex":
        return hook(c, "codex", "SessionStart", codex("SessionStart", source="startup"))
    if agent == "gemini":
        return hook(c, "gemini", "SessionStart", gemini("SessionStart", source="startup"))
    if agent == "cursor":
        return hook(c, "cursor", "sessionStart", cursor("sessionStart"))
    return hook(c, "openclaw", "before_prompt_build", openclaw("before_prompt_build", {"prompt": "fix the app", "messages": []}))


def before(c, agent, n, cmd=CMD):
    if agent == "claude":
        return hook(c, "claude", "PreToolUse", {"session_id": SID, "cwd": "/tmp", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                                                "tool_input": {"command": cmd, "description": "run"}, "tool_use_id": f"toolu_{n}",
                                                "permission_mode": "default"})
    if agent == "codex":
        return hook(c, "codex", "PreToolUse", codex("PreToolUse", tool_name="Bash", tool_input={"command": cmd}, tool_use_id=f"call_{n}"))
    if agent == "gemini":
        return hook(c, "gemini", "BeforeTool", gemini("BeforeTool", tool_name="run_shell_command", tool_input={"command": cmd}))
    if agent == "cursor":
        return hook(c, "cursor", "preToolUse", cursor("preToolUse", tool_name="Shell", tool_input={"command": cmd}, tool_use_id=f"tool_{n}",
                                                      cwd="/tmp"))
    return hook(c, "openclaw", "before_tool_call", openclaw("before_tool_call", {"toolName": "exec", "params": {"command": cmd},
                                                                               "toolCallId": f"tc_{n}"}))


def failed(c, agent, n, cmd=CMD):
    if agent == "claude":
        return hook(c, "claude", "PostToolUseFailure", {"session_id": SID, "cwd": "/tmp", "hook_event_name": "PostToolUseFailure",
                                                        "tool_name": "Bash", "tool_input": {"command": cmd, "description": "run"},
                                                        "tool_use_id": f"toolu_{n}", "error": ERR, "is_interrupt": False, "duration_ms": 20})
    if agent == "codex":
        return hook(c, "codex", "PostToolUse", codex("PostToolUse", tool_name="Bash", tool_input={"command": cmd},
                                                      tool_response={"exit_code": 1, "output": OUT}, tool_use_id=f"call_{n}"))
    if agent == "gemini":
        return hook(c, "gemini", "AfterTool", gemini("AfterTool", tool_name="run_shell_command", tool_input={"command": cmd},
                                                     tool_response={"llmContent": f"{OUT}\nExit Code: 1", "returnDisplay": OUT}))
    if agent == "cursor":
        return hook(c, "cursor", "postToolUseFailure", cursor("postToolUseFailure", tool_name="Shell", tool_input={"command": cmd},
                                                              tool_use_id=f"tool_{n}", cwd="/tmp", error_message=ERR,
                                                              failure_type="error", duration=20, is_interrupt=False))
    return hook(c, "openclaw", "after_tool_call", openclaw("after_tool_call", {"toolName": "exec", "params": {"command": cmd},
                                                                             "toolCallId": f"tc_{n}", "error": ERR, "durationMs": 20}))


def pre_context(agent, out) -> str:
    """The reflex as the agent's pre-tool reply carries it ("" when none)."""
    assert out.returncode == 0 and out.err == ""
    if not out.out:
        return ""
    reply = json.loads(out.out)
    if agent == "cursor":
        return reply["additional_context"]
    assert reply["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    return reply["hookSpecificOutput"]["additionalContext"]


def post_context(agent, out) -> str:
    assert out.returncode == 0 and out.err == ""
    if not out.out:
        return ""
    reply = json.loads(out.out)
    return reply["additional_context"] if agent == "cursor" else reply["hookSpecificOutput"]["additionalContext"]


@pytest.fixture
def rule(initialized):
    return learned(initialized)


@pytest.mark.parametrize("agent", ["claude", "codex", "cursor"])
def test_the_reflex_in_the_pre_tool_reply(initialized, rule, agent):
    c = initialized
    assert start(c, agent).returncode == 0
    assert pre_context(agent, before(c, agent, 1, cmd="ls")) == ""
    text = pre_context(agent, before(c, agent, 2))
    assert f"[cogit:reflex] `{CMD}`" in text and f"[{rule['id']}]" in text and FIX in text, text
    assert "[cogit:reflex]" not in post_context(agent, failed(c, agent, 2))  # once per episode
    assert [r["shown"] for r in state(c)["receipts"] if r["source"] == "reflex"] == [[rule["id"]]]


def test_gemini_gets_the_reflex_with_the_calls_result(initialized, rule):
    """gemini-cli reads additionalContext from AfterTool only: BeforeTool prints nothing and
    the reflex comes appended to that call's result."""
    c = initialized
    assert start(c, "gemini").returncode == 0
    assert before(c, "gemini", 1).out == ""
    text = post_context("gemini", failed(c, "gemini", 1))
    assert text.count("[cogit:reflex]") == 1 and f"[cogit:reflex] `{CMD}`" in text and FIX in text, text
    assert "[cogit:reflex]" not in post_context("gemini", failed(c, "gemini", 2))
    assert [r["shown"] for r in state(c)["receipts"] if r["source"] == "reflex"] == [[rule["id"]]]


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini", "cursor"])
def test_the_first_failure_gets_the_rule_in_each_agents_form(initialized, rule, agent):
    c = initialized
    assert start(c, agent).returncode == 0
    text = post_context(agent, failed(c, agent, 1, cmd="python3 src/app.py --verbose"))
    assert "[cogit:reflex] This failure" in text and FIX in text, text


def result(c, n, cmd=CMD, code=1, out=OUT, is_error=False, hook_name="tool_result"):
    """The call's result as the plugin's agent-tool-result middleware sends it (what the real
    exec tool returns for a command that exited `code`), or as after_tool_call does."""
    text = out if code == 0 else f"{out}\n\n(Command exited with code {code})"
    res = {"content": [{"type": "text", "text": text}],
           "details": {"status": "completed", "exitCode": code, "aggregated": text, "durationMs": 20}}
    return hook(c, "openclaw", hook_name, openclaw(hook_name, {"toolName": "exec", "params": {"command": cmd},
                                                               "toolCallId": f"tc_{n}", "result": res, "isError": is_error,
                                                               "durationMs": 20}))


def appended(out) -> str:
    assert out.returncode == 0 and out.err == ""
    if not out.out:
        return ""
    reply = json.loads(out.out)
    assert set(reply) == {"appendText"}, reply
    return reply["appendText"]


def test_openclaw_gets_the_reflex_with_the_calls_result(initialized, rule):
    """OpenClaw has no pre-call context: before_tool_call prints nothing (no block), and the
    reflex comes with that call's result, through the tool-result middleware."""
    c = initialized
    assert start(c, "openclaw").returncode == 0
    assert before(c, "openclaw", 1, cmd="ls").out == ""
    assert appended(result(c, 1, cmd="ls", code=0, out="app.py")) == ""
    assert before(c, "openclaw", 2).out == ""
    text = appended(result(c, 2))
    assert text.count("[cogit:reflex]") == 1 and f"[cogit:reflex] `{CMD}`" in text and FIX in text, text
    assert "[cogit:reflex]" not in appended(result(c, 3))  # once per episode (the senses may speak)
    assert [r["shown"] for r in state(c)["receipts"] if r["source"] == "reflex"] == [[rule["id"]]]
    st = state(c)
    assert st["agg"]["tools"]["Bash"]["calls"] == 3 and st["agg"]["tools"]["Bash"]["failures"] == 2


def test_openclaw_first_failure_through_the_middleware(initialized, rule):
    c = initialized
    assert start(c, "openclaw").returncode == 0
    # Not the rule's command, but its failure: the rule at this first failure.
    text = appended(result(c, 1, cmd="python3 -c 'import dih_helpers'"))
    assert text.count("[cogit:reflex]") == 1 and "[cogit:reflex] This failure" in text and FIX in text, text
    # A tool that threw: the middleware's isError with the error as the result's text; the same episode.
    assert "[cogit:reflex]" not in appended(result(c, 2, cmd="python3 -c 'import dih_helpers'", code=0, out=OUT, is_error=True))
    assert state(c)["agg"]["tools"]["Bash"]["failures"] == 2


def test_openclaw_after_tool_call_stays_observe_only(initialized, rule):
    c = initialized
    assert start(c, "openclaw").returncode == 0
    assert before(c, "openclaw", 1).out == ""
    assert failed(c, "openclaw", 1).out == ""
    assert result(c, 2, hook_name="after_tool_call").out == ""
    assert not [r for r in state(c)["receipts"] if r["source"] == "reflex"]


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini", "cursor", "openclaw"])
def test_the_block_in_each_agents_form(initialized, rule, agent):
    c = initialized
    (c.home / "machine-settings.json").write_text(json.dumps({"reflex": {"block_repeats": True}}))
    assert start(c, agent).returncode == 0
    first = appended(result(c, 1)) if agent == "openclaw" else post_context(agent, failed(c, agent, 1))
    assert "[cogit:reflex]" in first
    reply = json.loads(before(c, agent, 2).out)
    if agent in ("claude", "codex"):
        out = reply["hookSpecificOutput"]
        assert out["permissionDecision"] == "deny" and FIX in out["permissionDecisionReason"], reply
        assert set(out) == {"hookEventName", "permissionDecision", "permissionDecisionReason"}
    elif agent == "gemini":
        assert reply["decision"] == "deny" and FIX in reply["reason"], reply
    elif agent == "openclaw":
        assert reply == {"block": True, "blockReason": reply["blockReason"]} and FIX in reply["blockReason"], reply
    else:
        assert reply["permission"] == "deny" and FIX in reply["agent_message"], reply
