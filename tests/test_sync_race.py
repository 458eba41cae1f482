"""A push that loses a race on the server is a stale push: fetched, merged and retried, never
reported as the server's refusal. The race is real: the bare repository's `update` hook moves
the branch (as another machine's push landing at that moment would) after git has checked the
pushed commit and before it takes the ref's lock, so the server answers `cannot lock ref …: is
at X but expected Y` (git) / `failed to update ref` (what dulwich reads)."""

from __future__ import annotations

import stat

import pytest

from conftest import Cogit
from gitservers import git, git_daemon, git_env, git_http  # noqa: F401  (fixtures)


@pytest.fixture(params=["git", "dulwich"])
def via(request, monkeypatch):
    monkeypatch.setenv("COGIT_SYNC_TRANSPORT", request.param)
    return request.param


def texts(c: Cogit) -> list[str]:
    return sorted(i["text"] for i in c.json("show")["learnings"])


@pytest.mark.parametrize("server", ["git_daemon", "git_http"])
def test_a_push_that_loses_a_race_on_the_server_is_retried(server, via, request, tmp_path, git_env):
    remote = request.getfixturevalue(server)
    a, b = Cogit(tmp_path / "machine-a"), Cogit(tmp_path / "machine-b")
    a.run("init")
    a.run("remote", "add", "origin", remote)
    a.run("push")
    b.run("clone", remote)
    before = git("rev-parse", "refs/heads/main", cwd=remote.path, env=git_env).strip()
    # b's push lands, then the branch is set back: its commit waits in the repository for
    # the hook to publish it in the middle of a's push.
    b.run("add", "learning", "b pushed at the same moment")
    b.run("push")
    other = git("rev-parse", "refs/heads/main", cwd=remote.path, env=git_env).strip()
    git("update-ref", "refs/keep/other", other, cwd=remote.path, env=git_env)
    git("update-ref", "refs/heads/main", before, cwd=remote.path, env=git_env)
    marker = tmp_path / "raced"
    hook = remote.path / "hooks" / "update"
    hook.write_text(f"#!/bin/sh\n[ -e '{marker}' ] && exit 0\ntouch '{marker}'\n"
                    f"git update-ref refs/heads/main {other}\nexit 0\n")
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR)

    a.run("add", "learning", "a pushes too")
    proc = a.run("push", check=False)
    assert marker.exists()  # the race happened
    assert proc.returncode == 0, proc.err
    assert "has changes we do not have; fetching and merging first" in proc.err, proc.err
    assert "the server said" not in proc.err and "refused" not in proc.err
    assert git("rev-parse", "refs/heads/main", cwd=remote.path, env=git_env).strip() == a.git("rev-parse", "main").strip()
    assert texts(a) == ["a pushes too", "b pushed at the same moment"]
