"""A pulled tree is data, never paths: a crafted remote writes nothing, runs nothing.

The remote's history is written with dulwich's object layer straight into a real
bare repository (git itself refuses to make most of these trees), then served as a
path and by a real `git daemon` on 127.0.0.1. Each hostile commit sits on top of
valid memory; pull, clone and sync must refuse it, name the commit and the entry,
and leave every file inside and outside memory as it was.
"""

from __future__ import annotations

import os
import stat
import time

import pytest
from conftest import Cogit
from dulwich.objects import Blob, Commit, Tree
from dulwich.repo import Repo
from gitservers import bare_repo, git, git_daemon, git_env  # noqa: F401  (fixtures)

FSMONITOR = b"[core]\n\tfsmonitor = touch PWNED-BY-FSMONITOR\n"


def _blob(repo: Repo, data: bytes) -> bytes:
    blob = Blob.from_string(data)
    repo.object_store.add_object(blob)
    return blob.id


def _subtree(repo: Repo, entries: dict[bytes, bytes]) -> bytes:
    tree = Tree()
    for name, data in entries.items():
        tree.add(name, 0o100644, _blob(repo, data))
    repo.object_store.add_object(tree)
    return tree.id


def _commit(repo: Repo, tree_id: bytes, parent: bytes, n: int = 0) -> bytes:
    c = Commit()
    c.tree, c.parents = tree_id, [parent]
    c.author = c.committer = b"Mallory <m@example.com>"
    c.author_time = c.commit_time = int(time.time()) + n
    c.author_timezone = c.commit_timezone = 0
    c.message = b"innocent-looking change\n\nCogit-Event: human.edit\nCogit-Source: human\n"
    repo.object_store.add_object(c)
    return c.id


def hostile(repo: Repo, case: str) -> tuple[bytes, str]:
    """Put a crafted commit on top of the remote's main; returns (commit, what the refusal names)."""
    head = repo.refs[b"refs/heads/main"]
    tree = Tree()
    for entry in repo[repo[head].tree].items():
        tree.add(entry.path, entry.mode, entry.sha)
    expect = None
    if case == "traversal":
        tree.add(b"../../ESCAPED", 0o100644, _blob(repo, b"written outside\n"))
        expect = "../../ESCAPED"
    elif case == "dot-git-config":
        tree.add(b".git", 0o040000, _subtree(repo, {b"config": FSMONITOR}))
        expect = ".git"
    elif case == "dot-git-case":
        tree.add(b".GiT", 0o040000, _subtree(repo, {b"config": FSMONITOR}))
        expect = ".GiT"
    elif case == "slash-name":
        tree.add(b".git/config", 0o100644, _blob(repo, FSMONITOR))
        expect = ".git/config"
    elif case == "symlink":
        tree.add(b"learnings.yaml", 0o120000, _blob(repo, b"/etc/passwd"))
        expect = "symlink"
    elif case == "gitlink":
        tree.add(b"vendor", 0o160000, head)
        expect = "vendor"
    elif case == "subtree":
        tree.add(b"nested", 0o040000, _subtree(repo, {b"learnings.yaml": b"schema_version: 1\nitems: []\n"}))
        expect = "nested"
    elif case == "case-variant":
        tree.add(b"Learnings.yaml", 0o100644, _blob(repo, b"schema_version: 1\nitems: []\n"))
        expect = "Learnings.yaml"
    elif case == "extra-file":
        tree.add(b"payload.bin", 0o100644, _blob(repo, os.urandom(1024) * 2048))  # 2 MB
        expect = "payload.bin"
    elif case == "huge-state-file":
        tree.add(b"learnings.yaml", 0o100644, _blob(repo, b"# " + b"x" * (300 * 1024) + b"\nschema_version: 1\nitems: []\n"))
        expect = "over the"
    elif case == "executable-hook":
        tree.add(b"post-checkout", 0o100755, _blob(repo, b"#!/bin/sh\ntouch PWNED\n"))
        expect = "post-checkout"
    else:
        raise AssertionError(case)
    repo.object_store.add_object(tree)
    sha = _commit(repo, tree.id, head)
    repo.refs[b"refs/heads/main"] = sha
    return sha, expect


