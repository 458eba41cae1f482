"""Remotes and sync between two machines (two COGIT_HOMEs) over real servers on 127.0.0.1."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest

from conftest import Cogit
from gitservers import (  # noqa: F401  (fixtures)
    silent_server,
    bare_repo,
    file_repo,
    free_port,
    git,
    git_daemon,
    git_env,
    git_http,
    git_remote,
    requires_git,
)

pytestmark = requires_git


@pytest.fixture
def machines(tmp_path, git_env):
    """Two machines: a and b, each with its own memory home (not initialized)."""
    return Cogit(tmp_path / "machine-a"), Cogit(tmp_path / "machine-b")


def state(c: Cogit, project: str | None = None) -> dict:
    args = ["show"] + (["--project", project] if project else [])
    return c.json(*args)


def head(c: Cogit, branch: str = "main") -> str:
    return c.git("rev-parse", branch).strip()


def remote_head(remote, env, branch: str = "main") -> str:
    return git("rev-parse", f"refs/heads/{branch}", cwd=remote.path, env=env).strip()


def hand_edit_config(c: Cogit, old: str, new: str) -> None:
    cfg = c.home / "memory" / "config.yaml"
    text = cfg.read_text()
    assert old in text
    cfg.write_text(text.replace(old, new))
    c.run("commit")


def texts(c: Cogit, section: str = "learnings", project: str | None = None) -> list[str]:
    return sorted(i["text"] for i in state(c, project)[section])


# --------------------------------------------------------------------------- every kind of remote


def test_clone_and_sync_over_every_remote_kind(git_remote, machines, git_env, tmp_path):
    a, b = machines
    a.run("init")
    a.run("add", "learning", "from machine a")
    a.run("add", "learning", "a project lesson", "--project", "app")
    a.run("remote", "add", "origin", git_remote)
    assert "Pushed to origin: main" in a.run("push").out
    b.run("clone", git_remote)
    assert texts(b) == ["from machine a"] and texts(b, project="app") == ["a project lesson"]
    b.run("add", "learning", "from machine b")
    b.run("add", "heuristic", "b project heuristic", "--project", "app")
    b.run("sync")
    a.run("sync")
    assert state(a) == state(b) and state(a, "app") == state(b, "app")
    for branch in ("main", "project/app"):
        assert head(a, branch) == head(b, branch) == remote_head(git_remote, git_env, branch)
    assert "Up to date with origin." in a.run("sync").out
    # Interop: plain git sees the same files and a clean repository.
    clone = tmp_path / "plain-clone"
    git("clone", "--quiet", str(git_remote.path), str(clone), env=git_env)
    git("fsck", "--strict", cwd=clone, env=git_env)
    for f in (a.home / "memory").glob("*.yaml"):
        assert (clone / f.name).read_bytes() == f.read_bytes()
    a.assert_healthy()
    b.assert_healthy()
    assert a.git("rev-parse", "refs/remotes/origin/main").strip() == head(a)


def test_ssh_remote_through_the_users_ssh_command(machines, bare_repo, tmp_path, git_env):
    """scp-style and ssh:// URLs run the user's ssh ($GIT_SSH_COMMAND, here a stand-in)."""
    a, b = machines
    fake = tmp_path / "fake-ssh"
    fake.write_text("#!/bin/sh\nwhile [ $# -gt 2 ]; do shift; done\nexec sh -c \"$2\"\n")
    fake.chmod(0o755)
    env = {"GIT_SSH_COMMAND": str(fake)}
    a.run("init")
    a.run("add", "learning", "over ssh")
    a.run("remote", "add", "origin", f"me@fakehost:{bare_repo.path}")
    a.run("push", env=env)
    b.run("clone", f"ssh://fakehost{bare_repo.path}", env=env)
    assert texts(b) == ["over ssh"]


# --------------------------------------------------------------------------- joining, merging


