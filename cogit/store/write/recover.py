"""Recovery from a kill at any moment, run by every writer as soon as it holds the memory lock.

Every process that writes the memory repository (commits, refs, index, config) holds
the memory lock first. So a git lock file found while we hold it (`refs/heads/main.lock`,
`index.lock`, …), or a temporary file of an atomic write beside a state file, was left
by a writer that died mid-update: it is stale by construction and is removed, with a
line in runtime/logs/store.log. Left in place, dulwich (and git)
would refuse every later write: memory would be bricked.

A kill between a commit and the update of the working tree and index leaves the files
of the old commit on disk. Taken for a hand edit, they would be committed back and undo
the acknowledged change. The write path therefore notes the old head first
(`repo.mark_pending`); here every state file that still shows the old commit's (or is
already the new one's) content is brought to the branch head, and the index is rebuilt
from it. A file with any other content is a person's edit made since, and stays for
`absorb_hand_edits` to take.
"""

from __future__ import annotations

import os

from cogit.paths import Home
from cogit.store.git import repo as git
from cogit.store.git import worktree
from cogit.store.write.notes import log_note
from cogit.store.state.documents import STATE_FILES

TOP_LOCKS = ("HEAD.lock", "index.lock", "config.lock", "packed-refs.lock", "shallow.lock")


def recover(home: Home) -> None:
    """Clear stale git locks and finish an interrupted working-tree update. Caller holds the lock."""
    gitdir = home.memory / ".git"
    if not gitdir.is_dir():
        return
    cleared = []
    # A person's own `git` in the memory folder (git status, git commit) takes git's locks
    # without cogit's: while one runs, its locks are live and stay (the write then fails
    # with git's own "index.lock exists", which says to wait).
    live = live_git(home)
    if live:
        _log(home, f"git lock files left alone: a git process works in memory (pid {', '.join(map(str, live))})")
    for name in TOP_LOCKS if not live else ():
        path = gitdir / name
        if path.exists():
            path.unlink(missing_ok=True)
            cleared.append(name)
    for dirpath, _, names in os.walk(gitdir / "refs") if not live else ():
        for name in names:
            if name.endswith(".lock"):
                path = os.path.join(dirpath, name)
                os.unlink(path)
                cleared.append(os.path.relpath(path, gitdir))
    cleared += _fetch_leftovers(home)
    cleared += _edit_leftovers(home)
    # A kill inside write_atomic leaves its temporary file beside the state file.
    prefixes = tuple(f".{name}." for name in STATE_FILES)
    for name in os.listdir(home.memory):
        if name.endswith(".tmp") and name.startswith(prefixes):
            os.unlink(home.memory / name)
            cleared.append(name)
    if cleared:
        _log(home, f"cleared stale lock and temporary file(s) left by a killed writer: {', '.join(sorted(cleared))}")
    old = worktree.read_pending(home.memory)
    if old is not None:
        _finish_worktree(home, old or None)


def live_git(home: Home) -> list[int]:
    """Pids of running `git` processes working in the memory repository: their cwd is in it,
    or a file of it is open (Linux /proc; elsewhere none are found and locks are cleared
    as before)."""
    memory = os.path.realpath(str(home.memory))
    mine = os.getpid()
    out = []
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []
    for pid in pids:
        if pid == mine:
            continue
        try:
            with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as f:
                if not f.read().strip().startswith("git"):
                    continue
            cwd = os.readlink(f"/proc/{pid}/cwd")
            inside = cwd == memory or cwd.startswith(memory + os.sep)
            if not inside:
                for fd in os.listdir(f"/proc/{pid}/fd"):
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if target.startswith(memory + os.sep):
                        inside = True
                        break
        except OSError:  # gone, or not ours to look at
            continue
        if inside:
            out.append(pid)
    return out


# Temporary files of a fetch (git's index-pack and dulwich's, cogit's own pack scan): a
# killed fetch leaves them in objects/ for ever, each as big as what it received.
FETCH_LEFTOVERS = ("tmp_pack_", "tmp_idx_", "tmp_rev_", "tmp_obj_", "incoming-")


def _fetch_leftovers(home: Home) -> list[str]:
    """Remove what killed fetches left, unless a fetch is running now (fetches hold
    runtime/fetch.lock, not the memory lock)."""
    from cogit.locking import LockTimeout, file_lock

    objects = home.memory / ".git" / "objects"
    found = [os.path.join(d, n) for d in (objects, objects / "pack") if d.is_dir()
             for n in os.listdir(d) if n.startswith(FETCH_LEFTOVERS)]
    if not found:
        return []
    try:
        with file_lock(home.runtime / "fetch.lock", 0):
            out = []
            for path in found:
                try:
                    os.unlink(path)
                    out.append(os.path.relpath(path, home.memory / ".git"))
                except OSError:
                    pass
            return out
    except LockTimeout:  # a fetch is running: they may be its own
        return []


def edit_dir(home: Home):
    """Where `cogit edit` keeps the text being edited: runtime/edit, 0700, files 0600."""
    path = home.runtime / "edit"
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path, 0o700)
    return path


def _edit_leftovers(home: Home) -> list[str]:
    """Files of `cogit edit` runs that were killed (their pid is gone): memory content that
    would otherwise stay for ever. Unchanged ones go; one the person changed is kept among
    the refused edits (runtime/rejected), so nothing typed is lost."""
    import hashlib

    folder = home.runtime / "edit"
    if not folder.is_dir():
        return []
    out = []
    for name in os.listdir(folder):
        parts = name.split(".")  # <section>.<pid>.<sha of the text it started from>.yaml
        if len(parts) != 4 or not parts[1].isdigit() or _alive(int(parts[1])):
            continue
        path = folder / name
        try:
            data = path.read_bytes()
            if hashlib.sha256(data).hexdigest()[:16] != parts[2]:
                home.rejected.mkdir(mode=0o700, parents=True, exist_ok=True)
                os.replace(path, home.rejected / f"edit-{name}")
                _log(home, f"kept the text of a killed `cogit edit` in {home.rejected / ('edit-' + name)}")
            else:
                os.unlink(path)
            out.append(f"runtime/edit/{name}")
        except OSError:
            pass
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _finish_worktree(home: Home, old: str | None) -> None:
    repo = git.open_repo(home.memory)
    try:
        branch = git.checked_out_branch(repo) or git.MAIN
        head = git.head(repo, branch)
        new_files = git.read_files(repo, head)
        old_files = git.read_files(repo, old) if old and old.encode() in repo.object_store else {}
        current = worktree.worktree_files(home.memory, sorted(STATE_FILES))
        fix = {n: new_files.get(n) for n in STATE_FILES
               if current.get(n) != new_files.get(n) and current.get(n) == old_files.get(n)}
        if fix:
            worktree.sync_worktree(repo, home.memory, fix, STATE_FILES)
        worktree.reset_index(repo, home.memory, head, STATE_FILES)
        worktree.clear_pending(home.memory)
        _log(home, f"finished the working tree of {branch} at {(head or '')[:12]} after an interrupted write"
                   + (f" ({', '.join(sorted(fix))})" if fix else ""))
    finally:
        repo.close()


def _log(home: Home, text: str) -> None:
    log_note(home, text)
