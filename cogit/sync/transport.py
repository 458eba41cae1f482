"""The remote half of the git adapter: fetch, push and ls-remote.

Two transports with one contract: the `git` binary (gitbin.py) where it is on PATH,
and dulwich (this module) as the fallback; config sync.transport (auto|git|dulwich)
picks, `choose` says which runs.

Only this module and repo.py import dulwich, and only inside functions, so that
importing cogit stays cheap. Every function takes the local repository path
explicitly: nothing is found from the current directory or from `GIT_*` variables
(cogit runs inside other tools' git hooks, which export GIT_DIR and friends), and
subprocesses (ssh) get an environment with every `GIT_*` variable removed.

Remotes: an absolute local path, file://, git://, http(s)://, ssh:// and scp-style
``user@host:path``. Every network wait (connect, and each read) is bounded by
`timeout` seconds; failures raise `RemoteError` with the remote named (credentials
removed) and what went wrong.

Branches are named without ``refs/heads/`` and commit ids are 40-character hex bytes,
as dulwich uses them.
"""

from __future__ import annotations

import os
import re
import socket
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from cogit.errors import CogitError, NotInitialized, RemoteError, UsageError
from cogit.sync.dulwich_clients import _client
# redact_url and clean_env are re-exported: callers name them as transport's.
from cogit.sync.remotes import (
    _STALE_MARKERS,
    _branch_name,
    _redact,
    _ref,
    _rejected,
    _sha,
    _short,
    clean_env,
    redact_url,
    remote_kind,
)

__all__ = ["DEFAULT_TIMEOUT", "TRANSPORTS", "choose", "fetch", "push", "ls_remote", "remote_kind"]

TRANSPORTS = ("auto", "git", "dulwich")

DEFAULT_TIMEOUT = 10.0
BRANCH_PREFIX = b"refs/heads/"
ZERO_SHA = b"0" * 40

Progress = Callable[[bytes], None]


# --------------------------------------------------------------------------- public API


def choose(setting: str | None = "auto") -> str:
    """The transport that runs: 'git' or 'dulwich', for config sync.transport auto|git|dulwich.

    auto: the git binary where it is on PATH (and new enough), else dulwich.
    """
    from cogit.sync import gitbin

    setting = (setting or "auto").strip().lower()
    if setting not in TRANSPORTS:
        raise UsageError(f"unknown sync.transport {setting!r}", hint="Use auto, git or dulwich in $COGIT_HOME/machine-settings.json (this machine's own settings).")
    if setting == "dulwich":
        return "dulwich"
    if gitbin.program() is not None:
        return "git"
    if setting == "git":
        raise RemoteError(f"sync.transport is git, but no git {'.'.join(map(str, gitbin.MIN_VERSION))} "
                          "or newer is on PATH", "install git, or set sync.transport: auto in $COGIT_HOME/machine-settings.json")
    return "dulwich"


def fetch(
    repo_path: Path,
    url: str,
    timeout: float = DEFAULT_TIMEOUT,
    progress: Progress | None = None,
    *,
    ssh_command: str | None = None,
    via: str = "auto",
) -> dict[str, bytes]:
    """Fetch every remote branch's objects into the local store; return the remote heads.

    Local refs are not touched: the caller merges and moves its branches itself (and
    should do so soon: nothing references the fetched objects until then). `via`:
    auto, git or dulwich (see `choose`).
    """
    if choose(via) == "git":
        from cogit.sync import gitbin

        remote_kind(url)
        return gitbin.fetch(repo_path, url, timeout, progress, ssh_command=ssh_command)
    with _open_local(repo_path) as repo, _remote_call(url, "fetch from", timeout):
        client, path = _client(url, timeout, ssh_command)
        store = repo.object_store

        def determine_wants(refs: dict, depth: int | None = None) -> list[bytes]:
            return sorted({
                sha for ref, sha in refs.items()
                if ref.startswith(BRANCH_PREFIX) and sha and sha != ZERO_SHA
                and sha not in store
            })

        from dulwich.client import LocalGitClient

        if isinstance(client, LocalGitClient):
            _measure_local(repo, path, url)
            result = client.fetch(_b(path), repo, determine_wants=determine_wants,
                                  progress=progress, ref_prefix=[BRANCH_PREFIX])
        else:
            result = _fetch_measured(client, path, repo, determine_wants, progress, url)
    return _branches(result.refs)


