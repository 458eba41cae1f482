"""The same repository is one project however it is reached: through a symlinked path,
from a linked worktree, with or without an `origin` remote; two repositories stay two."""

from __future__ import annotations

import json
import os

from conftest import git
from cogit.scope import project_of


def repo_without_remote(folder):
    folder.mkdir(parents=True)
    git(folder, "init", "-q")
    return folder


def commit(folder):
    (folder / "f.txt").write_text("x\n")
    git(folder, "add", "f.txt")
    git(folder, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "one")


def test_a_symlinked_path_to_a_repository_without_remote_is_the_same_project(tmp_path):
    real = repo_without_remote(tmp_path / "r" / "alpha")
    (real / "src").mkdir()
    os.symlink(real, tmp_path / "alpha-link")
    direct, linked = project_of(str(real / "src")), project_of(str(tmp_path / "alpha-link" / "src"))
    assert linked["name"] == direct["name"] == str(real.resolve()) and linked["branch"] == direct["branch"]
    assert linked["source"] == "repository"
    # A symlink to a folder inside the repository, and one to a folder that is no repository.
    os.symlink(real / "src", tmp_path / "src-link")
    assert project_of(str(tmp_path / "src-link"))["branch"] == direct["branch"]
    plain = tmp_path / "plain"
    plain.mkdir()
    os.symlink(plain, tmp_path / "plain-link")
    assert project_of(str(tmp_path / "plain-link"))["name"] == project_of(str(plain))["name"] == str(plain.resolve())


def test_a_linked_worktree_of_a_repository_without_remote_is_its_project(tmp_path):
    main = repo_without_remote(tmp_path / "main")
    commit(main)
    git(main, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "topic")
    assert project_of(str(tmp_path / "wt"))["name"] == project_of(str(main))["name"] == str(main.resolve())
    # ... and two repositories are two projects.
    other = repo_without_remote(tmp_path / "other")
    assert project_of(str(other))["branch"] != project_of(str(main))["branch"]


def test_an_override_given_for_the_symlinked_path_still_applies(tmp_path):
    real = repo_without_remote(tmp_path / "r" / "beta")
    os.symlink(real, tmp_path / "beta-link")
    assert project_of(str(tmp_path / "beta-link"), {str(tmp_path / "beta-link"): "beta"})["name"] == "beta"


def test_a_session_through_the_symlink_sees_the_lessons_learned_in_the_repository(initialized, tmp_path):
    c = initialized
    real = repo_without_remote(tmp_path / "w" / "gamma")
    c.run("add", "learning", "gamma builds need make bootstrap first", "--project", str(real))
    os.symlink(real, tmp_path / "gamma-link")
    event = {"session_id": "5e55a0b1-0000-4000-8000-000000000001", "transcript_path": "/tmp/x.jsonl",
             "cwd": str(tmp_path / "gamma-link"), "hook_event_name": "SessionStart", "source": "startup"}
    proc = c.hook("SessionStart", event)
    assert proc.returncode == 0 and proc.err == ""
    assert "gamma builds need make bootstrap first" in json.loads(proc.out)["hookSpecificOutput"]["additionalContext"]
    # and the CLI, given the symlinked path, reads the same project
    assert [i["text"] for i in c.json("show", "learnings", "--project", str(tmp_path / "gamma-link"))["learnings"]] == [
        "gamma builds need make bootstrap first"]
    assert len(c.json("project", "list")) == 1


def test_two_long_folders_with_one_prefix_are_two_projects():
    from cogit.scope import slugify

    base = "/home/someone/src/company/platform/backend/services/"
    a, b = slugify(base + "billing-api"), slugify(base + "billing-worker")
    assert a != b and len(a) <= 60 and len(b) <= 60
    assert slugify(a) == a and slugify(b) == b  # a slug names itself (sync accepts only those)
    assert slugify("github.com/me/repo") == "github.com-me-repo"  # short names are unchanged
