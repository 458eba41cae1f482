"""Remote bombs: what a hostile remote sends is measured before it is read.

A 256 MiB blob of zeros is a few hundred KB on the wire. As a state file of a pulled commit it
must be refused from the object's header, before its content is inflated: the pull's peak
memory (the cogit process and every git process under it) stays far below the blob's size.
Over both transports, from a path and from a real `git daemon` on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from conftest import Cogit
from dulwich.objects import Blob, Commit, Tree
from dulwich.repo import Repo
from gitservers import bare_repo, git, git_daemon, git_env  # noqa: F401  (fixtures)

BOMB = 256 << 20
PEAK_MB = 160  # the whole pull, every process under it; a read of the bomb alone would be 256+




def measured_pull(c: Cogit, *args) -> tuple[subprocess.CompletedProcess, float]:
    """`cogit pull` run under a fresh parent, which reports the peak RSS (MB) of all its descendants."""
    code = ("import resource, subprocess, sys, json; "
            "p = subprocess.run(sys.argv[1:], capture_output=True); "
            "print(json.dumps([p.returncode, p.stdout.decode('utf-8', 'replace'), p.stderr.decode('utf-8', 'replace'), "
            "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss]))")
    env = dict(os.environ, COGIT_HOME=str(c.home))
    out = subprocess.run([sys.executable, "-c", code, sys.executable, "-m", "cogit", "pull", *args], env=env,
                         capture_output=True, text=True, timeout=300, cwd=str(c.home.parent)).stdout
    rc, stdout, stderr, kb = json.loads(out)
    return subprocess.CompletedProcess(args, rc, stdout, stderr), kb / 1024


def _commit(repo: Repo, tree_id: bytes, parents: list[bytes], n: int = 0, message: bytes | None = None) -> bytes:
    c = Commit()
    c.tree, c.parents = tree_id, parents
    c.author = c.committer = b"Mallory <m@example.com>"
    c.author_time = c.commit_time = 1_700_000_000 + n
    c.author_timezone = c.commit_timezone = 0
    c.message = message or b"innocent-looking change\n\nCogit-Event: human.edit\nCogit-Source: human\n"
    return c


def plant_bomb(remote, what: str) -> bytes:
    repo = Repo(str(remote.path))
    try:
        head = repo.refs[b"refs/heads/main"]
        tree = Tree()
        for entry in repo[repo[head].tree].items():
            tree.add(entry.path, entry.mode, entry.sha)
        message = None
        if what == "blob":
            blob = Blob.from_string(bytes(BOMB))
            repo.object_store.add_object(blob)
            tree.add(b"learnings.yaml", 0o100644, blob.id)
            del blob
        else:  # a commit whose message is the bomb
            message = b"x\n\n" + b"x" * BOMB
        repo.object_store.add_object(tree)
        c = _commit(repo, tree.id, [head], message=message)
        repo.object_store.add_object(c)
        repo.refs[b"refs/heads/main"] = c.id
        return c.id
    finally:
        repo.close()


# git holds a commit whole (only blobs stream): with the git transport a 256 MiB commit costs
# git itself that memory for a moment before it fails, so that case is dulwich's only (see docs).
CASES = [("blob", "git"), ("blob", "dulwich"), ("commit", "dulwich")]


@pytest.mark.parametrize("server", ["bare_repo", "git_daemon"])
@pytest.mark.parametrize("what,via", CASES)
def test_a_zero_bomb_is_refused_from_its_header(what, via, server, request, tmp_path, git_env, monkeypatch):
    monkeypatch.setenv("COGIT_SYNC_TRANSPORT", via)
    remote = request.getfixturevalue(server)
    (tmp_path / "m").mkdir()
    c = Cogit(tmp_path / "m" / "home")
    c.run("init")
    c.run("add", "learning", "a lesson worth keeping")
    c.run("remote", "add", "origin", remote)
    c.run("push")
    sha = plant_bomb(remote, what)
    head = c.git("rev-parse", "main").strip()
    t0 = time.monotonic()
    proc, peak = measured_pull(c)
    took = time.monotonic() - t0
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "over the" in proc.stderr and "Local memory is unchanged" in proc.stderr, proc.stderr
    if via == "git":  # the tree check names the commit; dulwich refuses the object before any commit is read
        assert sha.decode()[:10] in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert c.git("rev-parse", "main").strip() == head
    assert peak < PEAK_MB, f"peak {peak:.0f} MB"
    assert took < 60
    c.assert_healthy()


HISTORY = 100_000
# The stated bound (docs/incoming/sec-files.md): 100,000 new commits are validated and land
# within 300 s and 400 MB on a loaded 2-core machine (measured: 204-225 s, 209 MB, either
# transport). One transport here: the run is long, and both share the validation walk.
HISTORY_SECONDS = 300
HISTORY_MB = 400


@pytest.mark.parametrize("via", ["git"])
def test_a_history_of_100000_commits_is_handled_within_its_bound(via, git_daemon, tmp_path, git_env, monkeypatch):
    """A remote with 100,000 new commits (each a valid memory commit, one tree): the pull
    validates them all within the stated time and memory, or refuses; here it lands."""
    monkeypatch.setenv("COGIT_SYNC_TRANSPORT", via)
    (tmp_path / "m").mkdir()
    c = Cogit(tmp_path / "m" / "home")
    c.run("init")
    c.run("remote", "add", "origin", git_daemon)
    c.run("push")
    repo = Repo(str(git_daemon.path))
    try:
        head = repo.refs[b"refs/heads/main"]
        tree = repo[head].tree
        objects, parent = [], head
        for n in range(HISTORY):
            commit = _commit(repo, tree, [parent], n + 1)
            objects.append((commit, None))
            parent = commit.id
        repo.object_store.add_objects(objects)  # one pack
        repo.refs[b"refs/heads/main"] = parent
    finally:
        repo.close()
    t0 = time.monotonic()
    proc, peak = measured_pull(c)
    took = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr
    assert c.git("rev-parse", "main").strip() == parent.decode()
    assert took < HISTORY_SECONDS and peak < HISTORY_MB, f"{took:.0f} s, {peak:.0f} MB"
    print(f"{via}: {HISTORY} commits pulled in {took:.1f} s, peak {peak:.0f} MB")