def _measure_local(repo, path: str, url: str) -> None:
    """A local remote is copied object by object, each read whole: every object new to us
    is measured from its header where it lies first, so a 256 MiB blob there is refused
    unread (the same bound as packscan's for a fetched pack)."""
    from dulwich.repo import Repo

    from cogit.store.git import repo as git
    from cogit.store.git import object_sizes
    from cogit.sync.packscan import _HINT

    with Repo(path) as source:
        tips = [sha for ref, sha in source.get_refs().items()
                if ref.startswith(BRANCH_PREFIX) and sha != ZERO_SHA and sha not in repo.object_store]
        ours = {sha for ref, sha in repo.get_refs().items() if ref.startswith((BRANCH_PREFIX, b"refs/remotes/"))}
        known = [sha.decode() for sha in ours if sha in source.object_store]
        seen: set[bytes] = set()
        for tip in tips:
            try:
                commits = git.new_commits(source, tip.decode(), known, measured=True)
            except git.InvalidState as e:
                raise git.InvalidState(f"refused the fetch from {_redact(url)}: {e.message}", hint=_HINT) from None
            todo = [(git.commits(source)[c.encode()].tree, c, "") for c in commits]
            while todo:
                tree_id, commit, prefix = todo.pop()
                if tree_id in seen or tree_id in repo.object_store:
                    continue
                seen.add(tree_id)
                _, size = object_sizes.object_header(source, tree_id)
                if size > git.MAX_OBJECT_BYTES:
                    raise git.InvalidState(_too_big(url, commit, f"tree {prefix or '/'}", size), hint=_HINT)
                for entry in source[tree_id].items():
                    if entry.mode == 0o160000 or entry.sha in seen:
                        continue  # a gitlink names a commit of another repository: nothing to copy
                    name = prefix + entry.path.decode("utf-8", "replace")
                    if entry.mode & 0o170000 == 0o040000:
                        todo.append((entry.sha, commit, name + "/"))
                        continue
                    seen.add(entry.sha)
                    _, size = object_sizes.object_header(source, entry.sha)
                    if size > git.MAX_OBJECT_BYTES:
                        raise git.InvalidState(_too_big(url, commit, f"entry {name[:80]!r}", size), hint=_HINT)


def _too_big(url: str, commit: str, what: str, size: int) -> str:
    from cogit.store.git.repo import MAX_OBJECT_BYTES

    return (f"refused the pull from {_redact(url)}: commit {commit[:10]}: {what} is {size} bytes, "
            f"over the {MAX_OBJECT_BYTES}-byte limit of any memory object")


def _fetch_measured(client, path, repo, determine_wants, progress, url):
    """client.fetch, with the pack measured (packscan) before dulwich indexes any of it."""
    import tempfile

    from cogit.store.git.repo import MAX_OBJECT_BYTES
    from cogit.sync import packscan

    pack_dir = os.path.join(repo.object_store.path, "pack")
    os.makedirs(pack_dir, exist_ok=True)
    # tmp_pack_*: the name git gives its own; a fetch killed here leaves one that the next
    # writer removes (store/write/recover.py).
    fd, tmp = tempfile.mkstemp(prefix="tmp_pack_cogit_", dir=pack_dir)
    try:
        with os.fdopen(fd, "w+b") as f:
            result = client.fetch_pack(_b(path), determine_wants, repo.get_graph_walker(), f.write,
                                       progress=progress, ref_prefix=[BRANCH_PREFIX])
            if f.tell():
                f.flush()
                packscan.check(tmp, MAX_OBJECT_BYTES, _redact(url))
                f.seek(0)
                repo.object_store.add_thin_pack(f.read, None, progress=progress)
        return result
    finally:
        try:
            os.remove(tmp)
        except OSError:
            pass


