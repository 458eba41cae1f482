"""The cold `show` / `status` answered from a state snapshot (cogit/store/cache/snapshot.py).

After every kind of operation that moves a branch (a command, a revert, a sync's merge
and fast-forward, a hand edit, `git` by hand, a lost or corrupt snapshot, a crash between
a commit and its snapshot), each command prints exactly what the full path through the
store prints; and when nothing changed since, it imports neither dulwich, ruamel.yaml
nor jsonschema. Which path ran is read from the process's own import profile.
"""

from __future__ import annotations

import json
import shutil
import time

import pytest

from conftest import Cogit, git as plain_git
from gitservers import bare_repo, git_env, requires_git  # noqa: F401  (fixtures)

HEAVY = {"dulwich", "ruamel", "jsonschema"}


def run_traced(c: Cogit, args, cwd):
    """(stdout, the top-level packages the process imported)."""
    proc = c.run(*args, cwd=cwd, env={"PYTHONPROFILEIMPORTTIME": "1"})
    imported = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in proc.err.splitlines() if "|" in line}
    return proc.out, imported


def snapshots(c: Cogit):
    return c.home / "runtime" / "cache" / "snapshot"


class Check:
    """Runs each read command three times and compares: as the operation left things, on the
    full path (snapshots deleted first) and once more (from the snapshot the full path wrote)."""

    def __init__(self, c: Cogit, project_dir):
        self.c, self.project_dir = c, project_dir
        self.fast_runs = 0

    def commands(self):
        out = [(("show",), self.c.home.parent), (("status",), self.c.home.parent), (("status", "--json"), self.c.home.parent)]
        if self.project_dir is not None:
            out += [(("show",), self.project_dir), (("show", "--json"), self.project_dir),
                    (("status", "--json"), self.project_dir), (("status",), self.project_dir)]
        return out

    def __call__(self, step: str, *, status_fast: bool = True) -> None:
        commands = self.commands()
        after = {args + (str(cwd),): run_traced(self.c, args, cwd)[0] for args, cwd in commands}
        for args, cwd in commands:
            key = args + (str(cwd),)
            shutil.rmtree(snapshots(self.c), ignore_errors=True)
            full, imported = run_traced(self.c, args, cwd)
            assert "dulwich" in imported, (step, args, "the full path reads the store")
            assert full == after[key], (step, args, "served something other than the full path")
        for args, cwd in commands:
            key = args + (str(cwd),)
            fast, imported = run_traced(self.c, args, cwd)
            assert fast == after[key], (step, args, "the snapshot answers differently")
            if args[0] == "show" or status_fast:
                assert not imported & HEAVY, (step, args, imported & HEAVY)
                self.fast_runs += 1


@pytest.fixture
def project_dir(tmp_path, git_env):
    folder = tmp_path / "work" / "proj"
    folder.mkdir(parents=True)
    plain_git(folder, "init", "--quiet")
    plain_git(folder, "remote", "add", "origin", "https://example.com/me/proj.git")
    return folder


