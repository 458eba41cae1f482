"""Project scopes: slugs, project detection, --project on commands, promote/demote,
the composed digest, and hook learnings routed to the project's branch."""

from __future__ import annotations

import json
import subprocess

from hypothesis import given, settings
from hypothesis import strategies as st

from cogit.scope import normalize_url, project_of, slugify
from conftest import git

SID = "5e1b2c3d-4b7e-4f7a-9d0a-2f1c3e5b7a90"


def valid_ref(name: str) -> bool:
    return subprocess.run(["git", "check-ref-format", name], capture_output=True).returncode == 0


# --------------------------------------------------------------------------- slugs, projects


WEIRD = ["..", "/", " ", "a\x00b", "café", "x.lock", ".hidden", "a..b", "a/./b", "-x-", "@{x}", "~^:?*[\\",
         "München Projekt", "a" * 300, "", "\n", "project/../../etc", "HEAD", "refs/heads/main"]


def test_slugs_are_valid_ref_names_for_weird_input():
    for name in WEIRD:
        slug = slugify(name)
        assert valid_ref(f"refs/heads/project/{slug}"), (name, slug)
        assert slug == slugify(slug), "a slug names itself"
        assert len(slug) <= 70


@settings(max_examples=150, deadline=None)
@given(st.text(min_size=0, max_size=80))
def test_any_text_slugifies_to_a_valid_ref(name):
    slug = slugify(name)
    assert slug and valid_ref(f"refs/heads/project/{slug}")


def test_lossy_names_do_not_collide():
    assert slugify("café") != slugify("caf")
    assert slugify("a..b") != slugify("a.b")
    assert slugify("a\x00b") != slugify("a-b")


def test_project_of_origin_url_toplevel_and_override(tmp_path):
    repo = tmp_path / "work" / "Repo"
    (repo / "src" / "deep").mkdir(parents=True)
    git(repo, "init", "-q")
    info = project_of(str(repo / "src" / "deep"))
    assert info["source"] == "repository" and info["name"] == str(repo) and info["toplevel"] == str(repo)
    git(repo, "remote", "add", "origin", "git@github.com:Me/Repo.git")
    info = project_of(str(repo / "src"))
    assert (info["name"], info["source"], info["branch"]) == ("github.com/me/repo", "origin", "project/github.com-me-repo")
    assert normalize_url("https://user:pw@github.com/me/repo.git") == "github.com/me/repo"
    info = project_of(str(repo), {"github.com/me/repo": "my project"})
    assert (info["name"], info["source"], info["branch"]) == ("my project", "override", "project/my-project")
    plain = tmp_path / "notes"
    plain.mkdir()
    assert project_of(str(plain))["source"] == "folder"
    assert project_of("relative/path") is None


# --------------------------------------------------------------------------- commands


def test_add_to_a_project_writes_its_branch_without_checkout(initialized):
    c = initialized
    c.run("add", "learning", "global lesson")
    out = c.run("add", "learning", "only in this project", "--project", "github.com/me/repo").out
    assert "only in this project" in out
    branch = "project/github.com-me-repo"
    assert c.git("symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert "only in this project" not in (c.home / "memory" / "learnings.yaml").read_text()
    # The project branch is a root commit of the templates plus the change, not a fork of main.
    commits = c.git("rev-list", "--parents", branch).splitlines()
    assert len(commits) == 2 and len(commits[-1].split()) == 1
    assert subprocess.run(["git", "merge-base", "main", branch], cwd=c.home / "memory", capture_output=True).returncode == 1
    files = c.git("ls-tree", "--name-only", branch).split()
    assert sorted(files) == sorted(c.git("ls-tree", "--name-only", "main").split())
    assert [i["text"] for i in c.json("show", "learnings", "--project", "github.com/me/repo")["learnings"]] == ["only in this project"]
    assert [i["text"] for i in c.json("show", "learnings")["learnings"]] == ["global lesson"]
    log = c.json("log", "--project", branch)
    assert [e["trailers"]["Cogit-Event"] for e in log] == ["learning.add", "project.create"]
    assert {e["trailers"]["Cogit-Project"] for e in log} == {"github.com/me/repo"}
    c.assert_healthy()
    c.git("fsck", "--strict")


def test_project_option_on_reading_and_undoing_commands(initialized):
    c = initialized
    p = ["--project", "proj"]
    c.run("add", "heuristic", "project heuristic", *p)
    c.run("focus", "set", "project focus", *p)
    (item,) = c.json("show", "heuristics", *p)["heuristics"]
    assert c.run("diff", *p).out.startswith("~ focus")
    assert f"+ heuristic {item['id']}" in c.run("diff", "HEAD~2", *p).out
    assert item["id"] in c.run("why", item["id"], *p).out
    c.run("forget", item["id"], *p)
    assert c.json("show", "heuristics", *p)["heuristics"] == []
    c.run("revert", "HEAD", *p)
    assert [h["id"] for h in c.json("show", "heuristics", *p)["heuristics"]] == [item["id"]]
    assert c.json("show", "focus", *p)["focus"]["current"] == "project focus"
    assert c.json("show", "focus")["focus"]["current"] != "project focus"
    # Reading a project that has no memory says so and what to do.
    proc = c.run("show", "--project", "nothing-here", check=False)
    assert proc.returncode == 1 and "no memory yet" in proc.err and "cogit project list" in proc.err
    c.assert_healthy()


def test_project_dot_is_the_project_of_the_current_folder(initialized, tmp_path):
    c = initialized
    repo = tmp_path / "checkout"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "remote", "add", "origin", "https://example.com/team/app.git")
    env_cwd = str(repo)
    proc = subprocess.run([*c_cmd(), "add", "learning", "app lesson", "--project", "."], cwd=env_cwd,
                          capture_output=True, text=True, env=c_env(c))
    assert proc.returncode == 0, proc.stderr
    listed = c.json("project", "list")
    assert [(p["name"], p["branch"]) for p in listed] == [("example.com/team/app", "project/example.com-team-app")]
    assert listed[0]["counts"]["learnings"] == 1


