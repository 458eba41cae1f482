"""The pulled history proven through the `git` binary (store/git/shape.py, plumbing.py).

The git reader may only ever say "all of it is memory": everything the dulwich reader
refuses, it must refuse too (and then the dulwich reader names the problem), and where
both accept, they must find the same commits and the same files to parse.
"""

from __future__ import annotations

import time

import pytest
from conftest import Cogit
from dulwich.objects import Commit, Tree
from dulwich.repo import Repo
from gitservers import git_env  # noqa: F401  (fixture)
from test_hostile_remote import CASES, _commit, hostile

from cogit.store.git import plumbing, shape
from cogit.store.git import repo as git
from cogit.store.state import yamlio
from cogit.store.state.documents import STATE_FILES
from cogit.sync import incoming


@pytest.fixture
def home(tmp_path, git_env):
    c = Cogit(tmp_path / "home")
    c.run("init")
    for n in range(3):
        c.run("add", "learning", f"lesson {n} worth keeping")
    return c


def _prove(repo_path, tip: bytes, known: list[str]):
    return shape.proven_history(str(repo_path / ".git"), tip.decode(), known, STATE_FILES, yamlio.MAX_BYTES, {})


def _craft_commit(repo: Repo, head: bytes, *, author=b"Mallory <m@example.com>", message=b"change\n",
                  extra: list | None = None) -> bytes:
    c = Commit()
    c.tree, c.parents = repo[head].tree, [head]
    c.author, c.committer = author, b"Mallory <m@example.com>"
    c.author_time = c.commit_time = int(time.time()) + 5
    c.author_timezone = c.commit_timezone = 0
    c.message = message
    if extra:
        c._extra = extra
    repo.object_store.add_object(c)
    return c.id


@pytest.mark.parametrize("case", CASES)
def test_git_refuses_every_crafted_tree_dulwich_refuses(case, home):
    repo = Repo(str(home.home / "memory"))
    try:
        known = repo.refs[b"refs/heads/main"].decode()
        sha, _ = hostile(repo, case)
        assert git.tree_problems(repo, sha.decode(), STATE_FILES, yamlio.MAX_BYTES)  # dulwich names it
        with pytest.raises(plumbing.Unavailable):
            _prove(home.home / "memory", sha, [known])
        # ... also deep under good commits, and when nothing is known yet (a clone)
        top = sha
        for n in range(3):
            top = _commit(repo, repo[known.encode()].tree, top, n + 1)
        with pytest.raises(plumbing.Unavailable):
            _prove(home.home / "memory", top, [])
    finally:
        repo.close()


@pytest.mark.parametrize("case", ["bad-author", "nul-message", "signed", "huge-message", "no-email-close"])
def test_git_refuses_every_crafted_commit_it_cannot_vouch_for(case, home):
    repo = Repo(str(home.home / "memory"))
    try:
        head = repo.refs[b"refs/heads/main"]
        if case == "bad-author":
            sha = _craft_commit(repo, head, author=b"Mallory<m@example.com>")
            assert git.commit_problems(repo, sha.decode())
        elif case == "no-email-close":
            sha = _craft_commit(repo, head, author=b"Mallory <m@example.com")
        elif case == "nul-message":
            sha = _craft_commit(repo, head, message=b"hidden\x00payload\n")
            assert git.commit_problems(repo, sha.decode())
        elif case == "signed":  # a decoration the git reader does not know: dulwich decides
            sha = _craft_commit(repo, head, extra=[(b"mergetag", b"object " + head)])
        else:
            sha = _craft_commit(repo, head, message=b"x" * (shape.MAX_COMMIT_BYTES + 1))
        with pytest.raises(plumbing.Unavailable):
            _prove(home.home / "memory", sha, [head.decode()])
    finally:
        repo.close()


def test_git_and_dulwich_find_the_same_commits_and_files(home, tmp_path, monkeypatch):
    """Two branches sharing history, a merge, and a known commit to stop at."""
    home.run("add", "learning", "project lesson", "--project", "demo")
    repo = Repo(str(home.home / "memory"))
    try:
        first = git.new_commits(repo, git.head(repo), [])[-1]
        main, project = git.head(repo), git.head(repo, "project/demo")
        t = Tree()
        for e in repo[repo[main.encode()].tree].items():
            t.add(e.path, e.mode, e.sha)
        merge = Commit()
        merge.tree, merge.parents = t.id, [main.encode(), project.encode()]
        merge.author = merge.committer = b"A <a@example.com>"
        merge.author_time = merge.commit_time = int(time.time()) + 9
        merge.author_timezone = merge.commit_timezone = 0
        merge.message = b"merge\n"
        repo.object_store.add_object(merge)
        tips = {"main": merge.id.decode(), "project/demo": project}
        for known in ([], [first]):
            walked_git: dict = {}
            by_git = incoming.check_structure(repo, tips, known, walked_git)
            assert incoming._structure_by_git(repo, tips, known, None) is not None  # git did answer
            monkeypatch.setattr(plumbing, "binary", lambda: None)
            walked_dulwich: dict = {}
            by_dulwich = incoming.check_structure(repo, tips, known, walked_dulwich)
            monkeypatch.undo()
            assert by_git == by_dulwich and walked_git == walked_dulwich
            assert by_git and walked_git["main"] >= 5
    finally:
        repo.close()


def test_blobs_stream_the_same_bytes_and_fall_back(home, monkeypatch):
    repo = Repo(str(home.home / "memory"))
    try:
        ids = sorted({b for c in git.new_commits(repo, git.head(repo), []) for b in git.blob_ids(repo, c).values()})
        expected = [git.blob(repo, b) for b in ids]
        assert list(incoming._blobs(repo, ids)) == expected
        monkeypatch.setattr(plumbing, "binary", lambda: None)
        assert list(incoming._blobs(repo, ids)) == expected
    finally:
        repo.close()


def test_a_clone_caches_only_the_tips_documents(home, tmp_path):
    for n in range(12):
        home.run("add", "learning", f"another lesson number {n}")
    (tmp_path / "fresh").mkdir()
    fresh = Cogit(tmp_path / "fresh" / "home")
    fresh.run("clone", str(home.home / "memory"))
    parsed = list((fresh.home / "runtime" / "cache" / "parsed").glob("*.json"))
    assert 0 < len(parsed) <= len(STATE_FILES)
    assert len(fresh.json("show", "learnings")["learnings"]) == 15
    # and git's walks (`log --event`) read a commit-graph instead of parsing every commit
    assert (fresh.home / "memory" / ".git" / "objects" / "info" / "commit-graph").is_file()
