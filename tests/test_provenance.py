"""True provenance: a branch a hook created says so; a hand edit over a cap is pruned in
the commit that absorbs it, which names exactly what went; the provenance walk (run over
every memory the suite creates, see conftest.py) catches commits that disagree with their diff."""

from __future__ import annotations

import shutil

from cogit.paths import Home
from cogit.store.git import repo as git
from cogit.store.git.provenance import Provenance, message
from conftest import git as run_git
from provenance_walk import check_memory

SID = "7a1b2c3d-4b7e-4f7a-9d0a-2f1c3e5b7a91"


def ids(c, section="learnings", *args):
    return [i["id"] for i in c.json("show", section, *args)[section]]


def test_a_project_branch_a_hook_created_says_hook(initialized, tmp_path):
    c = initialized
    repo = tmp_path / "app"
    repo.mkdir()
    run_git(repo, "init", "-q")
    base = {"session_id": SID, "transcript_path": "/tmp/x.jsonl", "cwd": str(repo)}
    c.hook("SessionStart", {**base, "hook_event_name": "SessionStart", "source": "startup"})
    c.hook("UserPromptSubmit", {**base, "hook_event_name": "UserPromptSubmit", "permission_mode": "default",
                                "prompt": "remember this: the app needs the fake clock"})
    c.hook("SessionEnd", {**base, "hook_event_name": "SessionEnd", "reason": "exit"})
    c.run("finalize")
    log = c.json("log", "--project", str(repo))
    root = log[-1]["trailers"]
    assert root["Cogit-Event"] == "project.create"
    assert root["Cogit-Source"] == "hook" and root["Cogit-Agent"] == "claude-code" and root["Cogit-Session"] == SID
    assert check_memory(c.home / "memory") [1] == []


def test_a_hand_edit_over_a_cap_is_pruned_in_the_same_commit(initialized):
    c = initialized
    for n in range(3):
        c.run("add", "learning", f"lesson {n}")
    first = ids(c)[0]
    cfg = c.home / "memory" / "config.yaml"
    cfg.write_text(cfg.read_text().replace("learnings: 50", "learnings: 2"))
    out = c.run("commit", "-m", "Lower the learnings cap").out
    assert f"pruned by cap: learnings {first}" in out
    assert first not in ids(c) and len(ids(c)) == 2
    assert first not in (c.home / "memory" / "learnings.yaml").read_text()  # the file too, not only the report
    body = c.git("log", "-1", "--format=%B")
    assert f"Cogit-Pruned: {first}" in body and f"learning {first} 'lesson 0'" in body
    # The next, unrelated commit prunes nothing.
    c.run("add", "heuristic", "read the error first")
    assert "Cogit-Pruned" not in c.git("log", "-1", "--format=%B")
    # The same when the edit itself adds items over the cap: comments on kept items survive.
    path = c.home / "memory" / "learnings.yaml"
    path.write_text(path.read_text() + "# kept comment\n")
    text = path.read_text().replace("items:\n", "items:\n  - id: l-00aa01\n    text: typed by hand\n    category: insight\n    source: human\n"
                                    "    created_at: '2020-01-01T00:00:00Z'\n    updated_at: '2020-01-01T00:00:00Z'\n", 1)
    path.write_text(text)
    before = set(ids(c))
    c.run("commit")
    # The item the edit adds is never the one pruned (issue 22 part 4): the lowest-scored of
    # the others goes, named in the commit.
    after = ids(c)
    assert "l-00aa01" in after and len(after) == 2
    (gone,) = before - set(after)
    assert f"Cogit-Pruned: {gone}" in c.git("log", "-1", "--format=%B")
    assert check_memory(c.home / "memory")[1] == []
    c.assert_healthy()


def _forge(home, summary: str, trailers: dict, drop: str | None = None, pruned: str | None = None):
    """A commit made behind cogit's back whose trailers disagree with its diff."""
    repo = git.open_repo(Home(home).memory)
    try:
        head = git.head(repo)
        files = git.read_files(repo, head)
        text = files["learnings.yaml"].decode()
        if drop:
            lines = text.splitlines(keepends=True)
            start = next(i for i, l in enumerate(lines) if drop in l)
            end = next((i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("- ")), len(lines))
            text = "".join(lines[:start] + lines[end:])
        prov = Provenance(event=trailers.pop("event"), source="cli", extra=trailers)
        if pruned:
            prov.extra["Cogit-Pruned"] = pruned
        git.commit(repo, git.MAIN, {"learnings.yaml": text.encode()}, message(summary, "", prov),
                   prov.author_line(), git.machine_committer(repo), head)
    finally:
        repo.close()


def test_the_walk_finds_commits_that_disagree_with_their_diff(initialized):
    c = initialized
    for n in range(3):
        c.run("add", "learning", f"lesson {n}")
    a, b, keep = ids(c)
    assert check_memory(c.home / "memory")[1] == []
    _forge(c.home, "Add heuristic", {"event": "heuristic.add"}, drop=f"id: {a}")  # removes silently
    problems = check_memory(c.home / "memory")[1]
    assert len(problems) == 1 and f"removed {a} without naming it" in problems[0]
    _forge(c.home, "Hand edit", {"event": "human.edit"}, pruned=keep)  # names as pruned what it kept
    problems = check_memory(c.home / "memory")[1]
    assert len(problems) == 2 and f"Cogit-Pruned names {keep}, but the commit kept it" in problems[0]
    shutil.rmtree(c.home / "memory")  # forged on purpose: not for the suite's own walk (conftest.py)


def test_the_local_author_is_the_login_name_at_this_host_as_getpass_and_socket_say(monkeypatch):
    """local_user() reads them by hand (a cold write imports neither getpass nor socket)."""
    import getpass
    import socket

    from cogit.store.git.provenance import local_user

    monkeypatch.delenv("COGIT_AUTHOR", raising=False)
    for env in ({"LOGNAME": "ada"}, {"USER": "grace"}, {"USERNAME": "lin"}, {}):
        for key in ("LOGNAME", "USER", "LNAME", "USERNAME"):
            monkeypatch.delenv(key, raising=False)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        user = getpass.getuser()
        assert local_user() == f"{user} <{user}@{socket.gethostname() or 'localhost'}>"
    monkeypatch.setenv("COGIT_AUTHOR", "Ada <ada@example.com>")
    assert local_user() == "Ada <ada@example.com>"