def test_machine_with_memory_joins_and_both_keep_everything(machines, bare_repo, git_env):
    a, b = machines
    for c, who in ((a, "a"), (b, "b")):
        c.run("init")
        c.run("add", "learning", f"{who} knows this")
        c.run("add", "avoidance", f"{who} avoids that")
        c.run("add", "learning", f"{who} project lesson", "--project", "shared")
    a.run("remote", "add", "origin", bare_repo)
    a.run("sync")
    b.run("remote", "add", "origin", bare_repo)
    out = b.run("sync").out
    assert "main: merged" in out and "project/shared: merged" in out
    a.run("sync")
    assert texts(a) == texts(b) == ["a knows this", "b knows this"]
    assert texts(a, "avoidances") == ["a avoids that", "b avoids that"]
    assert texts(a, project="shared") == ["a project lesson", "b project lesson"]
    # main's merge (`log` shows every scope, and both merges can fall in the same second)
    merge = b.json("log", "-n", "1", "--scope", "global")[0]
    assert len(merge["parents"]) == 2 and merge["trailers"]["Cogit-Event"] == "merge"
    assert merge["trailers"]["Cogit-Source"] == "sync" and "unrelated histories" in merge["body"]
    assert head(a) == head(b) and head(a, "project/shared") == head(b, "project/shared")
    assert "<<<<<<<" not in (a.home / "memory" / "learnings.yaml").read_text()
    a.assert_healthy()
    b.assert_healthy()


def test_field_changed_on_both_sides_keeps_the_newer_and_lists_the_other(machines, bare_repo):
    a, b = machines
    a.run("init")
    a.run("focus", "set", "the start")
    a.run("remote", "add", "origin", bare_repo)
    a.run("push")
    b.run("clone", bare_repo)
    a.run("focus", "set", "focus from a")
    time.sleep(1.1)  # timestamps have one-second resolution
    b.run("focus", "set", "focus from b")
    a.run("sync")
    out = b.run("sync").out
    assert "1 field(s) changed on both sides" in out
    a.run("sync")
    assert state(a)["focus"]["current"] == state(b)["focus"]["current"] == "focus from b"
    listed = b.run("conflicts").out
    assert 'focus current: kept "focus from b" (ours), other "focus from a"' in listed
    (merge,) = b.json("conflicts")
    assert merge["conflicts"][0]["other"] == "focus from a"
    assert a.json("log", "-n", "1")[0]["trailers"]["Cogit-Conflicts"] == "1"
    assert "focus from a" in a.run("conflicts").out  # history travels with the merge


def test_caps_apply_after_the_merge_and_name_what_went(machines, bare_repo):
    a, b = machines
    a.run("init")
    hand_edit_config(a, "learnings: 50 ", "learnings: 3 ")
    a.run("remote", "add", "origin", bare_repo)
    a.run("push")
    b.run("clone", bare_repo)
    for n in range(2):
        a.run("add", "learning", f"a{n}")
        b.run("add", "learning", f"b{n}")
        time.sleep(1.05)
    a.run("sync")
    out = b.run("sync").out
    assert "pruned by cap after the merge: learnings" in out
    merge = b.json("log", "-n", "1")[0]
    assert merge["trailers"]["Cogit-Event"] == "merge" and merge["trailers"].get("Cogit-Pruned")
    assert "Pruned by caps" in merge["body"]
    assert len(texts(b)) == 3 and {"a1", "b1"} <= set(texts(b))  # one of the two oldest went


