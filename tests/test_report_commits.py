"""Which commits the report holds, read through git (cogit/report_commits.py `through_git`)
and walked by dulwich (`walked`, the way it was): the same answer on real histories.

The history is made as the hard cases come: cogit's own commits on main and two project
branches, then commits written with the `git` binary on top of them whose clocks disagree
(many in one second, a child older than its parent, author and commit times apart), merges
across scopes (a commit reachable from two branches), session receipts (`Cogit-Shown`) in
plain and in latin-1 messages, and a receipt only in the subject line. The whole page is
compared too (`build` with and without git), on this history and on the report's own
(tests/test_report.py)."""

from __future__ import annotations

import json
import os
import random
import subprocess

import pytest

from cogit import report, report_commits
from cogit.paths import Home
from cogit.store.git import repo as git


def _commit(memory, tree: str, parents: list[str], message: bytes, author_t: int, commit_t: int, encoding=None) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="Test Person", GIT_AUTHOR_EMAIL="test@example.com", GIT_COMMITTER_NAME="Test Person",
               GIT_COMMITTER_EMAIL="test@example.com", GIT_AUTHOR_DATE=f"{author_t} +0000", GIT_COMMITTER_DATE=f"{commit_t} +0000")
    args = ["git", *(["-c", f"i18n.commitEncoding={encoding}"] if encoding else []), "commit-tree", tree]
    for p in parents:
        args += ["-p", p]
    proc = subprocess.run(args, input=message, cwd=memory, env=env, capture_output=True, check=True)
    return proc.stdout.decode().strip()


def _git(memory, *args) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run(["git", *args], cwd=memory, env=env, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def tangled(initialized):
    """A memory of three scopes whose history has every ordering trap (see the module doc)."""
    c = initialized
    c.run("add", "learning", "Run the narrow test first")
    c.run("add", "learning", "Alpha's tests need the widgets extra", "--project", "alpha")
    c.run("add", "learning", "Beta builds with make", "--project", "beta")
    memory = c.home / "memory"
    branches = ["main", "project/alpha", "project/beta"]
    tips = {b: _git(memory, "rev-parse", b) for b in branches}
    trees = {b: _git(memory, "rev-parse", f"{b}^{{tree}}") for b in branches}
    rnd = random.Random(25)
    base = int(_git(memory, "log", "-1", "--format=%ct", "main"))
    sides: list[str] = []  # forks not on any branch yet: a merge brings each in (wide fronts, many ties)
    for n in range(160):
        b = rnd.choice(branches)
        fork = rnd.random() < 0.3
        parents = [rnd.choice(sides) if fork and sides and rnd.random() < 0.5 else tips[b]]
        if not fork and rnd.random() < 0.3:  # a merge: another scope's or a fork's commit becomes reachable
            parents.append(sides.pop(rnd.randrange(len(sides))) if sides and rnd.random() < 0.7
                           else tips[rnd.choice([x for x in branches if x != b])])
        lines = [f"Step {n} on {b}", "", "Some body text."]
        if rnd.random() < 0.5:
            lines += ["", "Cogit-Event: test", f"Cogit-Session: sess-{rnd.randrange(8)}",
                      f"Cogit-Shown: ru-{rnd.randrange(4):04x} ru-{rnd.randrange(4):04x}"]
        message = "\n".join(lines) + "\n"
        encoding = "ISO-8859-1" if n % 17 == 3 else None  # git writes an encoding header: dulwich reads this one
        data = message.replace("Some body", "Caf\xe9 body").encode("latin-1") if encoding else message.encode()
        # Clocks in whole seconds that often agree, some behind the parent's; author and commit apart.
        author_t, commit_t = base + rnd.choice([0, 0, 0, 1, -50]), base + rnd.choice([0, 0, 1, 2, -70])
        sha = _commit(memory, trees[b], parents, data, author_t, commit_t, encoding)
        if fork:
            sides.append(sha)
        else:
            tips[b] = sha
        base += rnd.choice([0, 0, 0, 1])
    for side in sides:
        tips["main"] = _commit(memory, trees["main"], [tips["main"], side], b"Merge a fork\n", base, base)
    # A receipt in the subject line: not a trailer line, whatever a substring test says.
    tips["main"] = _commit(memory, trees["main"], [tips["main"]], b"Cogit-Shown: ru-0001\n\nCogit-Session: sess-9\n",
                           base, base)
    for b in branches:
        _git(memory, "update-ref", f"refs/heads/{b}", tips[b])
    return c


def _listing(home: Home, cutoff, max_commits: int, *, use_git: bool):
    repo = git.open_existing(home)
    try:
        scopes, _ = report._scopes(repo, None)
        if use_git:
            found = report_commits.through_git(repo, str(home.memory / ".git"), scopes, cutoff, max_commits)
            assert found is not None, "git did not answer"
        else:
            found = report_commits.walked(repo, scopes, cutoff, max_commits)
    finally:
        repo.close()
    return ([i.sha for i in found.shown], [i for i in found.shown], found.scope_of, found.total, found.in_range,
            json.dumps(found.shown_at))  # the order of sessions within a rule is part of the page


def test_git_and_the_walk_hold_the_same_commits_in_the_same_order(tangled):
    home = Home(tangled.home)
    times = sorted(int(t) for t in _git(home.memory, "log", "--all", "--format=%at").split())
    walked_all = _listing(home, None, 10_000, use_git=False)
    assert walked_all[3] == len(times) and len(set(walked_all[0])) == len(times)
    assert any(len(s) > 1 for s in walked_all[2].values()), "no commit is reachable from two scopes"
    assert json.loads(walked_all[5]), "no session was shown a rule"
    for cutoff in (None, times[len(times) // 2], times[-1] + 1):
        for max_commits in (1, 7, 40, 10_000):
            assert _listing(home, cutoff, max_commits, use_git=True) == _listing(home, cutoff, max_commits, use_git=False), \
                (cutoff, max_commits)


def test_the_page_is_the_same_with_and_without_git(tangled):
    home = Home(tangled.home)
    for kw in ({}, {"max_commits": 9}, {"since": "2000-01-01"}):
        with_git = report.build(home, now=2_000_000_000, **kw)
        without = report.build(home, now=2_000_000_000, use_git=False, **kw)
        assert json.dumps(with_git, sort_keys=True) == json.dumps(without, sort_keys=True), kw


def test_git_that_cannot_answer_leaves_the_walk_to_answer(tangled):
    """A commit over the bound: through_git refuses, and `read` walks as before."""
    home = Home(tangled.home)
    memory = home.memory
    tree = _git(memory, "rev-parse", "main^{tree}")
    big = b"A long message\n\n" + b"x" * (report_commits.MAX_MESSAGE + 10) + b"\n\nCogit-Event: test\nCogit-Session: s\nCogit-Shown: ru-0002\n"
    head = _commit(memory, tree, [_git(memory, "rev-parse", "main")], big, 2_000_000_000, 2_000_000_000)
    _git(memory, "update-ref", "refs/heads/main", head)
    repo = git.open_existing(home)
    try:
        scopes, _ = report._scopes(repo, None)
        assert report_commits.through_git(repo, str(memory / ".git"), scopes, None, 400) is None
        answer = report_commits.read(repo, str(memory / ".git"), scopes, None, 400)
    finally:
        repo.close()
    assert answer.shown[0].sha == head and "ru-0002" in answer.shown_at
