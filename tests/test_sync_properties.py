"""Property: random edits on two machines, synced in random order, always converge.

Both machines end identical; every item either side added and nobody deleted is
there (and nothing else); counters equal the sum of both sides' increments; a
second sync changes nothing. Runs in-process on the core functions (the CLI is
covered by test_sync.py) against a bare repository on disk.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogit.paths import Home
from cogit.store import memory
from cogit.sync import remote as sync
from cogit.store.git import repo as git
from cogit.store.git.provenance import Provenance
from gitservers import git_env, init_bare, requires_git  # noqa: F401  (fixture)

pytestmark = requires_git

PROJECT = "project/p"
NEW_PROJECT = "project/q"  # started on either machine, or both: unrelated roots then
OPS = st.lists(
    st.tuples(
        st.sampled_from("ab"),
        st.sampled_from(["learn", "learn_project", "learn_new_project", "forget", "use", "focus", "sync"]),
        st.integers(min_value=0, max_value=1000),
    ),
    min_size=1,
    max_size=14,
)


class Machine:
    def __init__(self, home: Home, name: str):
        self.home, self.name = home, name

    def write(self, apply, branch=git.MAIN, project="global"):
        return memory.write(self.home, Provenance(event="test", source="cli", project=project), apply, branch)

    def items(self, section: str, branch: str = git.MAIN) -> list[dict]:
        return memory.read(self.home, branch=branch)[1][section]["items"]

    def heads(self) -> dict[str, str]:
        repo = git.open_repo(self.home.memory)
        try:
            return {b: git.head(repo, b) for b in git.branches(repo)}
        finally:
            repo.close()

    def states(self) -> dict:
        return {b: memory.read(self.home, branch=b)[1] for b in self.heads()}


def fsck(home: Home) -> None:
    proc = subprocess.run(["git", "fsck", "--strict"], cwd=home.memory, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS, a_first=st.booleans())
def test_random_edits_then_sync_converge(git_env, ops, a_first):
    root = Path(tempfile.mkdtemp(prefix="cogit-prop-"))
    try:
        remote = str(init_bare(root / "remote.git", git_env))
        a = Machine(Home(root / "a"), "a")
        memory.init(a.home)
        a.write(memory.add_item("heuristics", "the shared heuristic"))
        a.write(memory.add_item("learnings", "seed lesson"))
        a.write(memory.add_item("learnings", "seed project lesson"), PROJECT, "p")
        sync.add_remote(a.home, "origin", remote, str(root))
        sync.push(a.home)
        b = Machine(Home(root / "b"), "b")
        sync.clone(b.home, remote, str(root))
        machines = {"a": a, "b": b}
        (hid,) = [h["id"] for h in a.items("heuristics")]
        added = {"seed lesson", "seed project lesson"}
        deleted: set[str] = set()
        uses = 0
        for n, (who, op, k) in enumerate(ops):
            m = machines[who]
            if op == "learn":
                text = f"{who} lesson {n}"
                m.write(memory.add_item("learnings", text))
                added.add(text)
            elif op == "learn_project":
                text = f"{who} project lesson {n}"
                m.write(memory.add_item("learnings", text), PROJECT, "p")
                added.add(text)
            elif op == "learn_new_project":
                text = f"{who} new project lesson {n}"
                m.write(memory.add_item("learnings", text), NEW_PROJECT, "q")
                added.add(text)
            elif op == "forget":
                branch = PROJECT if k % 2 else git.MAIN
                items = m.items("learnings", branch)
                if items:
                    victim = items[k % len(items)]
                    m.write(memory.forget(victim["id"]), branch, "p")
                    deleted.add(victim["text"])
            elif op == "use":
                m.write(memory.use_heuristic(hid))
                uses += 1
            elif op == "focus":
                m.write(memory.set_focus(f"focus {who} {k}", None))
            else:
                sync.sync(m.home)
        order = ["a", "b", "a"] if a_first else ["b", "a", "b"]
        for who in order:
            sync.sync(machines[who].home)
        # Both machines identical, branch by branch.
        assert a.heads() == b.heads()
        assert a.states() == b.states()
        # Every item added and not deleted is there, and nothing else.
        present = {i["text"] for br in a.heads() for i in a.items("learnings", br)}
        assert present == added - deleted
        # Counters are the sum of both sides' increments.
        (h,) = a.items("heuristics")
        assert h["use_count"] == uses
        # A second sync changes nothing.
        before = a.heads()
        for who in order:
            report = sync.sync(machines[who].home)
            assert all(r.action == "up to date" for r in report.pulled) and not report.pushed
        assert a.heads() == b.heads() == before
        fsck(a.home)
        fsck(b.home)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_deleted_on_one_side_and_changed_on_the_other_keeps_the_item(git_env, tmp_path):
    remote = str(init_bare(tmp_path / "remote.git", git_env))
    a, b = Machine(Home(tmp_path / "a"), "a"), Machine(Home(tmp_path / "b"), "b")
    memory.init(a.home)
    a.write(memory.add_item("heuristics", "keep me if anyone still uses me"))
    (hid,) = [h["id"] for h in a.items("heuristics")]
    sync.add_remote(a.home, "origin", remote, str(tmp_path))
    sync.push(a.home)
    sync.clone(b.home, remote, str(tmp_path))
    a.write(memory.forget(hid))
    b.write(memory.use_heuristic(hid))
    b.write(memory.use_heuristic(hid))
    sync.sync(a.home)
    report = sync.sync(b.home)
    assert [r.action for r in report.pulled if r.branch == "main"] == ["merged"]
    sync.sync(a.home)
    for m in (a, b):
        (h,) = m.items("heuristics")
        assert (h["id"], h["use_count"]) == (hid, 2)
    # Deleted on one side and untouched on the other: it goes.
    a.write(memory.forget(hid))
    sync.sync(a.home)
    sync.sync(b.home)
    assert b.items("heuristics") == []
