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
    for name in TOP_LOCKS:
        path = gitdir / name
        if path.exists():
            path.unlink(missing_ok=True)
            cleared.append(name)
    for dirpath, _, names in os.walk(gitdir / "refs"):
        for name in names:
            if name.endswith(".lock"):
                path = os.path.join(dirpath, name)
                os.unlink(path)
                cleared.append(os.path.relpath(path, gitdir))
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
