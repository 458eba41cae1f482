"""cogit.sync.transport against real servers: path, file://, git daemon, smart HTTP, ssh."""

from __future__ import annotations

import os
import socket
import stat
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from cogit.errors import PushRejected, RemoteError
from cogit.sync import dulwich_clients, transport
from cogit.sync.transport import remote_kind
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
    init_bare,
    requires_git,
)

pytestmark = requires_git

# Every test runs over both transports: the git binary and dulwich (the fallback).
VIA = ["auto"]


@pytest.fixture(autouse=True, params=["git", "dulwich"])
def via(request):
    VIA[0] = request.param
    yield request.param
    VIA[0] = "auto"


def fetch(*args, **kw):
    return transport.fetch(*args, via=VIA[0], **kw)


def push(*args, **kw):
    return transport.push(*args, via=VIA[0], **kw)


def ls_remote(*args, **kw):
    return transport.ls_remote(*args, via=VIA[0], **kw)


# --------------------------------------------------------------------------- helpers


def new_repo(path: Path, env) -> Path:
    git("init", "--quiet", "--initial-branch=main", str(path), env=env)
    return path


def commit(repo: Path, env, text: str) -> bytes:
    (repo / "state.txt").write_text(text + "\n")
    git("add", "state.txt", cwd=repo, env=env)
    git("commit", "--quiet", "-m", text, cwd=repo, env=env)
    return head(repo, env)


def head(repo: Path, env, ref: str = "HEAD") -> bytes:
    return git("rev-parse", ref, cwd=repo, env=env).strip().encode()


def remote_head(remote, env) -> bytes | None:
    out = git("rev-parse", "--verify", "--quiet", "refs/heads/main", cwd=remote.path,
              env=env, check=False).strip()
    return out.encode() or None


def has_object(repo: Path, env, sha: bytes) -> bool:
    return git("cat-file", "-e", sha.decode(), cwd=repo, env=env, check=False) == "" and \
        git("cat-file", "-t", sha.decode(), cwd=repo, env=env, check=False).strip() == "commit"


@pytest.fixture
def local(tmp_path, git_env) -> Path:
    return new_repo(tmp_path / "local", git_env)


# --------------------------------------------------------------------------- every remote


def test_fetch_from_empty_remote(git_remote, local):
    assert fetch(local, git_remote, timeout=5) == {}
    assert ls_remote(git_remote, timeout=5).get("refs/heads/main") is None


def test_push_then_fetch_into_another_repo(git_remote, local, git_env, tmp_path):
    c1 = commit(local, git_env, "one")
    assert push(local, git_remote, {"main": c1}, {"main": None}, timeout=5) == {"main": c1}
    assert remote_head(git_remote, git_env) == c1
    assert ls_remote(git_remote, timeout=5)["refs/heads/main"] == c1

    other = new_repo(tmp_path / "other", git_env)
    assert fetch(other, git_remote, timeout=5) == {"main": c1}
    assert has_object(other, git_env, c1)
    # fetch moves no local branch
    assert git("for-each-ref", cwd=other, env=git_env).strip() == ""

    # a second push fast-forwards; pushing what the remote has is a no-op
    c2 = commit(local, git_env, "two")
    assert push(local, git_remote, {"main": c2}, {"main": c1}, timeout=5) == {"main": c2}
    assert push(local, git_remote, {"main": c2}, {"main": c2}, timeout=5) == {}
    # already there: nothing to do, even if we expected the older commit
    assert push(local, git_remote, {"main": c2}, {"main": c1}, timeout=5) == {}
    assert fetch(other, git_remote, timeout=5) == {"main": c2}
    assert has_object(other, git_env, c2)


def test_fetch_leaves_local_branches_alone(git_remote, local, git_env, tmp_path):
    theirs = new_repo(tmp_path / "theirs", git_env)
    remote_sha = commit(theirs, git_env, "theirs")
    push(theirs, git_remote, {"main": remote_sha}, {}, timeout=5)
    ours = commit(local, git_env, "ours")
    assert fetch(local, git_remote, timeout=5) == {"main": remote_sha}
    assert head(local, git_env, "refs/heads/main") == ours
    assert has_object(local, git_env, remote_sha)


def test_push_several_branches(git_remote, local, git_env):
    c1 = commit(local, git_env, "one")
    git("branch", "proj-x", cwd=local, env=git_env)
    pushed = push(local, git_remote, {"main": c1, "proj-x": c1}, {}, timeout=5)
    assert pushed == {"main": c1, "proj-x": c1}
    assert fetch(local, git_remote, timeout=5) == {"main": c1, "proj-x": c1}


