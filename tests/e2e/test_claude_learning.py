"""The learning loop inside the real Claude Code (`claude -p`, installed by .ci/install-claude),
against a scripted Messages API on 127.0.0.1 (issue 22).

The scripted model loops on a failing command until it finds the fix, unless cogit's digest
already tells it how the loop ends. So the first session's loop must become an error_loop rule
that carries the fix, later sessions that are shown the rule and run the command must avoid the
loop (each a suppression, no detection), and ordinary healthy sessions in between must learn no
rule and give the rule no evidence.
"""

from __future__ import annotations

import json
import re
import shutil

from .conftest import claude_result
from .fake_anthropic import FakeAnthropic
from .test_claude_code import cogit, eventually, hooks_log  # noqa: F401 (cogit is a fixture)

LOOP = "python3 -m app"  # fails while the widgets package is missing
FIX = "mkdir -p widgets && touch widgets/__init__.py"
PROMPT = "make `python3 -m app` work"


def digest_of(body: dict) -> str:
    """The <cogit-memory> block Claude Code carried into the request (from SessionStart)."""
    found = re.search(r"<cogit-memory>.*?</cogit-memory>", json.dumps(body, ensure_ascii=False), re.S)
    return found.group(0) if found else ""


def knows_the_lesson(body: dict) -> bool:
    """What the scripted model acts on: was it shown, in cogit's digest, how this loop ends?"""
    digest = digest_of(body)
    return LOOP in digest and "widgets" in digest


def loops_unless_told(body: dict) -> list:
    if knows_the_lesson(body):
        return [{"bash": FIX}, {"bash": LOOP}, "Done: the app runs."]
    return [{"bash": LOOP}, {"bash": LOOP}, {"bash": LOOP}, {"bash": FIX}, {"bash": LOOP}, "Fixed it."]


HEALTHY = [{"bash": "echo checking the notes"}, {"bash": "cat notes.txt"}, {"bash": "wc -l notes.txt"}, "All fine."]


def scripted(fake: FakeAnthropic, choose) -> None:
    """The script of each main request follows from the request itself (its digest): the
    stand-in's reply_for reads `script`, so set it from the body first."""
    plain = FakeAnthropic.reply_for

    def reply_for(body: dict) -> dict:
        if body.get("tools"):
            fake.script = choose(body)
        return plain(fake, body)

    fake.reply_for = reply_for


def test_a_loop_in_claude_code_becomes_a_rule_with_its_fix_that_later_sessions_avoid(tmp_path, fake_anthropic,
                                                                                      run_claude, cogit):  # noqa: F811
    cogit("init")
    cogit("install", "claude")
    work = tmp_path / "work"
    work.mkdir()
    (work / "app.py").write_text("import widgets\nprint('app ran')\n")
    (work / "notes.txt").write_text("one\ntwo\n")
    env = {"COGIT_HOME": str(cogit.cogit_home)}
    plan = ["loop", "healthy", "avoid", "healthy", "avoid"]
    scripted(fake_anthropic, lambda body: HEALTHY if plan[n] == "healthy" else loops_unless_told(body))

    def claude_sessions():
        log = json.loads(cogit("log", "--event", "session", "--json"))
        return [e for e in log if e["trailers"].get("Cogit-Agent") == "claude-code"]

    def rules():
        return json.loads(cogit("rules", "--json"))

    for n, kind in enumerate(plan):
        shutil.rmtree(work / "widgets", ignore_errors=True)
        fake_anthropic.requests.clear()
        result = claude_result(run_claude("look around and check the notes" if kind == "healthy" else PROMPT,
                                          cogit.home, env_extra=env, cwd=work))
        diag = f"{hooks_log(cogit.cogit_home)}\nclaude result: {result}"
        first = fake_anthropic.main_requests[0].body
        assert knows_the_lesson(first) == (n > 0), f"session {n}: {digest_of(first)[:2000]}\n{diag}"

        def folded():
            assert len(claude_sessions()) == n + 1, f"{claude_sessions()}\n{diag}"
        eventually(folded, timeout=30)
        end = claude_sessions()[0]
        if kind == "loop":
            assert "5 tool calls (3 failed)" in end["summary"], end
            (rule,) = rules()
            assert (rule["detector"], rule["detections"], rule["suppressions"], rule["misses"]) == ("error_loop", 1, 0, 0)
            # A rule is a fix: what the session then did, in the rule's text, from this first session.
            assert rule["trigger"] == "app" and FIX in rule["text"] and LOOP in rule["text"], rule
            assert "ModuleNotFoundError" in rule["text"] and str(tmp_path) not in rule["text"], rule
            assert "widgets" in rule["signature"] and rule["signature"] not in rule["text"]
            # One episode, one item: the digest shows the lesson once, as the rule.
            learnings = json.loads(cogit("show", "learnings", "--json"))["learnings"]
            items = learnings["items"] if isinstance(learnings, dict) else learnings
            assert not [i for i in items if i.get("category") == "mistake"], items
            learned = rule
        elif kind == "healthy":
            assert "(0 failed)" in end["summary"], end
            (rule,) = rules()  # no rule learned from ordinary work, and no evidence for the one there
            assert rule["id"] == learned["id"] and (rule["detections"], rule["suppressions"]) == (1, (n - 1) // 2), rule
            events = [e["trailers"]["Cogit-Event"] for e in json.loads(cogit("log", "--session", result["session_id"], "--json"))]
            assert "rule.detect" not in events and "rule.suppress" not in events, events
            assert "rule.idle" in events and rule["idle"] == 1, (events, rule)
        else:
            assert "2 tool calls (0 failed)" in end["summary"], end  # the fix first: no failure at all
            events = [e["trailers"]["Cogit-Event"] for e in json.loads(cogit("log", "--session", result["session_id"], "--json"))]
            assert "rule.suppress" in events and "rule.detect" not in events, events
    (rule,) = rules()
    assert rule["id"] == learned["id"]
    # Evidence: the two sessions that ran the command with the rule shown; the healthy ones were
    # shown it and never came near it (idle, reset by the next suppression).
    assert (rule["detections"], rule["suppressions"], rule["misses"], rule["sessions_injected"]) == (1, 2, 0, 2), rule
    assert rule["trigger"] == "app" and rule["idle"] == 0
    assert rule["confidence"] > learned["confidence"]
    tools = json.loads(cogit("show", "tools", "--json"))["tools"]["tools"]
    assert tools["Bash"]["failures"] == 3  # only the first session ever failed
    log = cogit.cogit_home / "runtime" / "logs" / "hooks.log"
    assert not log.exists() or log.read_text() == ""
