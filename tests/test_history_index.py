"""The history index answers `why`, `log --item`, `log -n N` and `log --event` byte for
byte as the full walk does, without dulwich, and never wrongly when it is behind or damaged;
so does the one-item walk through git (history/itemwalk.py) on a fresh clone.

The reference is the old code path run in-process: every scope read through dulwich,
every commit of the walk diffed (`commit_changes`), each entry read from its commit. The
answers under test come from real `cogit` processes, on a history with two machines
syncing (merge commits from another clone), project scopes, caps that prune, forget,
revert, a hand `git commit` in the memory repository and same-second commits.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from conftest import Cogit
from gitservers import bare_repo, git_env, requires_git  # noqa: F401  (fixtures)

from cogit.cli import main
from cogit.paths import Home
from cogit.store.history import log as history, index as history_index
from cogit.store.git import repo as gitstore

pytestmark = requires_git


class FullWalk:
    """The old code path of `why` / `log --item`: the whole walk, every commit diffed."""

    def __init__(self, home, repo):
        self.repo = repo

    def walk(self, head):
        return (i.sha for i in gitstore.walk(self.repo, head)) if head else iter(())

    def changes(self, sha, item_id, needle=None):
        return history.commit_changes(self.repo, sha, only_id=item_id)

    def entry(self, sha):
        return history._entry(gitstore.info(self.repo, sha))

    def close(self):
        pass


def reference(monkeypatch, capsys, home: Path, args: list[str]) -> str:
    """The command's output by the old code path (no index, no recent files)."""

    def stale(*a, **k):
        raise history_index.Stale("reference")

    with monkeypatch.context() as m:
        m.setenv("COGIT_HOME", str(home))
        m.setattr(history, "ItemIndex", FullWalk)
        m.setattr(history, "_from_git", lambda *a: None)
        m.setattr(history, "refresh_recent", lambda home: None)
        m.setattr(history_index, "log", stale)
        m.setattr(history_index, "why", stale)
        capsys.readouterr()
        assert main(args) == 0
        return capsys.readouterr().out


def ids_of(home: Path) -> list[str]:
    repo = gitstore.open_repo(home / "memory")
    try:
        found = set()
        for branch in gitstore.branches(repo):
            for info in gitstore.walk(repo, gitstore.head(repo, branch)):
                found |= {c.key for c in history.commit_changes(repo, info.sha)}
        return sorted(found)
    finally:
        repo.close()


@pytest.fixture
def synced(tmp_path, bare_repo, git_env):
    """Machine b after two machines wrote, forgot, reverted, capped and synced."""
    a, b = Cogit(tmp_path / "machine-a"), Cogit(tmp_path / "machine-b")
    a.run("init")
    cfg = a.home / "memory" / "config.yaml"
    cfg.write_text(cfg.read_text().replace("learnings: 50 ", "learnings: 6 "))
    a.run("commit")
    a.run("remote", "add", "origin", bare_repo)
    a.run("push")
    b.run("clone", bare_repo)
    for n in range(4):
        a.run("add", "learning", f"a lesson {n}")
        b.run("add", "learning", f"b lesson {n}")
        a.run("add", "heuristic", f"a rule of thumb {n}", "--project", "proj-one")
    learned = [e for e in b.json("log", "--scope", "global") if e["summary"].startswith("Add learning")]
    b.run("revert", learned[0]["sha"])
    time.sleep(1.05)
    a.run("sync")
    b.run("sync")  # a merge commit on b with a's commits as its second parent
    b.run("add", "learning", "b after sync", "--project", "proj-two")
    b.run("forget", b.json("show")["learnings"][0]["id"])
    focus = b.home / "memory" / "focus.yaml"
    focus.write_text(focus.read_text() + "# a person's note\n")
    b.git("commit", "-q", "-am", "A note by hand")
    for n in range(3):  # same-second commits
        b.run("add", "learning", f"quick {n}")
    a.run("add", "avoidance", "a late one")
    a.run("sync")
    b.run("sync")
    return b


COMMANDS = [
    ["log", "-n", "20"], ["log", "-n", "20", "--json"], ["log", "-n", "3"],
    ["log", "--event", "learning", "-n", "20"], ["log", "--event", "merge", "-n", "20", "--json"],
    ["log", "--source", "cli", "-n", "7"], ["log", "--since", "2020-01-01", "-n", "5"], ["log"],
    ["why", "l-000000"], ["log", "--item", "l-000000"],
]