def push(
    repo_path: Path,
    url: str,
    updates: dict[str, bytes],
    old: dict[str, bytes | None],
    timeout: float = DEFAULT_TIMEOUT,
    progress: Progress | None = None,
    *,
    force: bool = False,
    ssh_command: str | None = None,
    via: str = "auto",
) -> dict[str, bytes]:
    """Set remote branches to local commits; return the branches that changed.

    `old[branch]` is the commit the caller expects the remote branch to hold (None:
    absent), usually what the last `fetch` returned. If the remote holds anything else,
    or the new commit does not descend from what the remote holds (unless `force`),
    nothing is sent for that push and `PushRejected(non_fast_forward=True)` is raised:
    fetch, merge and push again. A branch missing from `old` is only checked for
    fast-forward. The server also gets the expected old value, so a push racing another
    writer fails there instead of overwriting it. A server that refuses an update (a
    hook, permissions) raises `PushRejected` with the server's reason; dulwich reports
    those in `ref_status` rather than raising. Note that pushes to a local path or
    file:// URL update the refs directly and run no hooks of the target repository.
    """
    updates = {b: _sha(s) for b, s in updates.items()}
    if not updates:
        return {}
    if choose(via) == "git":
        from cogit.sync import gitbin

        remote_kind(url)
        return gitbin.push(repo_path, url, updates, old, timeout, progress, force=force,
                           ssh_command=ssh_command)
    with _open_local(repo_path) as repo, _remote_call(url, "push to", timeout):
        for branch, sha in updates.items():
            if sha not in repo.object_store:
                raise ValueError(f"push {branch}: {sha.decode()} is not in {repo_path}")
        client, path = _client(url, timeout, ssh_command)
        sent: dict[str, bytes] = {}

        def update_refs(remote_refs: dict) -> dict:
            new_refs, stale = {}, {}
            for branch, sha in sorted(updates.items()):
                ref = _ref(branch)
                current = remote_refs.get(ref)
                current = None if current in (None, ZERO_SHA) else current
                expected = _sha(old[branch]) if old.get(branch) is not None else None
                if current == sha:
                    continue  # already there (whoever put it there)
                if branch in old and current != expected:
                    stale[branch] = (f"the remote is at {_short(current)}, "
                                     f"expected {_short(expected)}")
                elif current is not None and not force and not _descends(repo, sha, current):
                    stale[branch] = f"{_short(sha)} does not contain the remote's {_short(current)}"
                else:
                    new_refs[ref] = sha
                    sent[branch] = sha
            if stale:  # refuse before sending anything
                raise _rejected(url, stale, non_fast_forward=True)
            return new_refs

        def generate_pack_data(have, want, *, ofs_delta=False, progress=None):
            return repo.generate_pack_data(set(have), set(want), progress=progress,
                                           ofs_delta=ofs_delta)

        result = client.send_pack(_b(path), update_refs, generate_pack_data, progress=progress)
    failed = {
        _branch_name(ref): reason for ref, reason in (result.ref_status or {}).items()
        if reason is not None
    }
    if failed:
        stale = all(any(m in r.lower() for m in _STALE_MARKERS) for r in failed.values())
        raise _rejected(url, failed, non_fast_forward=stale)
    return sent


def ls_remote(
    url: str, timeout: float = DEFAULT_TIMEOUT, *, ssh_command: str | None = None, via: str = "auto"
) -> dict[str, bytes]:
    """All refs the remote advertises (full names such as ``refs/heads/main``, ``HEAD``)."""
    if choose(via) == "git":
        from cogit.sync import gitbin

        remote_kind(url)
        return gitbin.ls_remote(url, timeout, ssh_command=ssh_command)
    with _remote_call(url, "list", timeout):
        client, path = _client(url, timeout, ssh_command)
        result = client.get_refs(_b(path))
    return {
        ref.decode("utf-8", "replace"): sha
        for ref, sha in result.refs.items()
        if sha is not None and not ref.endswith(b"^{}")
    }


# --------------------------------------------------------------------------- errors, helpers


_timeout_lock = threading.Lock()


