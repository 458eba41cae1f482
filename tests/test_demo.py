"""`cogit demo` is the README's main job: it must run end to end, every time."""

from __future__ import annotations

from cogit.demo import recorded_events


def test_recorded_session_is_realistic():
    events = recorded_events()
    names = [e["event"] for e in events]
    assert len(events) >= 30
    assert {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"} <= set(names)
    tools = {e.get("tool_name") for e in events}
    assert {"Read", "Edit", "Bash"} <= tools
    prompts = [e["prompt"] for e in events if e["event"] == "UserPromptSubmit"]
    assert any("Remember this:" in p for p in prompts) and any("Perfect" in p for p in prompts)


def test_demo_runs_and_shows_digest_log_and_diff(cogit):
    proc = cogit.run("demo")
    out = proc.out
    assert "== Replaying a recorded Claude Code session: 42 hook events" in out
    assert "↳ to the model: [cogit:nociception]" in out
    digest = out.split("== The next session starts: the digest injected into the model ==")[1].split("== cogit log")[0]
    assert "<cogit-memory>" in digest and "[feedback] the store must write files with newline=''" in digest
    assert "event=learning.add  source=hook  agent=claude-code" in out and "trigger=explicit" in out
    assert "+ learning l-" in out.split("== cogit diff")[1]
    assert "Bash" in out.split("== cogit stats ==")[1]
    # Issue 22 part 7: the lesson once, with its fix, no temp paths; then `why` and `revert` of the rule.
    assert digest.count("AssertionError: expected") == 1 and "it worked after editing store/files.py" in digest
    assert "/tmp" not in digest and "cogit-demo-" not in digest
    why = out.split("== cogit why ru-")[1]
    assert "event=rule.detect" in why and "evidence: 3 failures" in why
    revert = out.split("== cogit revert ")[1]
    assert 'Revert "New rule ru-' in revert and "error_loop  revert" in revert
    # The demo used a throwaway home, not COGIT_HOME.
    assert not cogit.home.exists()
