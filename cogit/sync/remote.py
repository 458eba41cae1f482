"""Remotes and sync across machines: remote add/list/remove, pull, push, sync, clone.

Every branch of memory travels (main and every project/<slug>). A remote is any git
URL the user already has (path, file://, ssh:// or user@host:path, git://, http(s)://),
kept in the memory repository's own .git/config with the usual fetch refspec, and its
branches as last seen are the remote-tracking refs refs/remotes/<name>/<branch>, so
plain git in the memory repository understands them too.

    pull  = fetch every branch (network, no lock held) -> integrate.py (lock, validate,
            fast-forward or semantic merge)
    push  = send every branch the remote lacks, expecting the remote to be where we
            last saw it; if it moved on, fetch, merge and push again (bounded retries)
    sync  = pull, then push

Network waits are bounded by `timeout` (transport.py); a remote that cannot be reached
raises RemoteError and changes nothing locally.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field

from cogit.errors import CogitError, InvalidState, PushRejected, UsageError
from cogit.paths import Home
from cogit.store.git import repo as git
from cogit.store.git import objects as git_objects
from cogit.store.git import remotes as git_remotes
from cogit.sync import transport
from cogit.sync.remotes import _STALE_MARKERS
from cogit.sync.integrate import BranchResult, Note, Progress, integrate, syncable
from cogit.store.git.repo import open_existing
from cogit.store.write.transact import busy_lock, memory_lock

DEFAULT_TIMEOUT = transport.DEFAULT_TIMEOUT
PUSH_RETRIES = 3
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")


@dataclass
class SyncReport:
    remote: str
    url: str
    pulled: list[BranchResult] = field(default_factory=list)
    pushed: list[BranchResult] = field(default_factory=list)
    transport: str = ""  # "git" or "dulwich": what moved the objects

    def to_json(self) -> dict:
        return {"remote": self.remote, "url": transport.redact_url(self.url), "transport": self.transport,
                "pulled": [r.to_json() for r in self.pulled], "pushed": [r.to_json() for r in self.pushed]}


# --------------------------------------------------------------------------- remotes


def normalize_url(url: str, cwd: str) -> str:
    """Check the URL's kind; a local path becomes absolute (cogit runs from anywhere)."""
    url = url.strip()
    if transport.remote_kind(url) == "path":
        return os.path.abspath(os.path.join(cwd, os.path.expanduser(url)))
    return url


def add_remote(home: Home, name: str, url: str, cwd: str) -> str:
    if not _NAME.match(name) or name.endswith(".lock") or ".." in name:
        raise UsageError(f"bad remote name {name!r}", hint="Use letters, digits, '.', '_' or '-', e.g. origin.")
    url = normalize_url(url, cwd)
    with memory_lock(home):
        _add_remote_locked(home, name, url)
    return url


def _add_remote_locked(home: Home, name: str, url: str) -> None:
    repo = open_existing(home)
    try:
        if name in git_remotes.remotes(repo):
            raise UsageError(f"a remote named {name!r} exists already ({transport.redact_url(git_remotes.remotes(repo)[name])})",
                             hint=f"`cogit remote remove {name}` first, or pick another name.")
        git_remotes.set_remote(repo, name, url)
    finally:
        repo.close()


def remove_remote(home: Home, name: str) -> None:
    with memory_lock(home):
        repo = open_existing(home)
        try:
            if name not in git_remotes.remotes(repo):
                raise UsageError(f"no remote named {name!r}", hint="`cogit remote list` lists them.")
            git_remotes.remove_remote(repo, name)
        finally:
            repo.close()


def list_remotes(home: Home) -> dict[str, str]:
    repo = open_existing(home)
    try:
        return git_remotes.remotes(repo)
    finally:
        repo.close()


