"""cogit inside the real Claude Code: install the hooks, run a scripted session,
then check what the model was shown and what cogit remembered.

Every cogit and claude process gets COGIT_HOME explicitly, so nothing here can
read or write the developer's own memory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import claude_result

LEARNING = "Run tests with python -m pytest -q"
REMEMBER = "staging db is read-only on Fridays"


@pytest.fixture
def cogit(tmp_path):
    """Run `python -m cogit ...` with a throwaway HOME and COGIT_HOME; returns stdout."""
    home = tmp_path / "home"
    cogit_home = tmp_path / "cogit-home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("COGIT_")}
    env["COGIT_WITHHOLD_SEED"] = "off"  # no withholding draw in these loops (cogit/hooks/withhold.py)
    env.update(HOME=str(home), COGIT_HOME=str(cogit_home))

    def run(*args: str) -> str:
        proc = subprocess.run([sys.executable, "-m", "cogit", *args], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, (
            f"cogit {' '.join(args)} exited {proc.returncode}\n"
            f"stdout: {proc.stdout}\nstderr: {proc.stderr}\n{hooks_log(cogit_home)}"
        )
        return proc.stdout

    run.home = home
    run.cogit_home = cogit_home
    return run


def hooks_log(cogit_home: Path) -> str:
    """cogit's hooks fail silently into this log; show it when an assertion fails."""
    log = cogit_home / "runtime" / "logs" / "hooks.log"
    return f"hooks.log:\n{log.read_text()[-4000:]}" if log.exists() else "(no hooks.log)"


def eventually(check, timeout: float = 10.0):
    """Retry `check` until it stops raising AssertionError.

    SessionEnd hooks get a 1.5 s budget, so cogit may finish folding a session
    in a detached process after claude has exited; give that a bounded while.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            return check()
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def section_items(doc) -> list[dict]:
    # A section prints as its document ({"schema_version", "items": [...]}) or
    # as the bare list of items; accept both.
    return doc["items"] if isinstance(doc, dict) else doc


def test_cogit_memory_through_claude_code(tmp_path, fake_anthropic, run_claude, cogit):
    cogit("init")
    cogit("add", "learning", LEARNING)
    cogit("install", "claude")
    settings = cogit.home / ".claude" / "settings.json"
    assert settings.exists(), "cogit install claude wrote no $HOME/.claude/settings.json"
    assert "from cogit.hooks import run" in settings.read_text()

    fake_anthropic.script = [
        {"bash": "echo ok"},
        {"bash": "ls /nonexistent-xyz"},
        {"bash": "ls /nonexistent-xyz"},
        "Noted.",
    ]
    proc = run_claude(f"remember this: the {REMEMBER}", cogit.home,
                      env_extra={"COGIT_HOME": str(cogit.cogit_home)})
    result = claude_result(proc)
    session_id = result["session_id"]
    diag = f"{hooks_log(cogit.cogit_home)}\nclaude stderr: {proc.stderr[-2000:]}"

    # The scripted conversation really ran (else the checks below mean nothing).
    main = fake_anthropic.main_requests
    assert len(main) == 4, diag
    assert result["result"] == "Noted."

    # (a) The SessionStart digest reached the model, from the first request on.
    assert LEARNING in json.dumps(main[0].body), f"digest not in the first model request\n{diag}"

    # (a2) The senses' signal reached the model: the same failure twice is nociception,
    # delivered with the second failure's tool result (so in the last request only).
    assert "[cogit:nociception]" not in json.dumps(main[2].body), diag
    assert "[cogit:nociception]" in json.dumps(main[3].body), f"no nociception signal in the model's request\n{diag}"
    assert "PostToolUseFailure" in json.dumps(main[3].body)

    # (b) "remember this: ..." became a learning.
    def remembered():
        learnings = section_items(json.loads(cogit("show", "learnings", "--json"))["learnings"])
        assert any(REMEMBER in item["text"] for item in learnings), f"{learnings}\n{diag}"
    eventually(remembered)

    # (c) A commit carries the session Claude Code used as provenance.
    def attributed():
        commits = json.loads(cogit("log", "--json"))
        sessions = [c.get("trailers", {}).get("Cogit-Session") for c in commits]
        assert any(s == session_id or (isinstance(s, list) and session_id in s) for s in sessions), (
            f"no commit with Cogit-Session {session_id}: {sessions}\n{diag}"
        )
    eventually(attributed)

    # (d) Tool statistics: one passing and two failing Bash calls.
    def counted():
        doc = json.loads(cogit("show", "tools", "--json"))["tools"]
        stats = doc.get("tools", doc)  # the section document, or just its per-tool map
        assert "Bash" in stats, f"{doc}\n{diag}"
        assert (stats["Bash"]["calls"], stats["Bash"]["failures"]) == (3, 2), f"{doc}\n{diag}"
    eventually(counted)


def test_a_resumed_session_keeps_every_lesson(tmp_path, fake_anthropic, run_claude, cogit):
    """`claude --resume` keeps the session id: the resumed part's lesson and tool calls
    reach memory too, after the first part was folded and its runtime state removed."""
    cogit("init")
    cogit("install", "claude")
    env = {"COGIT_HOME": str(cogit.cogit_home)}
    sessions = cogit.cogit_home / "runtime" / "sessions"
    fake_anthropic.script = [{"bash": "echo one"}, "Noted.", {"bash": "echo two"}, "Noted again."]
    first = claude_result(run_claude("remember this: the first lesson of e2e", cogit.home, env_extra=env))
    session_id = first["session_id"]

    def folded():
        texts = [i["text"] for i in section_items(json.loads(cogit("show", "learnings", "--json"))["learnings"])]
        assert "the first lesson of e2e" in texts, f"{texts}\n{hooks_log(cogit.cogit_home)}"
        assert not sessions.exists() or not any(sessions.iterdir()), list(sessions.iterdir())
    eventually(folded)

    second = claude_result(run_claude("remember this: the second lesson of e2e", cogit.home, env_extra=env,
                                      extra_args=["--resume", session_id]))
    assert second["session_id"] == session_id, "claude --resume started another session id"
    assert "first lesson" in json.dumps(fake_anthropic.main_requests[-1].body)  # it really was resumed
    diag = f"{hooks_log(cogit.cogit_home)}\nclaude stderr: {second}"

    def both():
        texts = [i["text"] for i in section_items(json.loads(cogit("show", "learnings", "--json"))["learnings"])]
        assert sorted(texts) == ["the first lesson of e2e", "the second lesson of e2e"], f"{texts}\n{diag}"
        tools = json.loads(cogit("show", "tools", "--json"))["tools"]
        assert tools["tools"]["Bash"]["calls"] == 2, f"{tools}\n{diag}"
        log = json.loads(cogit("log", "--session", session_id, "--json"))
        events = sorted(e["trailers"]["Cogit-Event"] for e in log)
        assert events == ["learning.add", "learning.add", "session.end", "session.end"], f"{events}\n{diag}"
        assert not sessions.exists() or not any(sessions.iterdir())
    eventually(both, timeout=20)