@contextmanager
def _socket_timeout(timeout: float) -> Iterator[None]:
    """Bound every socket wait during one remote operation.

    dulwich's git:// client connects with no timeout and offers no setting, so a silent
    host would hang cogit (and the agent's hook) for minutes. The process-wide default
    applies to sockets created meanwhile; the lock keeps two threads from restoring
    each other's value out of order.
    """
    with _timeout_lock:
        previous = socket.getdefaulttimeout()
        socket.setdefaulttimeout(timeout)
        try:
            yield
        finally:
            socket.setdefaulttimeout(previous)


@contextmanager
def _remote_call(url: str, action: str, timeout: float) -> Iterator[None]:
    """Run a remote operation with bounded waits; turn transport failures into RemoteError."""
    from dulwich.client import HTTPProxyUnauthorized, HTTPUnauthorized, StrangeHostname
    from dulwich.errors import GitProtocolError, HangupException, NotGitRepository

    shown = _redact(url)
    hint = "check the URL and that the server is up; `cogit sync` retries later"
    try:
        with _socket_timeout(timeout):
            yield
    except CogitError:
        raise
    except TimeoutError as e:
        raise RemoteError(f"cannot {action} {shown}: no answer within {timeout:g}s", hint) from e
    except NotGitRepository as e:
        raise RemoteError(f"cannot {action} {shown}: not a git repository", hint) from e
    except (HTTPUnauthorized, HTTPProxyUnauthorized) as e:
        raise RemoteError(f"cannot {action} {shown}: the server wants credentials",
                          "store them with your git credential helper (a `git clone` of the URL "
                          "does it), or use an ssh remote") from e
    except NotImplementedError as e:
        # dulwich falls back to dumb HTTP when the smart protocol is missing, then fails.
        raise RemoteError(f"cannot {action} {shown}: the server does not speak git's "
                          "smart HTTP protocol", hint) from e
    except HangupException as e:
        raise RemoteError(f"cannot {action} {shown}: the remote hung up: {_one_line(e)}",
                          hint) from e
    except GitProtocolError as e:
        raise RemoteError(f"cannot {action} {shown}: {_reason(e, timeout)}", hint) from e
    except StrangeHostname as e:
        raise RemoteError(f"cannot {action} {shown}: refusing host name {e.args[0]!r}") from e
    except OSError as e:
        raise RemoteError(f"cannot {action} {shown}: {e.strerror or e}", hint) from e


@contextmanager
def _open_local(repo_path: Path):
    from dulwich.errors import NotGitRepository
    from dulwich.repo import Repo

    try:
        repo = Repo(str(Path(repo_path)))
    except NotGitRepository as e:
        raise NotInitialized(f"{repo_path} is not a git repository",
                             "run `cogit init` first") from e
    try:
        yield repo
    finally:
        repo.close()


def _descends(repo, new: bytes, old: bytes) -> bool:
    """Is `old` an ancestor of `new` (so moving the remote from old to new loses nothing)?"""
    from dulwich.graph import find_merge_base

    if old not in repo.object_store:  # the remote has commits we never fetched
        return False
    # Not can_fast_forward: it prunes by commit time, and machines' clocks disagree.
    return old == new or old in find_merge_base(repo, [old, new])


def _branches(refs: dict) -> dict[str, bytes]:
    return {
        _branch_name(ref): sha for ref, sha in refs.items()
        if ref.startswith(BRANCH_PREFIX) and sha is not None and not ref.endswith(b"^{}")
    }


def _b(path: str | bytes) -> bytes:
    return os.fsencode(path) if isinstance(path, str) else path


def _reason(e: BaseException, timeout: float) -> str:
    """A short reason from a dulwich protocol error (which wraps urllib3's long ones)."""
    text = _one_line(e)
    if "timed out" in text.lower():
        return f"no answer within {timeout:g}s"
    # "...NewConnectionError(...: [Errno 111] Connection refused)" -> "Connection refused"
    m = re.search(r"\[Errno -?\d+\] ([^\"')(]+)", text)
    return m.group(1).strip() if m else text


def _one_line(e: BaseException) -> str:
    text = str(e).strip() or type(e).__name__
    return " | ".join(line.strip() for line in text.splitlines() if line.strip())