def pick_remote(home: Home, name: str | None) -> tuple[str, str]:
    """(name, url) of the remote to use: the one named, else config sync.remote, else
    `origin`, else the only one."""
    repo = open_existing(home)
    try:
        found = git_remotes.remotes(repo)
        if name is None:
            from cogit.store.write.transact import main_config

            from cogit import machine_settings

            # Where memory goes is this machine's decision (machine_settings.py), not config.yaml's.
            name = str((machine_settings.effective(home, main_config(repo)).get("sync") or {}).get("remote") or "") or None
    finally:
        repo.close()
    if name is None:
        name = "origin" if "origin" in found else (next(iter(found)) if len(found) == 1 else None)
    if name is None:
        if not found:
            raise UsageError("no remote to sync with",
                             hint="Add one: `cogit remote add origin URL` (any git URL: path, ssh, http(s), git://).")
        raise UsageError(f"several remotes ({', '.join(found)}) and none chosen",
                         hint="Name one (`cogit sync NAME`) or set sync.remote in $COGIT_HOME/machine-settings.json.")
    if name not in found:
        raise UsageError(f"no remote named {name!r}", hint="`cogit remote list` lists them; `cogit remote add NAME URL` adds one.")
    return name, found[name]


def transport_setting(home: Home | None) -> str:
    """$COGIT_SYNC_TRANSPORT, else config sync.transport (auto|git|dulwich; auto when unset)."""
    from cogit.store.write.transact import main_config

    if os.environ.get("COGIT_SYNC_TRANSPORT") or home is None:
        return os.environ.get("COGIT_SYNC_TRANSPORT") or "auto"
    repo = open_existing(home)
    try:
        from cogit import machine_settings

        # Which program talks to the remote is this machine's decision (machine_settings.py).
        return str((machine_settings.effective(home, main_config(repo)).get("sync") or {}).get("transport") or "auto")
    finally:
        repo.close()


# --------------------------------------------------------------------------- pull, push, sync


def pull(home: Home, remote: str | None = None, timeout: float = DEFAULT_TIMEOUT,
         progress: Progress | None = None, note: Note | None = None) -> SyncReport:
    name, url = pick_remote(home, remote)
    report = SyncReport(name, url, transport=transport.choose(transport_setting(home)))
    report.pulled = _fetch_and_integrate(home, name, url, timeout, progress, note, report.transport)
    return report


def _fetch_and_integrate(home, name, url, timeout, progress, note, via) -> list[BranchResult]:
    if note:
        note(f"Fetching from {name} ({transport.redact_url(url)}, transport: {via})")
    # Pulls take turns (the memory lock is not held over the network, so hooks never wait
    # on it); so a refused pull can take back exactly the objects it fetched.
    with busy_lock(home.runtime / "fetch.lock", max(timeout, 30.0), "another pull or sync is running"):
        before = git_objects.object_files(home.memory)
        heads = transport.fetch(home.memory, url, timeout, progress, via=via)
        heads = {b: s.decode() for b, s in heads.items() if syncable(b)}
        try:
            return integrate(home, name, heads, note, progress)
        except InvalidState:
            git_objects.remove_object_files(home.memory, git_objects.object_files(home.memory) - before)
            raise


