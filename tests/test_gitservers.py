"""The test git servers work with the real git binary: clone, commit, push, clone again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitservers import (  # noqa: F401  (fixtures)
    bare_repo,
    file_repo,
    git,
    git_daemon,
    git_env,
    git_http,
    git_remote,
    requires_git,
)

pytestmark = requires_git


def test_clone_push_clone(git_remote, git_env, tmp_path):
    first = tmp_path / "first"
    git("clone", "--quiet", git_remote, str(first), env=git_env)
    (first / "note.txt").write_text("hello\n")
    git("add", "note.txt", cwd=first, env=git_env)
    git("commit", "--quiet", "-m", "first note", cwd=first, env=git_env)
    git("push", "--quiet", "origin", "HEAD:refs/heads/main", cwd=first, env=git_env)
    sha = git("rev-parse", "HEAD", cwd=first, env=git_env).strip()

    # The bare repository on disk has it...
    assert git("rev-parse", "refs/heads/main", cwd=git_remote.path, env=git_env).strip() == sha
    # ...and so does a fresh clone over the same URL.
    second = tmp_path / "second"
    git("clone", "--quiet", git_remote, str(second), env=git_env)
    last = git("log", "-1", "--format=%H %s", cwd=second, env=git_env).strip()
    assert last == f"{sha} first note"
    assert (second / "note.txt").read_text() == "hello\n"


def test_url_shapes(bare_repo, file_repo, git_daemon, git_http):
    assert bare_repo == str(bare_repo.path) and os.path.isabs(bare_repo)
    assert file_repo.startswith("file:///") and file_repo.endswith("/remote.git")
    assert git_daemon.startswith("git://127.0.0.1:") and git_daemon.endswith("/remote.git")
    assert git_http.startswith("http://127.0.0.1:") and git_http.endswith("/remote.git")
    for remote in (bare_repo, file_repo, git_daemon, git_http):
        assert (remote.path / "HEAD").is_file()


def test_home_is_isolated(git_env):
    real_home = Path("~").expanduser()  # already the scratch home: git_env patched HOME
    assert str(real_home) == git_env["HOME"] == os.environ["HOME"]
    assert not any(k.startswith("GIT_") and k != "GIT_CONFIG_NOSYSTEM" for k in os.environ)
    assert "Test" in git("config", "user.name", env=git_env)


def test_daemon_is_stopped_afterwards(tmp_path, git_env):
    import socket

    from gitservers import REPO_NAME, init_bare, run_git_daemon

    init_bare(tmp_path / "d" / REPO_NAME, git_env)
    with run_git_daemon(tmp_path / "d", git_env) as port:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
