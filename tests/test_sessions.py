"""Session lifecycles: resumed, killed, empty and concurrent sessions, with the hooks run
as real subprocesses in the project folder, as Claude Code runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import git as run_git

SID = "5f0c1d2e-1111-4a4a-9b9b-0123456789ab"


class Project:
    """A git project folder and the hooks run in it."""

    def __init__(self, cogit, folder: Path):
        self.c = cogit
        self.folder = folder

    def hook(self, event: str, sid: str = SID, **fields):
        body = {"session_id": sid, "transcript_path": f"/tmp/{sid}.jsonl", "cwd": str(self.folder),
                "hook_event_name": event, **fields}
        env = dict(os.environ, COGIT_HOME=str(self.c.home))
        proc = subprocess.run([sys.executable, "-m", "cogit", "hook", "claude", event], input=json.dumps(body).encode(),
                              capture_output=True, env=env, cwd=str(self.folder), timeout=30)
        assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
        return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] if proc.stdout else None

    def tool(self, n: int, sid: str = SID, ok: bool = True):
        if ok:
            return self.hook("PostToolUse", sid, tool_name="Read", tool_input={"file_path": f"{self.folder}/f{n}.py"},
                             tool_response={"type": "text", "file": {"content": "x"}}, tool_use_id=f"t{sid[:4]}{n}",
                             duration_ms=3)
        return self.hook("PostToolUseFailure", sid, tool_name="Bash", tool_input={"command": f"false {n}"},
                         tool_use_id=f"t{sid[:4]}{n}", error="Exit code 1", is_interrupt=False, duration_ms=2)

    def settle(self):
        """Wait for the detached finalizes the hooks started, then finalize what is left."""
        self.c.run("finalize")
        sessions = self.c.home / "runtime" / "sessions"
        deadline = time.monotonic() + 20
        while sessions.exists() and any(sessions.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.1)
            self.c.run("finalize")

    def learnings(self):
        return [i["text"] for i in self.c.json("show", "learnings", "--project", str(self.folder))["learnings"]]


@pytest.fixture
def project(initialized, tmp_path):
    folder = tmp_path / "proj"
    folder.mkdir()
    run_git(folder, "init", "-q")
    return Project(initialized, folder)


def stale_now(c):
    cfg = c.home / "memory" / "config.yaml"
    cfg.write_text(cfg.read_text().replace("session_stale_minutes: 30", "session_stale_minutes: 0"))
    c.run("commit")


def test_a_resumed_session_is_folded_too(project):
    p, c = project, project.c
    p.hook("SessionStart", source="startup")
    said = p.hook("UserPromptSubmit", prompt="Remember this: first lesson")
    assert said == 'cogit: noted for memory as a feedback learning: "first lesson"'
    p.tool(1)
    p.hook("SessionEnd", reason="prompt_input_exit")
    p.settle()
    assert not (c.home / "runtime" / "sessions").exists() or not any((c.home / "runtime" / "sessions").iterdir())
    p.hook("SessionStart", source="resume")
    said = p.hook("UserPromptSubmit", prompt="Remember this: second lesson")
    assert said == 'cogit: noted for memory as a feedback learning: "second lesson"'
    p.tool(2)
    p.tool(3)
    p.hook("SessionEnd", reason="prompt_input_exit")
    p.settle()
    assert sorted(p.learnings()) == ["first lesson", "second lesson"]
    tools = c.json("show", "tools")["tools"]
    assert tools["tools"]["Read"]["calls"] == 3
    assert tools["sessions"] == 1  # a resumed session is the same session
    log = c.json("log", "--session", SID, "--event", "session")  # (the project branch it created is this session's too)
    assert [e["trailers"]["Cogit-Event"] for e in log] == ["session.end", "session.end"]
    folds = [e["trailers"]["Cogit-Fold"] for e in log]
    assert len(set(folds)) == 2 and all(f.startswith(SID + ":") for f in folds)
    c.assert_healthy()


def test_a_killed_session_leaves_nothing_behind(project):
    p, c = project, project.c
    stale_now(c)
    p.hook("SessionStart", source="startup")
    p.tool(1)
    p.tool(2, ok=False)
    # killed: no SessionEnd. The next command folds it and removes its runtime folder.
    status = c.json("status")
    assert status["sessions"] == 0
    assert not (c.home / "runtime" / "sessions" / SID).exists()
    tools = c.json("show", "tools")["tools"]
    assert (tools["tools"]["Read"]["calls"], tools["tools"]["Bash"]["failures"]) == (1, 1)
    assert tools["sessions"] == 1
    assert [e["trailers"]["Cogit-Event"] for e in c.json("log", "--session", SID)] == ["session.fold"]


def test_status_counts_only_unsaved_sessions(project):
    p, c = project, project.c
    p.hook("SessionStart", source="startup")  # live, nothing recorded yet
    assert c.json("status")["sessions"] == 0
    p.tool(1)
    assert c.json("status")["sessions"] == 1


def test_an_empty_session_makes_no_commit(project):
    p, c = project, project.c
    before = c.git("rev-list", "--all", "--count")
    p.hook("SessionStart", source="startup")
    p.hook("Stop", stop_hook_active=False)
    p.hook("SessionEnd", reason="other")
    p.settle()
    assert c.git("rev-list", "--all", "--count") == before
    assert not (c.home / "runtime" / "sessions" / SID).exists()


def test_the_noted_echo_is_what_is_stored(project):
    p, c = project, project.c
    p.hook("SessionStart", source="startup")
    key = "AKIA" + "ABCDEFGHIJKLMNOP"
    said = p.hook("UserPromptSubmit", prompt=f"remember this: the deploy key is {key}")
    assert key not in said and "[REDACTED:aws-access-key-id]" in said
    p.hook("SessionEnd", reason="other")
    p.settle()
    (stored,) = p.learnings()
    assert said == f'cogit: noted for memory as a feedback learning: "{stored}"'


def test_a_queued_item_that_cannot_be_stored_is_kept_and_reported(project):
    """An item the store refuses is moved to runtime/unstored/, logged, and listed by doctor."""
    p, c = project, project.c
    p.hook("SessionStart", source="startup")
    p.hook("UserPromptSubmit", prompt="remember this: a lesson")
    state_path = c.home / "runtime" / "sessions" / SID / "state.json"
    # Let no detached finalize take the item first: wait for it, then corrupt a queued copy.
    p.settle()
    p.hook("SessionStart", source="resume")
    state = json.loads(state_path.read_text())
    state["queue"].append({"qid": 99, "fold": f"{SID}:x:q99", "kind": "learning", "text": "y" * 2500,
                           "category": "feedback", "trigger": "explicit", "t": time.time()})
    state_path.write_text(json.dumps(state))
    c.run("finalize")
    unstored = list((c.home / "runtime" / "unstored").iterdir())
    assert len(unstored) == 1 and json.loads(unstored[0].read_text())["text"] == "y" * 2500
    assert "could not store queued learning" in (c.home / "runtime" / "logs" / "store.log").read_text()
    doctor = c.run("doctor", check=False)
    assert doctor.returncode == 1 and "could not be stored" in doctor.out and "over the limit of 2,000" in doctor.out
    report = json.loads(c.run("doctor", "--json", check=False).out)
    assert [f["fold"] for f in report if f["status"] == "fail"] == [f"{SID}:x:q99"]