def push(home: Home, remote: str | None = None, timeout: float = DEFAULT_TIMEOUT,
         progress: Progress | None = None, note: Note | None = None) -> SyncReport:
    """Push every branch; if the remote moved on, fetch + merge and try again."""
    name, url = pick_remote(home, remote)
    report = SyncReport(name, url, transport=transport.choose(transport_setting(home)))
    said: list[bytes] = []  # what the server prints (a hook's reason arrives here, not in the status)

    def tee(data: bytes) -> None:
        said.append(data)
        if progress:
            progress(data)

    for attempt in range(PUSH_RETRIES + 1):
        repo = open_existing(home)
        try:
            local = {b: git.head(repo, b) for b in git.branches(repo) if syncable(b)}
            seen = git_remotes.tracking(repo, name)
        finally:
            repo.close()
        updates = {b: s for b, s in local.items() if s and seen.get(b) != s}
        if not updates:
            return report
        old = {b: (seen[b].encode() if b in seen else None) for b in updates}
        if note:
            note(f"Pushing {len(updates)} branch(es) to {name}: {', '.join(sorted(updates))}")
        try:
            said.clear()
            transport.push(home.memory, url, {b: s.encode() for b, s in updates.items()}, old, timeout, tee,
                           via=report.transport)
        except PushRejected as e:
            if not e.non_fast_forward and lost_race(e.rejected, said):
                e.non_fast_forward = True  # another push landed while ours was in flight: stale, not refused
            if not e.non_fast_forward:  # a server policy said no: give its reason
                text = _server_said(said)
                if text:
                    raise PushRejected(f"{e.message}; the server said: {text}", e.hint, rejected=e.rejected) from None
                raise
            if attempt == PUSH_RETRIES:
                raise PushRejected(e.message + f" (after {PUSH_RETRIES} retries)",
                                   "Another machine keeps pushing at the same moment; run `cogit sync` again.",
                                   non_fast_forward=True, rejected=e.rejected) from None
            if note:
                note(f"{name} has changes we do not have; fetching and merging first")
            report.pulled += _fetch_and_integrate(home, name, url, timeout, progress, note, report.transport)
            continue
        with memory_lock(home):  # every writer of refs holds it (see write.recover)
            repo = open_existing(home)
            try:
                for branch, sha in updates.items():
                    git_remotes.set_tracking(repo, name, branch, sha)
            finally:
                repo.close()
        report.pushed = [BranchResult(b, "pushed", seen.get(b), s) for b, s in sorted(updates.items())]
        return report
    return report  # pragma: no cover (the loop returns or raises)


# What a server says when the branch moved between its checks of our push and its update of
# the ref (another push landed in that moment): git's ref transaction found the ref "is at X
# but expected Y", or the ref's lock held by that other push ("… .lock': File exists").
# The per-branch status then names no cause ("failed to update ref"); the reason is in the
# server's words on the progress channel.
_RACE = ("but expected", "file exists")
_GENERIC = ("failed to update ref", "failed to update", "failed to lock")


def lost_race(rejected: dict[str, str] | None, said: list[bytes]) -> bool:
    """Did every refused branch lose a race on the server (so fetch, merge and retry)?"""
    text = b"".join(said).decode("utf-8", "replace").lower()
    if "cannot lock ref" not in text or not any(m in text for m in _RACE):
        return False
    reasons = [r.lower() for r in (rejected or {}).values()]
    return bool(reasons) and all(any(m in r for m in _GENERIC + _STALE_MARKERS) for r in reasons)


_PROGRESS_LINE = re.compile(r"^(counting|compressing|writing|total|resolving|delta|enumerating|unpacking|found \d+ deltas)", re.I)


def _server_said(chunks: list[bytes]) -> str:
    """The server's own words from its progress channel, without transfer progress lines."""
    text = b"".join(chunks).decode("utf-8", "replace")
    # The git binary prefixes the server's words with "remote: " and adds its own summary.
    lines = [ln.strip().removeprefix("remote:").strip() for ln in re.split(r"[\r\n]+", text)
             if not ln.startswith(("To ", "error: failed to push", " ! ", "! ", "hint:"))]
    lines = [ln for ln in lines if ln and not _PROGRESS_LINE.match(ln)]
    return " | ".join(dict.fromkeys(lines))[:300]


def sync(home: Home, remote: str | None = None, timeout: float = DEFAULT_TIMEOUT,
         progress: Progress | None = None, note: Note | None = None) -> SyncReport:
    """Pull, then push: afterwards both sides hold everything either had."""
    report = pull(home, remote, timeout, progress, note)
    pushed = push(home, report.remote, timeout, progress, note)
    report.pulled += pushed.pulled
    report.pushed = pushed.pushed
    report.transport = pushed.transport or report.transport
    return report