def test_remote_commit_that_fails_validation_is_refused(machines, bare_repo, git_env, tmp_path):
    a, b = machines
    a.run("init")
    a.run("add", "learning", "good one")
    a.run("remote", "add", "origin", bare_repo)
    a.run("push")
    b.run("clone", bare_repo)
    b.run("add", "learning", "b's own")
    before = {br: head(b, br) for br in ("main",)}
    tracking = b.git("rev-parse", "refs/remotes/origin/main").strip()
    # Someone pushes a broken memory file with plain git.
    work = tmp_path / "vandal"
    git("clone", "--quiet", str(bare_repo.path), str(work), env=git_env)
    path = work / "learnings.yaml"
    path.write_text(path.read_text().replace("category: insight", "category: gossip"))
    git("commit", "--quiet", "-am", "break it", cwd=work, env=git_env)
    bad = git("rev-parse", "HEAD", cwd=work, env=git_env).strip()
    git("push", "--quiet", "origin", "main", cwd=work, env=git_env)
    proc = b.run("sync", check=False)
    assert proc.returncode == 1
    assert f"refused the pull: main commit {bad[:10]}: learnings.yaml:" in proc.err
    assert "field $.items[0].category" in proc.err and "Local memory is unchanged" in proc.err
    assert {br: head(b, br) for br in ("main",)} == before
    assert b.git("rev-parse", "refs/remotes/origin/main").strip() == tracking
    b.assert_healthy()
    # Someone fixes it on top; the next sync validates the fix and goes through.
    path.write_text(path.read_text().replace("category: gossip", "category: insight"))
    git("commit", "--quiet", "-am", "fix it", cwd=work, env=git_env)
    git("push", "--quiet", "origin", "main", cwd=work, env=git_env)
    proc = b.run("sync", check=False)
    assert proc.returncode == 1 and "break it" not in proc.err and bad[:10] in proc.err  # history holds the bad commit


# --------------------------------------------------------------------------- pushing


def test_non_fast_forward_push_fetches_merges_and_retries(machines, bare_repo, git_env):
    a, b = machines
    a.run("init")
    a.run("remote", "add", "origin", bare_repo)
    a.run("push")
    b.run("clone", bare_repo)
    a.run("add", "learning", "a first")
    a.run("push")
    b.run("add", "learning", "b second")
    proc = b.run("push")
    assert "has changes we do not have; fetching and merging first" in proc.err
    assert "main: merged" in proc.out and "Pushed to origin: main" in proc.out
    assert remote_head(bare_repo, git_env) == head(b)
    a.run("pull")
    assert texts(a) == texts(b) == ["a first", "b second"]


@pytest.mark.parametrize("server", ["git_daemon", "git_http"])
def test_server_rejection_is_reported_with_its_reason(server, request, machines, git_env):
    remote = request.getfixturevalue(server)
    hook = remote.path / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'memory is frozen for the audit' >&2\nexit 1\n")
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR)
    a, _ = machines
    a.run("init")
    a.run("remote", "add", "origin", remote)
    proc = a.run("push", check=False)
    assert proc.returncode == 1
    assert "rejected" in proc.err and "pre-receive hook declined" in proc.err
    assert "the server said: memory is frozen for the audit" in proc.err
    assert "origin/main" not in a.git("branch", "-r")


# --------------------------------------------------------------------------- failures



@pytest.mark.parametrize("scheme", ["git", "http"])
def test_unreachable_remote_fails_within_the_bound_and_changes_nothing(scheme, machines):
    a, _ = machines
    a.run("init")
    a.run("add", "learning", "stays")
    with silent_server() as s:
        a.run("remote", "add", "silent", f"{scheme}://127.0.0.1:{s.getsockname()[1]}/m.git")
        a.run("remote", "add", "closed", f"{scheme}://127.0.0.1:{free_port()}/m.git")
        before = a.git("for-each-ref")
        for name in ("silent", "closed"):
            t0 = time.monotonic()
            proc = a.run("sync", name, "--timeout", "1", check=False)
            assert time.monotonic() - t0 < 8
            assert proc.returncode == 1 and "cannot fetch from" in proc.err and "127.0.0.1" in proc.err
            assert "Error:" in proc.err and proc.err.count("\n") <= 4
        assert a.git("for-each-ref") == before
    a.assert_healthy()