@requires_git
def test_cold_reads_match_the_full_path_after_every_kind_of_change(tmp_path, bare_repo, project_dir):  # noqa: F811
    a, b = Cogit(tmp_path / "machine-a"), Cogit(tmp_path / "machine-b")
    a.run("init")
    check = Check(a, None)
    check("init")
    a.run("add", "learning", "Run the tests with pytest -q", "--category", "pattern")
    a.run("add", "heuristic", "Read the error before retrying")
    a.run("focus", "set", "the start", "-p", "first")
    check("add")
    # A project scope: the folder's own memory beside global.
    a.run("add", "learning", "This project builds with make", "--project", ".", cwd=project_dir)
    check = Check(a, project_dir)
    check("project add")
    first = a.json("show")["learnings"][0]["id"]
    a.run("forget", first)
    check("forget")
    forget_sha = a.git("rev-parse", "main").strip()
    a.run("revert", forget_sha)
    check("revert")
    # Sync: b clones, both change, a pulls a merge; then b pulls a fast-forward of both branches.
    a.run("remote", "add", "origin", str(bare_repo.path))
    a.run("push")
    b.run("clone", str(bare_repo.path))
    b.run("add", "learning", "learned on machine b")
    b.run("add", "learning", "b's project lesson", "--project", ".", cwd=project_dir)
    b.run("push")
    time.sleep(1.05)
    a.run("add", "avoidance", "Never force-push main")
    a.run("pull")
    assert len(a.git("log", "-1", "--format=%P", "main").split()) == 2, "a merge"
    check("pull with a merge")
    a.run("push")
    b.run("pull")  # a fast-forward: the branch moves without the write path
    check_b = Check(b, project_dir)
    check_b("pull with a fast-forward")
    # A hand edit waiting in the working tree: status lists it (full path), show is unchanged.
    learnings = a.home / "memory" / "learnings.yaml"
    learnings.write_text(learnings.read_text().replace("Run the tests with pytest -q", "Run the tests with pytest -x"))
    check("hand edit waiting", status_fast=False)
    assert "hand edits not committed: learnings.yaml" in a.run("status").out
    a.run("commit", "-m", "hand edit")
    check("hand edit committed")
    # `git commit` by hand in the memory repository, and a project branch moved by hand.
    learnings.write_text(learnings.read_text().replace("pytest -x", "pytest -x -q"))
    a.git("commit", "--quiet", "-am", "edited with git")
    check("git commit by hand")
    project_branch = next(br for br in a.git("branch", "--format=%(refname:short)").split() if br.startswith("project/"))
    a.git("branch", "-f", project_branch, f"{project_branch}~1")
    check("project branch moved back by hand")
    # A crash between a commit and its snapshot: the snapshot still names the old head.
    saved = {p.name: p.read_bytes() for p in snapshots(a).iterdir()}
    a.run("add", "learning", "made just before the crash")
    for name, data in saved.items():
        (snapshots(a) / name).write_bytes(data)
    check("a snapshot older than the head")
    # Corrupt and missing snapshots.
    (snapshots(a) / "main.json").write_text("{not json")
    check("a corrupt snapshot")
    (snapshots(a) / "main.json").unlink()
    check("a missing snapshot")
    assert check.fast_runs > 40


def test_a_fresh_snapshot_keeps_the_store_out_of_show_and_status(initialized):
    c = initialized
    c.run("add", "learning", "one thing")  # the write path leaves the snapshot
    c.run("status")  # counts the commits once (kept in the snapshot from then on)
    c.run("add", "learning", "another thing")
    for args in (("show",), ("show", "--json"), ("show", "learnings"), ("status",), ("status", "--json")):
        out, imported = run_traced(c, args, c.home.parent)
        assert not imported & HEAVY, (args, imported & HEAVY)
        assert "another thing" in out or args[0] == "status"
    assert json.loads(run_traced(c, ("status", "--json"), c.home.parent)[0])["commits"] == 3


def test_a_snapshot_whose_head_is_not_the_branch_head_is_never_shown(initialized):
    """The head check is what makes a snapshot safe: one naming another commit is ignored
    even when everything else about it is well formed."""
    c = initialized
    c.run("add", "learning", "the truth")
    path = snapshots(c) / "main.json"
    snap = json.loads(path.read_text())
    snap["state"]["learnings"]["items"][0]["text"] = "a lie"
    path.write_text(json.dumps(snap))
    assert "a lie" in c.run("show").out  # same head: the snapshot is trusted (this proves the test can tell)
    snap["head"] = c.git("rev-parse", "main~1").strip()
    path.write_text(json.dumps(snap))
    out, imported = run_traced(c, ("show",), c.home.parent)
    assert "the truth" in out and "a lie" not in out and "dulwich" in imported


def test_the_section_names_are_the_schema_sections():
    from cogit.domain import sections
    from cogit.store.state.schema import SECTIONS

    assert sections.SECTIONS == SECTIONS


def test_an_oversized_snapshot_is_not_read(initialized):
    """A snapshot far larger than any state could make is not parsed: the full path answers."""
    from cogit.store.cache import snapshot

    c = initialized
    c.run("add", "learning", "the truth")
    path = snapshots(c) / "main.json"
    snap = json.loads(path.read_text())
    snap["state"]["learnings"]["items"][0]["text"] = "a lie"
    snap["padding"] = "x" * (snapshot.MAX_BYTES + 1)
    path.write_text(json.dumps(snap))
    out, imported = run_traced(c, ("show",), c.home.parent)
    assert "the truth" in out and "a lie" not in out and "dulwich" in imported
