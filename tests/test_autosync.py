"""Auto-sync: a detached pull at session start, a push after the session ends, and
hooks that never wait on the network, with real hook processes and a real remote."""

from __future__ import annotations

import time
from pathlib import Path

from test_sync import hand_edit_config, machines, silent_server  # noqa: F401  (fixture)
from gitservers import bare_repo, git, git_env, requires_git  # noqa: F401  (fixtures)

pytestmark = requires_git


def wait_for(check, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


def test_auto_sync_pulls_at_session_start_and_pushes_after_the_end(machines, bare_repo, git_env, tmp_path):
    a, b = machines
    a.run("init")
    hand_edit_config(a, "  auto: false", "  auto: true")
    assert a.confirm_waiting() == ["sync.auto"]
    a.run("remote", "add", "origin", bare_repo)
    a.run("push")
    b.run("clone", bare_repo)
    b.run("add", "learning", "b wrote this while a was away")
    b.run("push")
    sid = "9a8b7c6d-0000-4000-8000-000000000001"
    base = {"session_id": sid, "transcript_path": "/tmp/t.jsonl", "cwd": str(tmp_path)}
    t0 = time.monotonic()
    proc = a.hook("SessionStart", {**base, "hook_event_name": "SessionStart", "source": "startup"})
    assert proc.returncode == 0 and time.monotonic() - t0 < 5
    assert wait_for(lambda: "b wrote this" in (a.home / "memory" / "learnings.yaml").read_text())
    a.hook("UserPromptSubmit", {**base, "hook_event_name": "UserPromptSubmit", "permission_mode": "default",
                                "prompt": "remember this: a learned it in a session"})
    a.hook("SessionEnd", {**base, "hook_event_name": "SessionEnd", "reason": "exit"})
    assert wait_for(lambda: "a learned it" in git("show", "main:learnings.yaml", cwd=bare_repo.path, env=git_env))
    # The detached push writes its log line after the push itself: wait for it too.
    log = a.home / "runtime" / "logs" / "sync.log"
    assert wait_for(lambda: "auto-push with origin" in _read(log))
    assert "auto-pull with origin: main fast-forward" in _read(log)


def test_auto_sync_hooks_never_wait_on_a_silent_remote(machines):
    a, _ = machines
    a.run("init")
    hand_edit_config(a, "  auto: false", "  auto: true")
    assert a.confirm_waiting() == ["sync.auto"]
    with silent_server() as s:
        a.run("remote", "add", "origin", f"git://127.0.0.1:{s.getsockname()[1]}/m.git")
        sid = "9a8b7c6d-0000-4000-8000-000000000002"
        t0 = time.monotonic()
        proc = a.hook("SessionStart", {"session_id": sid, "transcript_path": "/t.jsonl", "cwd": "/tmp",
                                       "hook_event_name": "SessionStart", "source": "startup"})
        assert proc.returncode == 0 and proc.err == ""  # (empty memory: nothing to inject)
        assert time.monotonic() - t0 < 3
        assert wait_for(lambda: "auto-pull failed" in _read(a.home / "runtime" / "logs" / "sync.log"), 20)
    assert "no answer within" in _read(a.home / "runtime" / "logs" / "sync.log")


def _read(path: Path) -> str:
    return path.read_text() if path.exists() else ""