def test_clone_refuses_existing_memory_and_handles_an_empty_remote(machines, bare_repo, git_env):
    a, b = machines
    a.run("init")
    proc = a.run("clone", bare_repo, check=False)
    assert proc.returncode == 1 and "memory already exists" in proc.err and "cogit remote add" in proc.err
    out = b.run("clone", bare_repo).out
    assert "Memory in" in out
    b.run("add", "learning", "first ever")
    b.run("push")
    assert remote_head(bare_repo, git_env) == head(b)
    b.assert_healthy()


def test_failed_clone_leaves_nothing_behind(machines, tmp_path):
    a, _ = machines
    proc = a.run("clone", f"git://127.0.0.1:{free_port()}/x.git", "--timeout", "1", check=False)
    assert proc.returncode == 1 and "cannot fetch" in proc.err
    assert not a.home.exists()


def test_remote_add_list_remove(machines, bare_repo, tmp_path):
    a, _ = machines
    a.run("init")
    rel = os.path.relpath(bare_repo.path, a.home.parent)
    a.run("remote", "add", "origin", rel)  # relative to where the command runs
    a.run("remote", "add", "web", "https://user:s3cret@example.com/me/memory.git")
    listed = a.json("remote", "list")
    assert listed == {"origin": str(bare_repo.path), "web": "https://user@example.com/me/memory.git"}
    assert "s3cret" not in a.run("remote", "list").out
    assert a.run("remote", "add", "origin", "/x", check=False).returncode == 2
    assert a.run("remote", "add", "../bad", "/x", check=False).returncode == 2
    proc = a.run("remote", "add", "ftp", "ftp://example.com/x", check=False)
    assert proc.returncode == 1 and "unsupported remote URL scheme" in proc.err
    a.run("remote", "remove", "web")
    assert list(a.json("remote", "list")) == ["origin"]
    assert "[remote \"origin\"]" in (a.home / "memory" / ".git" / "config").read_text()
    proc = a.run("sync", "nope", check=False)
    assert proc.returncode == 2 and "no remote named 'nope'" in proc.err
    a.run("remote", "remove", "origin")
    proc = a.run("sync", check=False)
    assert "no remote to sync with" in proc.err and "cogit remote add origin URL" in proc.err


# --------------------------------------------------------------------------- credentials


@pytest.mark.parametrize("via", ["git", "dulwich"])
def test_http_credentials_come_from_the_git_credential_helper(via, machines, tmp_path, git_env, monkeypatch):
    """A server that wants a password gets the one the user's git credential helper holds
    (the git transport runs without the user's git config, but with its credential.* part)."""
    monkeypatch.setenv("COGIT_SYNC_TRANSPORT", via)
    import base64
    import threading

    from gitservers import _GitHTTPHandler, _GitHTTPServer, init_bare

    root = tmp_path / "auth"
    path = init_bare(root / "remote.git", git_env)
    git("config", "http.receivepack", "true", cwd=path, env=git_env)
    expected = "Basic " + base64.b64encode(b"alice:open-sesame").decode()

    class AuthHandler(_GitHTTPHandler):
        def _run_backend(self):
            if self.headers.get("Authorization") != expected:
                self._read_body()
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="memory"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            super()._run_backend()

    backend_env = dict(git_env, GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="safe.directory", GIT_CONFIG_VALUE_0="*")
    server = _GitHTTPServer(root, backend_env)
    server.RequestHandlerClass = AuthHandler
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/remote.git"
        a, b = machines
        a.run("init")
        a.run("add", "learning", "behind a password")
        a.run("remote", "add", "origin", url)
        proc = a.run("push", check=False)
        assert proc.returncode == 1 and "wants credentials" in proc.err and "credential helper" in proc.err
        helper = tmp_path / "helper.sh"
        helper.write_text("#!/bin/sh\ntest \"$1\" = get || exit 0\necho username=alice\necho password=open-sesame\n")
        helper.chmod(0o755)
        gitconfig = Path(git_env["HOME"]) / ".gitconfig"
        gitconfig.write_text(gitconfig.read_text() + f"[credential]\n\thelper = {helper}\n")
        a.run("push")
        b.run("clone", url)
        assert texts(b) == ["behind a password"]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_progress_is_shown_when_asked(machines, git_daemon):
    a, b = machines
    a.run("init")
    for n in range(3):
        a.run("add", "learning", f"lesson {n}")
    a.run("remote", "add", "origin", git_daemon)
    a.run("push")
    proc = b.run("clone", git_daemon, "--progress")
    assert "Cloning memory from" in proc.err and ("objects" in proc.err or "Counting" in proc.err)
    assert b.run("sync", "--quiet").out == ""
    report = json.loads(b.run("sync", "--json").out)
    assert report["remote"] == "origin" and all(r["action"] == "up to date" for r in report["pulled"])