def test_push_stale_expectation_is_rejected(git_remote, local, git_env, tmp_path):
    c1 = commit(local, git_env, "one")
    push(local, git_remote, {"main": c1}, {"main": None}, timeout=5)
    # Someone else pushes c3 on top of c1; we never fetched it.
    other = new_repo(tmp_path / "other", git_env)
    fetch(other, git_remote, timeout=5)
    git("reset", "--quiet", "--hard", c1.decode(), cwd=other, env=git_env)
    c3 = commit(other, git_env, "three")
    push(other, git_remote, {"main": c3}, {"main": c1}, timeout=5)

    c2 = commit(local, git_env, "two")
    with pytest.raises(PushRejected) as err:
        push(local, git_remote, {"main": c2}, {"main": c1}, timeout=5)
    assert err.value.non_fast_forward is True
    assert set(err.value.rejected) == {"main"}
    assert isinstance(err.value, RemoteError) and err.value.code == "push_rejected"
    # Without an expectation the fast-forward check still refuses it.
    with pytest.raises(PushRejected) as err:
        push(local, git_remote, {"main": c2}, {}, timeout=5)
    assert err.value.non_fast_forward is True
    assert remote_head(git_remote, git_env) == c3


def test_push_that_would_drop_commits_is_rejected(git_remote, local, git_env):
    c1 = commit(local, git_env, "one")
    c2 = commit(local, git_env, "two")
    push(local, git_remote, {"main": c2}, {"main": None}, timeout=5)
    git("reset", "--quiet", "--hard", c1.decode(), cwd=local, env=git_env)
    c2b = commit(local, git_env, "two, rewritten")
    with pytest.raises(PushRejected) as err:
        push(local, git_remote, {"main": c2b}, {"main": c2}, timeout=5)
    assert err.value.non_fast_forward and "main" in str(err.value)
    assert remote_head(git_remote, git_env) == c2
    # force skips the ancestry check, not the expectation
    with pytest.raises(PushRejected):
        push(local, git_remote, {"main": c2b}, {"main": c1}, timeout=5, force=True)
    assert push(local, git_remote, {"main": c2b}, {"main": c2}, timeout=5, force=True) == {
        "main": c2b}
    assert remote_head(git_remote, git_env) == c2b


def test_push_unknown_commit_is_a_caller_bug(git_remote, local):
    with pytest.raises(ValueError):
        push(local, git_remote, {"main": b"1" * 40}, {}, timeout=5)


def test_missing_remote_repository(git_remote, local):
    url = git_remote.replace("remote.git", "nope.git")
    for call in (lambda: fetch(local, url, timeout=5), lambda: ls_remote(url, timeout=5)):
        with pytest.raises(RemoteError) as err:
            call()
        assert "nope.git" in err.value.message


# --------------------------------------------------------------------------- server policy


@pytest.mark.parametrize("server", ["git_daemon", "git_http"])
def test_server_side_rejection_reports_reason(server, request, local, git_env):
    remote = request.getfixturevalue(server)
    hook = remote.path / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'memory is read-only today' >&2\nexit 1\n")
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR)
    c1 = commit(local, git_env, "one")
    with pytest.raises(PushRejected) as err:
        push(local, remote, {"main": c1}, {"main": None}, timeout=5)
    assert err.value.non_fast_forward is False
    assert "pre-receive hook declined" in err.value.rejected["main"]
    assert "pre-receive hook declined" in str(err.value)
    assert remote_head(remote, git_env) is None


def test_local_push_and_remote_hooks(bare_repo, local, git_env, via):
    """A local remote's receiving side runs on this machine as this user: neither transport
    runs the target's hooks (dulwich sets refs directly; git's receive-pack runs with hooks
    off), so a repository someone else prepared cannot run code through a push."""
    marker = bare_repo.path.parent / "hook-ran"
    for name in ("pre-receive", "update", "post-receive", "post-update", "reference-transaction"):
        hook = bare_repo.path / "hooks" / name
        hook.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
        hook.chmod(0o755)
    c1 = commit(local, git_env, "one")
    assert push(local, bare_repo, {"main": c1}, {}, timeout=5) == {"main": c1}
    assert not marker.exists()
    assert remote_head(bare_repo, git_env) == c1


# --------------------------------------------------------------------------- failures