def c_cmd():
    import sys

    return [sys.executable, "-m", "cogit"]


def c_env(c):
    import os

    return dict(os.environ, COGIT_HOME=str(c.home))


def test_project_list_show_promote_demote(initialized):
    c = initialized
    assert "No project memory" in c.run("project", "list").out
    c.run("add", "learning", "global one")
    c.run("add", "learning", "belongs everywhere", "--project", "app")
    c.run("add", "avoidance", "app avoidance", "--project", "app")
    shown = c.run("project", "show", "app").out
    assert "belongs everywhere" in shown and "Digest for an agent" in shown and "global one" in shown
    (lid,) = [i["id"] for i in c.json("show", "learnings", "--project", "app")["learnings"]]
    out = c.run("project", "promote", lid).out
    assert "Promote learning" in out
    assert [i["id"] for i in c.json("show", "learnings")["learnings"]][-1] == lid
    assert c.json("show", "learnings", "--project", "app")["learnings"] == []
    (gid,) = [i["id"] for i in c.json("show", "learnings")["learnings"] if i["text"] == "global one"]
    c.run("project", "demote", gid, "--project", "app")
    assert [i["text"] for i in c.json("show", "learnings", "--project", "app")["learnings"]] == ["global one"]
    assert [i["text"] for i in c.json("show", "learnings")["learnings"]] == ["belongs everywhere"]
    proc = c.run("project", "promote", "l-000000", check=False)
    assert proc.returncode == 1 and "no project holds" in proc.err
    assert c.json("log", "-n", "1", "--event", "item")[0]["trailers"]["Cogit-Item"] == gid
    c.assert_healthy()


def test_digest_is_global_plus_project_with_the_project_winning(initialized, tmp_path):
    c = initialized
    cfg = c.home / "memory" / "config.yaml"
    cfg.write_text(cfg.read_text().replace("  learnings: 5\n", "  learnings: 2\n"))
    c.run("commit")
    for n in range(3):
        c.run("add", "learning", f"global lesson {n}")
    repo = tmp_path / "app"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "remote", "add", "origin", "https://example.com/team/app.git")
    c.run("add", "learning", "project lesson", "--project", "example.com/team/app")
    c.run("add", "avoidance", "global avoidance")
    out = c.hook("SessionStart", {"session_id": SID, "hook_event_name": "SessionStart", "cwd": str(repo),
                                  "source": "startup", "transcript_path": "/tmp/x.jsonl"}).out
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    learned = [ln for ln in text.split("Recent learnings:\n")[1].split("Avoid:")[0].splitlines() if ln.startswith("•")]
    assert learned[0].startswith("• [insight] project lesson")  # the project wins the space
    # `digest.learnings: 2` is a floor, not a cap: the budget has room for all of them
    assert all("global lesson" in ln for ln in learned[1:]) and len(learned) == 4
    assert "global avoidance" in text and "Not shown" not in text


def test_project_writes_use_main_config_for_caps(initialized):
    c = initialized
    cfg = c.home / "memory" / "config.yaml"
    cfg.write_text(cfg.read_text().replace("learnings: 50 ", "learnings: 2 "))
    c.run("commit")
    for n in range(3):
        c.run("add", "learning", f"lesson {n}", "--project", "p")
    assert [i["text"] for i in c.json("show", "learnings", "--project", "p")["learnings"]] == ["lesson 1", "lesson 2"]
    assert "Cogit-Pruned" in c.json("log", "-n", "1", "--project", "p")[0]["trailers"]


def test_hook_learnings_go_to_the_project_and_stats_stay_global(initialized, tmp_path):
    c = initialized
    repo = tmp_path / "app"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "remote", "add", "origin", "git@example.com:team/app.git")
    base = {"session_id": SID, "transcript_path": "/tmp/x.jsonl", "cwd": str(repo)}
    c.hook("SessionStart", {**base, "hook_event_name": "SessionStart", "source": "startup"})
    c.hook("UserPromptSubmit", {**base, "hook_event_name": "UserPromptSubmit", "permission_mode": "default",
                                "prompt": "remember this: the app's tests need the fake clock"})
    c.hook("PostToolUse", {**base, "hook_event_name": "PostToolUse", "permission_mode": "default", "tool_name": "Read",
                           "tool_input": {"file_path": str(repo / "a.py")}, "tool_response": {}, "tool_use_id": "t1"})
    c.hook("SessionEnd", {**base, "hook_event_name": "SessionEnd", "reason": "exit"})
    c.run("finalize")
    p = ["--project", "example.com/team/app"]
    assert [i["text"] for i in c.json("show", "learnings", *p)["learnings"]] == ["the app's tests need the fake clock"]
    assert c.json("show", "learnings")["learnings"] == []
    assert c.json("show", "tools")["tools"]["tools"]["Read"]["calls"] == 1
    log = c.json("log", *p)
    assert log[0]["trailers"]["Cogit-Project"] == "example.com/team/app" and log[0]["trailers"]["Cogit-Source"] == "hook"
    # The next session in the project is told the project's learning.
    out = c.hook("SessionStart", {**base, "session_id": SID + "2", "hook_event_name": "SessionStart", "source": "startup"}).out
    assert "the app's tests need the fake clock" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    c.assert_healthy()