# --------------------------------------------------------------------------- transports


def test_auto_picks_git_on_path_and_dulwich_without(machines, bare_repo, tmp_path, monkeypatch):
    """sync.transport: auto uses the git binary when PATH has one, dulwich when it has none
    (a real PATH without git, not a mock); git when PATH has none is an error that says what to do."""
    monkeypatch.delenv("COGIT_SYNC_TRANSPORT", raising=False)
    a, _ = machines
    a.run("init")
    a.run("remote", "add", "origin", bare_repo)
    assert a.json("push")["transport"] == "git"
    no_git = tmp_path / "bin-without-git"
    no_git.mkdir()
    os.symlink("/bin/sh", no_git / "sh")  # a PATH with programs, but no git
    a.run("add", "learning", "pushed without git on PATH")
    proc = a.run("sync", "--json", env={"PATH": str(no_git)})
    out = json.loads(proc.stdout)
    assert out["transport"] == "dulwich" and out["pushed"][0]["branch"] == "main"
    assert "Transport: dulwich." in a.run("sync", env={"PATH": str(no_git)}).out
    assert "Transport: git." in a.run("sync").out
    hand_edit_config(a, "transport: auto", "transport: git")
    a.confirm_waiting()
    proc = a.run("sync", check=False, env={"PATH": str(no_git)})
    assert proc.returncode == 1 and "no git" in proc.err and "sync.transport" in proc.err, proc.err
    hand_edit_config(a, "transport: git", "transport: dulwich")
    a.confirm_waiting()
    assert a.json("sync")["transport"] == "dulwich"


@pytest.mark.parametrize("via", ["git", "dulwich"])
def test_real_git_reads_what_either_transport_wrote(via, git_remote, machines, git_env, tmp_path, monkeypatch):
    """Interop: memory synced by either transport is plain git: `git clone` and `git fsck --strict` agree."""
    monkeypatch.setenv("COGIT_SYNC_TRANSPORT", via)
    a, b = machines
    a.run("init")
    a.run("add", "learning", "interop lesson")
    a.run("remote", "add", "origin", git_remote)
    assert a.json("sync")["transport"] == via
    b.run("clone", git_remote)
    b.run("add", "learning", "from b")
    b.run("sync")
    a.run("sync")
    assert texts(a) == texts(b) == ["from b", "interop lesson"]
    git("fsck", "--strict", "--no-dangling", cwd=git_remote.path, env=git_env)
    plain = tmp_path / "plain"
    git("clone", "--quiet", str(git_remote), str(plain), env=git_env)
    git("fsck", "--strict", cwd=plain, env=git_env)
    assert "from b" in (plain / "learnings.yaml").read_text()
    assert git("rev-parse", "HEAD", cwd=plain, env=git_env).strip() == head(a) == head(b)
    # No private fetch refs stay behind in memory.
    assert not a.git("for-each-ref", "refs/cogit/").strip()