@pytest.mark.parametrize("scheme", ["git", "http"])
def test_unreachable_remote_fails_fast(scheme, local):
    port = free_port()  # nothing listens there
    t0 = time.monotonic()
    with pytest.raises(RemoteError) as err:
        fetch(local, f"{scheme}://127.0.0.1:{port}/x.git", timeout=2)
    assert time.monotonic() - t0 < 2
    assert f"127.0.0.1:{port}" in err.value.message
    assert err.value.hint


@pytest.mark.parametrize("scheme", ["git", "http"])
@pytest.mark.parametrize("op", ["fetch", "push", "ls_remote"])
def test_silent_remote_times_out(scheme, op, local, git_env):
    c1 = commit(local, git_env, "one")
    with silent_server() as s:
        url = f"{scheme}://127.0.0.1:{s.getsockname()[1]}/x.git"
        calls = {
            "fetch": lambda: fetch(local, url, timeout=0.5),
            "push": lambda: push(local, url, {"main": c1}, {}, timeout=0.5),
            "ls_remote": lambda: ls_remote(url, timeout=0.5),
        }
        t0 = time.monotonic()
        with pytest.raises(RemoteError) as err:
            calls[op]()
        elapsed = time.monotonic() - t0
    assert elapsed < 3, elapsed
    assert "0.5s" in err.value.message


def test_timeout_does_not_leak_into_the_process():
    before = socket.getdefaulttimeout()
    with pytest.raises(RemoteError):
        ls_remote(f"git://127.0.0.1:{free_port()}/x.git", timeout=1)
    assert socket.getdefaulttimeout() == before


def test_dumb_http_server_is_reported_clearly(bare_repo, local, git_env):
    """A plain file server is not a smart-HTTP git server: pushing says so."""
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    seed = commit(new_repo(bare_repo.path.parent / "seed", git_env), git_env, "seed")
    git("push", "--quiet", str(bare_repo.path), f"{seed.decode()}:refs/heads/main",
        cwd=bare_repo.path.parent / "seed", env=git_env)
    git("update-server-info", cwd=bare_repo.path, env=git_env)  # what a dumb server needs
    handler = partial(Quiet, directory=str(bare_repo.path.parent))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/remote.git"
        c1 = commit(local, git_env, "one")
        with pytest.raises(RemoteError) as err:
            push(local, url, {"elsewhere": c1}, {}, timeout=5)
        assert "smart HTTP" in err.value.message
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_relative_local_path_is_refused(local):
    with pytest.raises(RemoteError) as err:
        fetch(local, "backup/remote.git", timeout=1)
    assert "absolute" in err.value.message


def test_local_repo_must_exist(tmp_path, bare_repo):
    from cogit.errors import NotInitialized

    with pytest.raises(NotInitialized):
        fetch(tmp_path / "missing", bare_repo, timeout=1)


def test_unsupported_scheme():
    with pytest.raises(RemoteError):
        remote_kind("ftp://example.com/x.git")


def test_remote_kinds():
    assert remote_kind("/srv/memory.git") == "path"
    assert remote_kind("/srv/odd:name/memory.git") == "path"
    assert remote_kind("file:///srv/memory.git") == "file"
    assert remote_kind("git://host/memory.git") == "git"
    assert remote_kind("https://host/memory.git") == "http"
    assert remote_kind("ssh://git@host:2222/memory.git") == "ssh"
    assert remote_kind("git@github.com:me/memory.git") == "ssh"
    assert remote_kind("host:memory.git") == "ssh"


def test_messages_never_show_passwords(local):
    port = free_port()
    with pytest.raises(RemoteError) as err:
        ls_remote(f"http://me:s3cret@127.0.0.1:{port}/x.git", timeout=1)
    assert "s3cret" not in str(err.value)
    assert "me@127.0.0.1" in str(err.value)


def test_file_url_with_escapes(tmp_path, git_env, local):
    remote = init_bare(tmp_path / "with space" / "r.git", git_env)
    c1 = commit(local, git_env, "one")
    url = remote.as_uri()
    assert "%20" in url
    assert push(local, url, {"main": c1}, {}, timeout=5) == {"main": c1}
    assert ls_remote(url, timeout=5)["refs/heads/main"] == c1


# --------------------------------------------------------------------------- ssh


FAKE_SSH = """#!/bin/sh
# A stand-in for ssh: ignore the options and the host, run the command here.
env | grep '^GIT_' | grep -v '^GIT_PROTOCOL=' >> "$FAKE_SSH_LOG"
echo "args: $*" >> "$FAKE_SSH_LOG"
while [ $# -gt 2 ]; do shift; done
exec sh -c "$2"
"""


