"""Edits carry their time: every change of an item sets its updated_at, so when two
machines edit the same item the later edit wins and the conflict record says why, truly."""

from __future__ import annotations

import sys
import time

import pytest

from conftest import Cogit
from gitservers import bare_repo, git_env, requires_git  # noqa: F401  (fixtures)

pytestmark = requires_git


def editor(tmp_path, name: str, old: str, new: str) -> dict:
    path = tmp_path / f"{name}.py"
    path.write_text(f"import sys\np=sys.argv[1]\nt=open(p).read()\nassert {old!r} in t\nopen(p,'w').write(t.replace({old!r}, {new!r}))\n")
    return {"EDITOR": f"{sys.executable} {path}", "VISUAL": ""}


def lesson(c: Cogit) -> dict:
    (item,) = c.json("show", "learnings")["learnings"]
    return item


def test_edit_sets_updated_at_and_keeps_comments(initialized, tmp_path):
    c = initialized
    c.run("add", "learning", "the lesson")
    before = lesson(c)
    time.sleep(1.1)  # timestamps have one-second resolution
    c.run("edit", "learnings", env=editor(tmp_path, "e", "text: the lesson", "text: the lesson, edited  # why"))
    after = lesson(c)
    assert after["text"] == "the lesson, edited" and after["updated_at"] > before["updated_at"]
    assert after["created_at"] == before["created_at"]
    assert "# why" in (c.home / "memory" / "learnings.yaml").read_text()
    # a hand edit committed with `cogit commit` too
    path = c.home / "memory" / "learnings.yaml"
    time.sleep(1.1)
    path.write_text(path.read_text().replace("the lesson, edited", "the lesson, edited twice"))
    c.run("commit")
    assert lesson(c)["updated_at"] > after["updated_at"]
    c.assert_healthy()


@pytest.mark.parametrize("later", ["a", "b"])
def test_two_machines_edit_one_lesson_and_the_later_edit_wins(tmp_path, git_env, bare_repo, later):
    a, b = Cogit(tmp_path / "machine-a"), Cogit(tmp_path / "machine-b")
    a.run("init")
    a.run("add", "learning", "the lesson")
    a.run("remote", "add", "origin", bare_repo)
    a.run("push")
    b.run("clone", bare_repo)
    first, second = (b, a) if later == "a" else (a, b)
    first.run("edit", "learnings", env=editor(tmp_path, "first", "text: the lesson", "text: the lesson (earlier edit)"))
    time.sleep(1.1)
    second.run("edit", "learnings", env=editor(tmp_path, "second", "text: the lesson", "text: the lesson (later edit)"))
    earlier_at, later_at = lesson(first)["updated_at"], lesson(second)["updated_at"]
    assert earlier_at < later_at
    a.run("sync")
    b.run("sync")
    a.run("sync")
    assert lesson(a)["text"] == lesson(b)["text"] == "the lesson (later edit)"
    assert lesson(a)["updated_at"] == later_at
    (merge,) = b.json("conflicts")
    (conflict,) = [c for c in merge["conflicts"] if c["field"] == "text"]
    assert conflict["kept"] == "the lesson (later edit)" and conflict["other"] == "the lesson (earlier edit)"
    assert conflict["reason"] == f"kept the newer change: updated_at {later_at} against {earlier_at}"
    listed = b.run("conflicts").out
    assert f"kept the newer change: updated_at {later_at} against {earlier_at}" in listed
