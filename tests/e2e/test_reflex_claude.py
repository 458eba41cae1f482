"""Issue 23, proof 1: the real Claude Code CLI, a scripted model that IGNORES what memory
gives at session start and reacts only to what it is told after its last action (the tool
result and the hook text that came with it), and cogit's reflexes.

The first session loops (the same failing command four times) and then finds the fix by
itself; cogit learns the rule with its fix. Without reflexes this model would loop again in
every later session: the rule sits in the session-start digest, which it never reads. With
them, each later session fails at most once before the fix: the rule arrives with the
PreToolUse of the command it is about.
"""

from __future__ import annotations

import json

from .app_loop import CMD, FIX, OWN_DISCOVERY, PROMPT, make_app
from .conftest import claude_result
from .fake_anthropic import DONE_TEXT, SIDE_TEXT, FakeAnthropic
from .test_claude_code import cogit, eventually, hooks_log  # noqa: F401 (fixture)


def _calls(body: dict) -> list[str]:
    return [b["input"]["command"] for m in body.get("messages", []) if m.get("role") == "assistant"
            for b in m.get("content") or [] if isinstance(b, dict) and b.get("type") == "tool_use"]


def since_last_action(body: dict) -> str:
    """Everything the model was told after its last tool call: the messages after its last
    one (the tool result, the hook text with it, and whatever else Claude Code added)."""
    messages = body.get("messages") or []
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    return json.dumps(messages[last + 1:])


class ForgetfulModel(FakeAnthropic):
    """Runs `python3 app.py` until it works; switches to the fix only when the text after its
    last action names it, or after OWN_DISCOVERY failures (how it found it the first time)."""

    def reply_for(self, body: dict) -> dict:
        if not body.get("tools"):
            return {"content": [{"type": "text", "text": SIDE_TEXT}], "stop_reason": "end_turn"}
        calls = _calls(body)
        told = since_last_action(body) if calls else ""
        if calls and calls[-1] == FIX:
            text = "Fixed: the app runs with src on the path." if "app ran" in told else "Not fixed: " + told[-600:]
            return {"content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}
        failures = sum(1 for c in calls if c == CMD)
        cmd = FIX if ("PYTHONPATH=src" in told or failures >= OWN_DISCOVERY) else CMD
        block = {"type": "tool_use", "id": f"toolu_{next(self._ids):04d}", "name": "Bash",
                 "input": {"command": cmd, "description": "run the app"}}
        return {"content": [block], "stop_reason": "tool_use"}


def test_later_sessions_fail_at_most_once_before_the_fix(tmp_path, claude_bin, run_claude, fake_anthropic, cogit):  # noqa: F811
    fake_anthropic.__class__ = ForgetfulModel  # the same started server, this model's answers
    cogit("init")
    cogit("install", "claude")
    work = make_app(tmp_path / "work")
    env = {"COGIT_HOME": str(cogit.cogit_home)}

    def sessions():
        return [e for e in json.loads(cogit("log", "--event", "session", "--json"))]

    runs = []
    for n in range(3):
        fake_anthropic.requests.clear()
        result = claude_result(run_claude(PROMPT, cogit.home, env_extra=env, cwd=work))
        main = fake_anthropic.main_requests
        calls = _calls(main[-1].body)
        runs.append((calls, main))
        diag = f"session {n}: {calls}\n{hooks_log(cogit.cogit_home)}"
        assert calls[-1] == FIX and result["result"].startswith("Fixed"), f"{result['result']}\n{diag}"

        def folded(n=n, diag=diag):
            assert len(sessions()) == n + 1, diag
        eventually(folded, timeout=30)
        if n == 0:
            rules = json.loads(cogit("rules", "--json"))
            assert len(rules) == 1 and FIX in rules[0]["text"], f"{rules}\n{diag}"
            # The first session looped: the model found the fix only by itself.
            assert calls.count(CMD) == OWN_DISCOVERY, diag
    rule = json.loads(cogit("rules", "--json"))[0]
    for calls, main in runs[1:]:
        # The digest held the rule from the first request on, and this model ignored it.
        assert FIX in json.dumps(main[0].body) and "[cogit:reflex]" not in json.dumps(main[0].body)
        assert calls.count(CMD) <= 1, calls  # at most one failure before the fix
        told = [since_last_action(r.body) for r in main]
        reflex = [t for t in told if "[cogit:reflex]" in t]
        assert len(reflex) == 1 and f"[{rule['id']}]" in reflex[0], told  # once, with the rule's id
    # Where Claude Code put the PreToolUse context (docs/agents.md says what was seen).
    seen = next(t for t in (since_last_action(r.body) for r in runs[1][1]) if "[cogit:reflex]" in t)
    print("OBSERVED:", seen)
    assert "PreToolUse:Bash hook additional context: [cogit:reflex]" in seen, seen