# --------------------------------------------------------------------------- clone


def clone(home: Home, url: str, cwd: str, name: str = "origin", timeout: float = DEFAULT_TIMEOUT,
          progress: Progress | None = None, note: Note | None = None) -> SyncReport:
    """Set up this machine's memory from a remote (or fresh, if the remote is empty)."""
    from cogit.store.memory import init

    if (home.memory / ".git").exists():
        raise CogitError(
            f"memory already exists in {home.memory}",
            hint=f"To join a remote with the memory you have: `cogit remote add {name} URL` then `cogit sync` "
                 "(both sides keep everything).",
        )
    url = normalize_url(url, cwd)
    if note:
        note(f"Cloning memory from {transport.redact_url(url)}")
    created_root, created_runtime = not home.root.exists(), not home.runtime.exists()
    home.runtime.mkdir(parents=True, exist_ok=True)
    repo = git.init(home.memory)
    try:
        git_remotes.set_remote(repo, name, url)
    finally:
        repo.close()
    try:
        # No memory here yet, so no config: $COGIT_SYNC_TRANSPORT or auto picks the transport.
        via = transport.choose(transport_setting(None))
        heads = transport.fetch(home.memory, url, timeout, progress, via=via)
        heads = {b: s.decode() for b, s in heads.items() if syncable(b)}
        if heads and git.MAIN not in heads:
            raise CogitError(f"{transport.redact_url(url)} holds no cogit memory (no branch main)",
                             hint="Give the URL of a memory repository (`cogit push` fills an empty one).")
        report = SyncReport(name, url, transport=via)
        if heads:
            report.pulled = integrate(home, name, heads, note, progress)
            from cogit.store.git import plumbing

            plumbing.write_commit_graph(str(home.memory / ".git"))  # for the walks of git: `log --event`
            return report
    except BaseException:
        # Nothing half-made stays behind: a failed clone changes nothing locally.
        for made, path in ((created_root, home.root), (created_runtime, home.runtime), (True, home.memory)):
            if made:
                shutil.rmtree(path, ignore_errors=True)
        raise
    # An empty remote: start fresh memory here; `cogit push` fills the remote.
    shutil.rmtree(home.memory)
    init(home)
    repo = git.open_repo(home.memory)
    try:
        git_remotes.set_remote(repo, name, url)
    finally:
        repo.close()
    if note:
        note(f"{name} is empty: created fresh memory; `cogit push` fills the remote")
    return SyncReport(name, url, transport=via)


# --------------------------------------------------------------------------- auto-sync


def background(home: Home, action: str, remote: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> SyncReport | None:
    """Auto-sync from a detached process: never raise, log the outcome to runtime/logs/sync.log.

    Without a remote there is nothing to do (auto-sync is on, but this machine has not
    joined one yet): that is logged once per run, not an error.
    """
    run = {"pull": pull, "push": push, "sync": sync}[action]
    try:
        if not (home.memory / ".git").exists() or not list_remotes(home):
            _log(home, f"auto-{action}: no remote configured; nothing to do")
            return None
        report = run(home, remote, timeout)
        moved = [f"{r.branch} {r.action}" for r in report.pulled + report.pushed if r.action != "up to date"]
        _log(home, f"auto-{action} with {report.remote}: {', '.join(moved) or 'up to date'} "
                   f"(transport: {report.transport})")
        return report
    except CogitError as e:
        _log(home, f"auto-{action} failed: {e.message}")
    except Exception as e:  # a detached process has no one to tell but the log
        _log(home, f"auto-{action} crashed: {type(e).__name__}: {e}")
    return None


def _log(home: Home, text: str) -> None:
    import time

    home.logs.mkdir(parents=True, exist_ok=True)
    with open(home.logs / "sync.log", "a", encoding="utf-8") as f:
        f.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {text}\n")
