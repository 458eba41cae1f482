"""Concurrent writers are the normal case: nothing acknowledged is ever lost."""

from __future__ import annotations

import subprocess
import sys

WRITER = """
import sys
from cogit.paths import Home
from cogit.store import memory
from cogit.store.git.provenance import Provenance
home = Home(sys.argv[1]); who = sys.argv[2]
for n in range(int(sys.argv[3])):
    r = memory.write(home, Provenance(event="learning.add", source="cli", agent=who), memory.add_item("learnings", f"{who} lesson {n}"))
    assert r is not None
    print(r.sha, flush=True)
"""


def test_parallel_writers_lose_nothing(initialized):
    c = initialized
    cfg = c.home / "memory" / "config.yaml"
    cfg.write_text(cfg.read_text().replace("learnings: 50", "learnings: 500"))
    c.run("commit")
    writers, per = 6, 8
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(c.home), f"w{i}", str(per)], stdout=subprocess.PIPE, text=True)
             for i in range(writers)]
    acknowledged = []
    for p in procs:
        out, _ = p.communicate(timeout=120)
        assert p.returncode == 0
        acknowledged += out.split()
    assert len(acknowledged) == writers * per
    history = set(c.git("rev-list", "HEAD").split())
    assert set(acknowledged) <= history
    texts = {i["text"] for i in c.json("show", "learnings")["learnings"]}
    assert texts == {f"w{i} lesson {n}" for i in range(writers) for n in range(per)}
    # History is linear: every commit has the one before it as parent.
    assert c.git("rev-list", "--merges", "HEAD") == ""
    c.assert_healthy()


def test_lock_waiters_are_served_in_arrival_order(tmp_path):
    import threading
    import time

    from cogit.locking import queued_lock

    path = tmp_path / "memory.lock"
    order, started = [], []
    holder = queued_lock(path, 5)
    holder.__enter__()

    def waiter(n):
        started.append(n)
        with queued_lock(path, 10):
            order.append(n)
            time.sleep(0.01)

    threads = []
    for n in range(6):
        t = threading.Thread(target=waiter, args=(n,))
        t.start()
        threads.append(t)
        time.sleep(0.03)  # arrive one after another
    holder.__exit__(None, None, None)
    for t in threads:
        t.join()
    assert order == list(range(6))
    assert not list((tmp_path / "memory.lock.queue").iterdir())  # no ticket left behind


def test_a_dead_waiter_does_not_block_the_queue(tmp_path):
    """A waiter killed in line leaves a ticket nobody holds: the next one goes past it."""
    import os

    from cogit.locking import queued_lock

    queue = tmp_path / "memory.lock.queue"
    queue.mkdir()
    (queue / f"{1:020d}-999999").write_text("")  # older than any real ticket, no flock on it
    with queued_lock(tmp_path / "memory.lock", 2):
        pass
    assert os.listdir(queue) == []


HOOK_MIX = """
import json, subprocess, sys
home, sid, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def hook(event, **kw):
    payload = dict(session_id=sid, transcript_path="/tmp/t.jsonl", cwd="/tmp", hook_event_name=event, **kw)
    out = subprocess.run([sys.executable, "-m", "cogit", "hook", "claude", event], input=json.dumps(payload).encode(),
                         capture_output=True, timeout=30)
    assert out.returncode == 0
    return out.stdout.decode()
hook("SessionStart", source="startup")
for i in range(n):
    said = hook("UserPromptSubmit", prompt=f"Remember this: {sid} hook lesson {i}", permission_mode="default")
    assert "noted" in said, said
    hook("PostToolUse", tool_name="Read", tool_input={"file_path": "/tmp/x"}, tool_response={}, tool_use_id=f"t{i}")
hook("SessionEnd", reason="other")
"""


def test_sixteen_writers_and_hooks_lose_nothing(initialized):
    """16 writers x 50 changes, with agent sessions' hooks (and their finalize) mixed in."""
    c = initialized
    cfg = c.home / "memory" / "config.yaml"
    cfg.write_text(cfg.read_text().replace("learnings: 50", "learnings: 5000"))
    c.run("commit")
    writers, per, sessions, lessons = 16, 50, 2, 5
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(c.home), f"w{i}", str(per)], stdout=subprocess.PIPE, text=True)
             for i in range(writers)]
    hooks = [subprocess.Popen([sys.executable, "-c", HOOK_MIX, str(c.home), f"s{i}", str(lessons)],
                              env={**__import__("os").environ, "COGIT_HOME": str(c.home)}) for i in range(sessions)]
    acknowledged = []
    for p in procs:
        out, _ = p.communicate(timeout=600)
        assert p.returncode == 0
        acknowledged += out.split()
    for h in hooks:
        assert h.wait(timeout=600) == 0
    assert len(acknowledged) == writers * per
    assert set(acknowledged) <= set(c.git("rev-list", "HEAD").split())
    c.run("finalize")
    texts = [i["text"] for i in c.json("show", "learnings")["learnings"]]
    expected = {f"w{i} lesson {n}" for i in range(writers) for n in range(per)}
    expected |= {f"s{i} hook lesson {n}" for i in range(sessions) for n in range(lessons)}
    assert set(texts) == expected and len(texts) == len(expected)
    c.assert_healthy()


def test_a_held_lock_is_busy_exit_1_and_changes_nothing(initialized):
    c = initialized
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\nfrom cogit.locking import queued_lock\n"
        f"with queued_lock({str(c.home / 'runtime' / 'memory.lock')!r}, 5):\n"
        "    print('held', flush=True)\n    time.sleep(30)\n")], stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"held"
        head = c.git("rev-parse", "main")
        proc = c.run("add", "learning", "waits in vain", check=False, env={"COGIT_LOCK_WAIT": "0.5"})
        assert proc.returncode == 1, proc.err
        assert "busy" in proc.err and "try again" in proc.err.lower(), proc.err
        assert c.git("rev-parse", "main") == head
    finally:
        holder.kill()
        holder.wait()
    c.run("add", "learning", "goes through once it is free")