def item_commands(ids):
    out = []
    for i in ids:
        out += [["why", i], ["why", i, "--json"], ["log", "--item", i], ["log", "--item", i, "--json", "-n", "2"]]
    return out


def run(c: Cogit, args) -> str:
    return c.run(*args).out


def test_the_index_answers_byte_for_byte_as_the_full_walk(synced, monkeypatch, capsys):
    b = synced
    ids = ids_of(b.home)
    assert any(i.startswith("h-") for i in ids) and any(i.startswith("a-") for i in ids)
    commands = COMMANDS + item_commands(ids)
    expected = {tuple(a): reference(monkeypatch, capsys, b.home, a) for a in commands}
    for args in commands:  # the first runs bring the caches up to date (the full path)
        assert run(b, args) == expected[tuple(args)], args
    root, cache = str(b.home), str(b.home / "runtime" / "cache")
    history_index.why(root, cache, ids[0])  # current now: neither raises Stale
    history_index.log(root, cache, limit=20)
    for args in commands:  # now from the index
        assert run(b, args) == expected[tuple(args)], args
    # memory moves on: the next answers see it at once
    b.run("add", "learning", "one more")
    b.run("forget", b.json("show")["learnings"][0]["id"])
    new_ids = sorted(set(ids_of(b.home)) - set(ids)) + [i for i in ids if i.startswith("l-")][:2]
    for args in COMMANDS + item_commands(new_ids):
        assert run(b, args) == reference(monkeypatch, capsys, b.home, args), args


def test_session_end_work_brings_the_index_up_to_date(synced):
    b = synced
    home = Home(b.home)
    root, cache = str(b.home), str(b.home / "runtime" / "cache")
    with pytest.raises(history_index.Stale):
        history_index.why(root, cache, "l-000000")
    from cogit.store.maintain import maintain

    maintain(home)
    history_index.why(root, cache, "l-000000")
    history_index.log(root, cache, limit=20, event="learning")


PROBE = """
import json, sys
from cogit.cli import main
code = main(sys.argv[1:])
print(json.dumps([code, sorted(m for m in sys.modules if m.split(".")[0] in ("dulwich", "ruamel", "jsonschema"))]))
"""


def imports(c: Cogit, args) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True,
                         env=dict(os.environ, COGIT_HOME=str(c.home)), cwd=str(c.home.parent)).stdout
    code, modules = json.loads(out.splitlines()[-1])
    assert code == 0
    return modules


def test_current_index_means_no_dulwich_ruamel_or_jsonschema(initialized):
    c = initialized
    c.run("add", "learning", "something to ask about", "--project", "proj-x")
    c.run("add", "learning", "and a global one")
    item = c.json("show")["learnings"][0]["id"]
    queries = [["why", item], ["log", "--item", item], ["log", "-n", "20"], ["log", "--event", "learning", "-n", "20"]]
    for args in queries:
        assert "dulwich.repo" in imports(c, args) or args[0] == "log"  # behind: the full path, which catches up
    for args in queries:
        assert imports(c, args) == [], args
    c.run("add", "learning", "a new commit")  # behind again: answered through dulwich, then current
    assert "dulwich.repo" in imports(c, ["log", "-n", "20"])
    assert imports(c, ["log", "-n", "20"]) == []