@pytest.fixture
def fake_ssh(tmp_path, monkeypatch, git_env) -> tuple[Path, Path]:
    script = tmp_path / "fake-ssh"
    script.write_text(FAKE_SSH)
    script.chmod(0o755)
    log = tmp_path / "ssh.log"
    log.write_text("")
    monkeypatch.setenv("FAKE_SSH_LOG", str(log))
    # A surrounding git hook would export these; none may reach the ssh child.
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "wrong"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "wrong-index"))
    return script, log


@pytest.mark.parametrize("shape", ["ssh://fakehost{path}", "me@fakehost:{path}"])
def test_ssh_push_fetch(shape, fake_ssh, bare_repo, local, git_env, tmp_path):
    script, log = fake_ssh
    url = shape.format(path=bare_repo.path)
    c1 = commit(local, git_env, "one")
    assert push(local, url, {"main": c1}, {}, timeout=5, ssh_command=str(script)) == {"main": c1}
    other = new_repo(tmp_path / "other", git_env)
    assert fetch(other, url, timeout=5, ssh_command=str(script)) == {"main": c1}
    assert ls_remote(url, timeout=5, ssh_command=str(script))["refs/heads/main"] == c1
    text = log.read_text()
    assert "fakehost" in text
    # Nothing of the surrounding git hook (GIT_DIR, GIT_INDEX_FILE) reaches ssh; git itself
    # sets a few of its own (GIT_EXEC_PATH, and the sanitising GIT_CONFIG_* we give it).
    assert "wrong" not in text, text
    ours = ("GIT_EXEC_PATH=", "GIT_CONFIG_GLOBAL=", "GIT_CONFIG_NOSYSTEM=", "GIT_TERMINAL_PROMPT=",
            "GIT_DIR=", "GIT_PREFIX=", "GIT_CONFIG_PARAMETERS=")
    leaked = [line for line in text.splitlines() if line.startswith("GIT_")
              and not (VIA[0] == "git" and line.startswith(ours))]
    assert not leaked, text


def test_ssh_command_from_environment(fake_ssh, bare_repo, local, git_env, monkeypatch):
    script, log = fake_ssh
    monkeypatch.setenv("GIT_SSH_COMMAND", str(script))
    c1 = commit(local, git_env, "one")
    url = f"ssh://fakehost{bare_repo.path}"
    assert push(local, url, {"main": c1}, {}, timeout=5) == {"main": c1}
    assert "git-receive-pack" in log.read_text()


def test_ssh_failure_is_a_remote_error(tmp_path, local, monkeypatch):
    script = tmp_path / "broken-ssh"
    script.write_text(
        "#!/bin/sh\necho 'ssh: connect to host fakehost port 22: refused' >&2\nexit 255\n")
    script.chmod(0o755)
    with pytest.raises(RemoteError) as err:
        fetch(local, "ssh://fakehost/x.git", timeout=2, ssh_command=str(script))
    assert "refused" in err.value.message


def test_openssh_gets_batch_mode_and_timeouts(monkeypatch):
    import dulwich.client  # noqa: F401  (imported before Popen is replaced)

    from cogit.sync import gitbin

    command = gitbin._ssh(None, "8")
    for opt in ("-x", "BatchMode=yes", "ConnectTimeout=8", "ServerAliveInterval=8"):
        assert opt in command
    seen = {}

    class FakePopen:
        def __init__(self, args, **kw):
            seen["args"], seen["env"] = args, kw["env"]
            raise OSError("stop here")

    monkeypatch.setattr(dulwich_clients.subprocess, "Popen", FakePopen)
    monkeypatch.setenv("GIT_DIR", "/somewhere")
    with pytest.raises(OSError):
        dulwich_clients._ssh_vendor(7.2).run_command("host", b"git-upload-pack '/x'", port=2222)
    args = seen["args"]
    assert args[:2] == ["ssh", "-x"]
    for opt in ("BatchMode=yes", "ConnectTimeout=8", "ServerAliveInterval=8"):
        assert opt in args
    assert args[-2:] == ["host", b"git-upload-pack '/x'"]
    assert "GIT_DIR" not in seen["env"]


def test_dulwich_stays_out_of_plain_imports():
    import subprocess
    import sys

    code = ("import sys, cogit.sync.transport, cogit.sync.merge; "
            "print(any(m.startswith('dulwich') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])})
    assert out.stdout.strip() == "False", out.stderr