CASES = ["traversal", "dot-git-config", "dot-git-case", "slash-name", "symlink", "gitlink", "subtree",
         "case-variant", "extra-file", "huge-state-file", "executable-hook"]


def snapshot(root) -> dict[str, bytes]:
    """Every file under `root` but git's object store and cogit's logs and caches (which may grow)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        if rel.startswith(("srv", "daemon")) or "objects" in rel.split(os.sep) or rel.endswith(("logs", "cache", "parsed", "digest")):
            continue
        for name in filenames:
            path = os.path.join(dirpath, name)
            if name in ("FETCH_HEAD", "memory.lock", "index") or ".lock" in name:
                continue
            out[os.path.relpath(path, root)] = open(path, "rb").read() if not os.path.islink(path) else b"->"
    return out


@pytest.fixture(autouse=True, params=["git", "dulwich"])
def via(request, monkeypatch):
    """Every guarantee here holds for both transports (the git binary and dulwich)."""
    monkeypatch.setenv("COGIT_SYNC_TRANSPORT", request.param)
    return request.param


@pytest.fixture
def machine(tmp_path, git_env):
    (tmp_path / "m").mkdir()
    c = Cogit(tmp_path / "m" / "home")
    c.run("init")
    c.run("add", "learning", "a lesson worth keeping")
    return c


def join_then_turn_hostile(c: Cogit, remote, case: str) -> tuple[bytes, str]:
    """The machine syncs with the remote, then the remote grows a crafted commit."""
    c.run("remote", "add", "origin", remote)
    c.run("push")
    repo = Repo(str(remote.path))
    try:
        return hostile(repo, case)
    finally:
        repo.close()


@pytest.mark.parametrize("case", CASES)
def test_pull_refuses_a_crafted_tree_and_writes_nothing(case, machine, bare_repo, tmp_path, git_env):
    c = machine
    sha, expect = join_then_turn_hostile(c, bare_repo, case)
    before = snapshot(tmp_path)
    head = c.git("rev-parse", "main").strip()
    proc = c.run("pull", check=False)
    assert proc.returncode == 1, proc.err
    assert f"commit {sha.decode()[:10]}" in proc.err and expect in proc.err, proc.err
    assert "Local memory is unchanged" in proc.err
    assert c.git("rev-parse", "main").strip() == head
    assert snapshot(tmp_path) == before
    assert not list(tmp_path.rglob("ESCAPED")) and not list(tmp_path.rglob("PWNED*"))
    c.assert_healthy()
    assert "PWNED" not in c.git("status", "--porcelain") and not list(tmp_path.rglob("PWNED*"))
    # The next session still works: sync reports the same refusal, memory keeps working.
    assert c.run("sync", check=False).returncode == 1
    c.run("add", "learning", "still writable")


@pytest.mark.parametrize("case", ["traversal", "dot-git-config", "symlink", "gitlink"])
def test_clone_and_git_daemon_refuse_a_crafted_tree(case, machine, git_daemon, tmp_path, git_env):
    c = machine
    sha, expect = join_then_turn_hostile(c, git_daemon, case)
    head = c.git("rev-parse", "main").strip()
    proc = c.run("pull", check=False)
    assert proc.returncode == 1 and expect in proc.err, proc.err
    assert c.git("rev-parse", "main").strip() == head
    (tmp_path / "fresh").mkdir()
    fresh = Cogit(tmp_path / "fresh" / "home")
    proc = fresh.run("clone", git_daemon, check=False)
    assert proc.returncode == 1 and f"commit {sha.decode()[:10]}" in proc.err, proc.err
    assert not fresh.home.exists()  # a failed clone leaves nothing behind
    assert not list(tmp_path.rglob("ESCAPED")) and not list(tmp_path.rglob("PWNED*"))


def test_a_crafted_commit_deep_in_a_long_history_is_found(machine, git_daemon, tmp_path, git_env):
    """10,000 commits, one of them near the bottom carries a traversal entry."""
    c = machine
    c.run("remote", "add", "origin", git_daemon)
    c.run("push")
    repo = Repo(str(git_daemon.path))
    good_tree = repo[repo.refs[b"refs/heads/main"]].tree
    sha, _ = hostile(repo, "traversal")
    bad = sha
    parent = sha
    for n in range(10_000):
        parent = _commit(repo, good_tree, parent, n + 1)
    repo.refs[b"refs/heads/main"] = parent
    repo.close()
    head = c.git("rev-parse", "main").strip()
    proc = c.run("pull", check=False, timeout=300)
    assert proc.returncode == 1 and f"commit {bad.decode()[:10]}" in proc.err, proc.err
    assert c.git("rev-parse", "main").strip() == head
    assert not list(tmp_path.rglob("ESCAPED"))


@pytest.mark.parametrize("via", ["git", "dulwich"], indirect=True)
def test_malformed_objects_are_refused_by_git_fsck(machine, git_daemon, tmp_path, git_env, via):
    """A commit git's fsck calls broken (an author without an email) never lands (git transport:
    transfer.fsckObjects); dulwich has no fsck, its pulls rely on cogit's own checks alone."""
    c = machine
    c.run("remote", "add", "origin", git_daemon)
    assert c.json("push")["transport"] == via
    repo = Repo(str(git_daemon.path))
    head = repo.refs[b"refs/heads/main"]
    raw = (b"tree " + repo[head].tree + b"\nparent " + head + b"\n"
           b"author Mallory 1700000000 +0000\ncommitter Mallory 1700000000 +0000\n\nbroken\n")
    import hashlib
    import zlib
    sha = hashlib.sha1(b"commit %d\0" % len(raw) + raw).hexdigest()
    obj = git_daemon.path / "objects" / sha[:2] / sha[2:]
    obj.parent.mkdir(exist_ok=True)
    obj.write_bytes(zlib.compress(b"commit %d\0" % len(raw) + raw))
    repo.refs[b"refs/heads/main"] = sha.encode()
    repo.close()
    before = c.git("rev-parse", "main").strip()
    proc = c.run("pull", check=False)
    if via == "git":
        assert proc.returncode == 1 and "fsck" in proc.err and "Local memory is unchanged" in proc.err, proc.err
        assert c.git("rev-parse", "main").strip() == before
        assert not c.git("for-each-ref", "refs/cogit/").strip()
    else:
        # dulwich has no fsck: the walk of the pulled history refuses the commit it cannot read
        assert proc.returncode == 1 and "cannot be read" in proc.err and "Local memory is unchanged" in proc.err, proc.err
        assert c.git("rev-parse", "main").strip() == before
    c.assert_healthy()


def test_local_stray_entries_leave_memory_on_the_next_write(initialized):
    """Plain `git commit` of a foreign file in memory: the next cogit write drops it, and says so."""
    c = initialized
    memory = c.home / "memory"
    (memory / "notes.txt").write_text("mine\n")
    c.git("add", "notes.txt")
    c.git("-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "notes\n\nCogit-Event: human.edit\nCogit-Source: human")
    c.run("add", "learning", "after the stray")
    assert "notes.txt" not in c.git("ls-tree", "--name-only", "main")
    body = c.git("log", "-1", "--format=%B")
    assert "Removed entries that are not memory files: 'notes.txt'" in body
    assert "mine" in c.git("show", "HEAD~1:notes.txt")  # still in history
    assert stat.S_ISREG(os.lstat(memory / "learnings.yaml").st_mode)