def test_a_damaged_index_is_never_believed(synced, monkeypatch, capsys):
    b = synced
    ids = ids_of(b.home)
    commands = COMMANDS[:5] + item_commands(ids[:2] + ids[-2:])
    expected = {tuple(a): reference(monkeypatch, capsys, b.home, a) for a in commands}
    cache = b.home / "runtime" / "cache"
    idx, dat, recent = cache / "history.idx", cache / "history.dat", cache / "recent" / "main.jsonz"

    def packed(doc) -> bytes:
        return zlib.compress(json.dumps(doc).encode())

    def check():
        for args in commands:
            assert run(b, args) == expected[tuple(args)], args

    check()  # builds the caches
    good = idx.read_bytes(), dat.read_bytes(), recent.read_bytes()

    def restore():
        idx.write_bytes(good[0])
        dat.write_bytes(good[1])
        recent.write_bytes(good[2])

    damage = [
        lambda: dat.unlink(),
        lambda: idx.unlink(),
        lambda: recent.unlink(),
        lambda: idx.write_bytes(good[0][: len(good[0]) * 2 // 3]),  # torn in the middle of a line
        lambda: dat.write_bytes(good[1][: len(good[1]) // 2]),  # records lost
        lambda: dat.write_bytes(bytes(b ^ 0x55 if i % 97 == 50 else b for i, b in enumerate(good[1]))),  # garbled
        lambda: dat.write_bytes(good[1][:40] + b"\x00" * (len(good[1]) - 80) + good[1][-40:]),
        lambda: idx.write_bytes(b"cogit-history-index 1\n" + good[0].split(b"\n", 1)[1]),  # another format
        lambda: idx.write_bytes(good[0].replace(b"\t\n", b"\n", 5)),  # lines without their end
        lambda: idx.write_bytes(_swap_offsets(good[0])),  # lines pointing at other commits' records
        lambda: idx.write_bytes(good[0] + b"0" * 40 + b" 1 - 0 10 [\"x\"]\t\n" + b"\xff\xfe garbage\n"),
        lambda: recent.write_text("[not json"),
        lambda: recent.write_bytes(zlib.compress(b"[not json")),
        lambda: recent.write_bytes(good[2][: len(good[2]) // 2]),  # torn: the stream does not end
        lambda: recent.write_bytes(packed({**json.loads(zlib.decompress(good[2])), "head": "0" * 40})),
        lambda: recent.write_bytes(packed({**json.loads(zlib.decompress(good[2])), "entries": [["x"] * 7]})),
        lambda: recent.write_bytes(good[2] + b" " * (history_index.MAX_RECENT + 1)),  # too big to read
        # a small file that inflates past the bound (a zip bomb)
        lambda: recent.write_bytes(zlib.compress(zlib.decompress(good[2])[:-1] + b" " * (history_index.MAX_RECENT + 1)
                                                 + b"}", 9)),
        lambda: (cache / "recent").chmod(0o000),
    ]
    for n, spoil in enumerate(damage):
        restore()
        spoil()
        try:
            check()
        finally:
            (cache / "recent").chmod(0o700)
        check()  # and again, after the full path repaired what it could


def _swap_offsets(data: bytes) -> bytes:
    head, *lines = data.split(b"\n")
    a, b = lines[1].split(b" "), lines[2].split(b" ")
    a[3:5], b[3:5] = b[3:5], a[3:5]
    lines[1], lines[2] = b" ".join(a), b" ".join(b)
    return b"\n".join([head, *lines])


def test_a_fresh_clone_answers_one_item_through_git_byte_for_byte(synced, tmp_path, monkeypatch, capsys):
    """No runtime folder: `why ID` / `log --item ID` read that item's history through git
    (history/itemwalk.py) and build no index; the answers are the full walk's, on merges,
    scopes, caps, revert, forget, hand commits, a layout only ruamel reads, and escapes."""
    b = synced
    b.run("add", "learning", "a path C:\\tmp\\x with backslashes")
    learnings = b.home / "memory" / "learnings.yaml"
    text = learnings.read_text()
    first = text.split("- id: ", 1)[1].split("\n", 1)[0]
    escaped = '"' + first[:2] + "".join(f"\\x{ord(ch):02x}" for ch in first[2:]) + '"'  # the same id, spelled otherwise
    text = text.replace("items:\n", "items:  # a person's comment\n", 1).replace(f"- id: {first}\n", f"- id: {escaped}\n", 1)
    learnings.write_text(text)  # refused by the canonical reader: ruamel reads it
    b.git("commit", "-q", "-am", "A comment by hand")
    b.run("add", "learning", "after the hand comment")
    fresh = Cogit(tmp_path / "fresh")
    fresh.home.mkdir()
    subprocess.run(["git", "clone", "-q", "--no-local", str(b.home / "memory"), str(fresh.home / "memory")], check=True,
                   capture_output=True)
    for branch in gitstore.branches(gitstore.open_repo(b.home / "memory")):  # every scope, as on the machine
        if branch != "main":
            fresh.git("branch", "-q", branch, f"origin/{branch}")
    ids = ids_of(fresh.home)
    from cogit.store.history import itemwalk

    usable = [i for i in ids if itemwalk.usable_id(i)]
    assert len(usable) >= 10 and {"focus"} <= set(ids) - set(usable)  # a section's key takes the index
    commands = item_commands(usable + ["l-000000"])
    expected = {tuple(a): reference(monkeypatch, capsys, fresh.home, a) for a in commands}
    idx = fresh.home / "runtime" / "cache" / "history.idx"
    for args in commands:  # (in-process: the walk through git is taken from 1,000 commits on)
        with monkeypatch.context() as m:
            m.setenv("COGIT_HOME", str(fresh.home))
            m.setattr(itemwalk, "LAZY_MIN", 0)
            capsys.readouterr()
            assert main(args) == 0
            assert capsys.readouterr().out == expected[tuple(args)], args
        assert not idx.exists() or idx.stat().st_size <= len(history_index.HEADER), args  # no index was built
    for args in item_commands([i for i in ids if i not in usable]):  # then the index, as before
        assert run(fresh, args) == reference(monkeypatch, capsys, fresh.home, args), args
    assert idx.stat().st_size > len(history_index.HEADER)


def test_a_recent_file_that_inflates_past_its_bound_is_refused_without_inflating_it(tmp_path):
    """recent/<branch>.jsonz is compressed: 256 MiB of JSON in a quarter of a megabyte is read
    only to its bound (MAX_RECENT) and refused, never inflated whole."""
    import tracemalloc

    deflate = zlib.compressobj(9)
    bomb = deflate.compress(b'{"format": 1, "branch": "main", "entries": [' + b" " * 1024)
    bomb += b"".join(deflate.compress(b" " * (1 << 20)) for _ in range(256)) + deflate.compress(b"]}") + deflate.flush()
    path = Path(history_index.recent_path(str(tmp_path), "main"))
    path.parent.mkdir(parents=True)
    path.write_bytes(bomb)
    assert len(bomb) < history_index.MAX_RECENT
    tracemalloc.start()
    try:
        with pytest.raises(history_index.Stale):
            history_index.read_recent(str(tmp_path), "main", "a" * 40)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * history_index.MAX_RECENT, peak


def test_session_ends_index_a_fresh_clone_a_budget_at_a_time_and_answers_stay_exact(synced, tmp_path, monkeypatch,
                                                                                    capsys):
    """The first session end after a fresh clone of a long history indexed every commit
    (104 s of CPU and 260 MB at 100,000 commits): now each indexes at most FOLD_BUDGET,
    the oldest first, so every ancestor of an indexed commit is indexed; while the index
    is far behind, `why` / `log --item` read the item through git and do not build it
    themselves; every answer, at every stage, is the full walk's."""
    from cogit.store.history import itemwalk

    b = synced
    fresh = Cogit(tmp_path / "fresh")
    fresh.home.mkdir()
    subprocess.run(["git", "clone", "-q", "--no-local", str(b.home / "memory"), str(fresh.home / "memory")], check=True,
                   capture_output=True)
    for branch in gitstore.branches(gitstore.open_repo(b.home / "memory")):
        if branch != "main":
            fresh.git("branch", "-q", branch, f"origin/{branch}")
    repo = gitstore.open_repo(fresh.home / "memory")
    branches = gitstore.branches(repo)
    every = {i.sha for br in branches for i in gitstore.walk(repo, gitstore.head(repo, br))}
    repo.close()
    usable = [i for i in ids_of(fresh.home) if itemwalk.usable_id(i)]
    commands = item_commands([usable[0], usable[len(usable) // 2], usable[-1]])
    expected = {tuple(a): reference(monkeypatch, capsys, fresh.home, a) for a in commands}
    budget = len(every) // 5 + 1
    monkeypatch.setattr(history, "FOLD_BUDGET", budget)
    monkeypatch.setattr(itemwalk, "LAZY_MIN", 3)
    monkeypatch.setenv("COGIT_HOME", str(fresh.home))
    cache = str(fresh.home / "runtime" / "cache")

    def indexed():
        return history_index.Index(cache).rows

    rounds, before = 0, 0
    while len(indexed()) < len(every):
        rounds += 1
        assert rounds <= 10
        history.catch_up(Home(fresh.home))  # what the detached session-end work runs
        rows = indexed()
        assert 0 < len(rows) - before <= budget
        assert all(p in rows for row in rows.values() for p in row[1])  # ancestors first
        for args in commands:
            capsys.readouterr()
            assert main(args) == 0
            assert capsys.readouterr().out == expected[tuple(args)], (rounds, args)
        before = len(indexed())
        assert before <= len(rows) + 3 * len(branches)  # a query indexes only a short gap itself
    assert rounds >= 4
    history_index.why(str(fresh.home), cache, usable[0])  # whole now: the quick path answers
