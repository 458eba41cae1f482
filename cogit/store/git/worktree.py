"""The memory's working tree and index: the only code that writes them, and by the state
files' names alone. Part of the git adapter (cogit/store/git/repo.py holds the object
store, refs and history).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from cogit.errors import InvalidState
from cogit.store.git.repo import FILE_MODE, blob_ids, write_atomic  # first: it clears GIT_* before dulwich loads
from cogit.store.git import index_file, lite
from cogit.store.git.lite import LiteRepo, Unsupported

# dulwich.index (and its Repo) only where the repository was opened through dulwich: the
# write path's repository (lite.py) has its index read and written by index_file.py.


def open_index(repo: Repo):
    # cogit's own repository never uses index.version/manyFiles settings: an empty
    # config skips parsing git config files (the user's global one included) each time.
    from dulwich.config import ConfigDict

    return repo.open_index(config=ConfigDict())


def sync_worktree(repo: Repo, root: Path, files: dict[str, bytes | None], allowed: frozenset[str]) -> None:
    """Make the working tree and index match `files` (after a commit to the checked-out branch).

    The only function that writes the memory's working tree, and only by the names in
    `allowed` (the state files): a name from a tree is never trusted as a path.
    """
    strange = [n for n in files if n not in allowed or "/" in n or n.startswith(".")]
    if strange:
        raise ValueError(f"refusing to write {strange[:3]!r} in the memory working tree")
    if isinstance(repo, LiteRepo):
        try:
            _sync_lite(repo, root, files)
            return
        except (Unsupported, ValueError):  # an index lite.py does not write, or a damaged one: dulwich's way
            repo = repo.full()
    from dulwich.index import index_entry_from_stat
    from dulwich.objects import Blob

    index = open_index(repo)
    for name, data in files.items():
        path = root / name
        if data is None:
            path.unlink(missing_ok=True)
            if name.encode() in index:
                del index[name.encode()]
            continue
        write_atomic(path, data, durable=False)  # the commit is the durable copy
        index[name.encode()] = index_entry_from_stat(os.lstat(path), Blob.from_string(data).id)
    index.write()


def _sync_lite(repo: LiteRepo, root: Path, files: dict[str, bytes | None]) -> None:
    """sync_worktree's files and index entries, the index read and written by lite.py."""
    path = os.path.join(repo.git, "index")
    _, entries = index_file.read_index(path)  # read first: one it cannot write fails before any file is
    for name, data in files.items():
        target = root / name
        if data is None:
            target.unlink(missing_ok=True)
            entries.pop(name.encode(), None)
            continue
        write_atomic(target, data, durable=False)  # the commit is the durable copy
        entries[name.encode()] = index_file.entry_from_stat(os.lstat(target), lite.blob_id(data))
    index_file.write_index(path, entries)


# The pending note (.git/cogit-pending) is read by `cogit status` too, without dulwich: cogit/heads.py.
from cogit.heads import PENDING, read_pending  # noqa: E402,F401


def mark_pending(root: Path, old_head: str | None) -> None:
    """Note, before a commit to the checked-out branch, which head the working tree shows.

    If the process dies before the working tree and index follow the new commit, the
    next writer sees this note and can tell stale files (the old commit's) from a
    person's hand edit (see store/write/recover.py).
    """
    (root / ".git" / PENDING).write_text(old_head or "", "ascii")


def clear_pending(root: Path) -> None:
    (root / ".git" / PENDING).unlink(missing_ok=True)


def reset_index(repo: Repo, root: Path, sha: str | None, allowed: frozenset[str]) -> None:
    """Rebuild the index from a commit's tree. Files whose content matches get their stat
    recorded (clean); others get none, so the next look compares their content."""
    from dulwich.index import IndexEntry, index_entry_from_stat
    from dulwich.objects import Blob

    if isinstance(repo, LiteRepo):
        repo = repo.full()
    index = open_index(repo)
    for key in list(index):
        del index[key]
    for name, blob_id in blob_ids(repo, sha).items():
        if name not in allowed:
            continue
        path = root / name
        try:
            st = os.lstat(path)
            same = stat.S_ISREG(st.st_mode) and Blob.from_string(path.read_bytes()).id.decode() == blob_id
        except OSError:
            same = False
        if same:
            index[name.encode()] = index_entry_from_stat(st, blob_id.encode())
        else:
            index[name.encode()] = IndexEntry(ctime=(0, 0), mtime=(0, 0), dev=0, ino=0, mode=FILE_MODE, uid=0, gid=0,
                                              size=0, sha=blob_id.encode(), flags=0, extended_flags=0)
    index.write()


def changed_by_stat(repo: Repo, root: Path, names) -> list[str]:
    """Files whose size or mtime differ from the index entry (or that are missing from it),
    as git's own status does first; only those need their content compared."""
    if isinstance(repo, LiteRepo):
        try:
            _, entries = index_file.read_index(os.path.join(repo.git, "index"))
        except (Unsupported, ValueError, OSError):
            return list(names)
        stats = {k: (e[9], e[2], e[3]) for k, e in entries.items()}
    else:
        try:
            index = open_index(repo)
        except Exception:
            return list(names)
        stats = {}
        for key in index:
            entry = index[key]
            mtime = entry.mtime if isinstance(entry.mtime, tuple) else (entry.mtime, 0)
            stats[key] = (entry.size, int(mtime[0]), int(mtime[1]))
    out = []
    for name in names:
        key = name.encode()
        try:
            st = os.lstat(root / name)
        except FileNotFoundError:
            if key in stats:
                out.append(name)
            continue
        if key not in stats or not stat.S_ISREG(st.st_mode):  # a symlink or folder: worktree_files refuses it
            out.append(name)
            continue
        # index_file.py keeps git's 32-bit fields; dulwich's entries hold the same values
        if stats[key] != (st.st_size & 0xFFFFFFFF, (st.st_mtime_ns // 10**9) & 0xFFFFFFFF, st.st_mtime_ns % 10**9):
            out.append(name)
    return out


def worktree_files(root: Path, names) -> dict[str, bytes | None]:
    """The working tree's state files (None: missing); InvalidState if one is not a regular file."""
    return {name: read_regular(root, name) for name in names}


def read_regular(root: Path, name: str) -> bytes | None:
    """A regular file's bytes, None if it is missing. A symlink is never followed (it could
    put a file from anywhere into memory), and a folder, fifo or device is refused."""
    path = root / name
    try:
        # O_NONBLOCK: opening a fifo must not wait for a writer; fstat refuses it next.
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as e:
        fd = None
        if stat.S_ISREG(os.lstat(path).st_mode):  # a regular file we may not read
            raise InvalidState(f"cannot read {name} in {root}: {e.strerror}",
                               hint=f"Make it readable (chmod u+r {path}) and run the command again.") from None
    try:
        st = os.fstat(fd) if fd is not None else os.lstat(path)
        if fd is not None and stat.S_ISREG(st.st_mode):
            with os.fdopen(fd, "rb") as f:
                fd = None
                return f.read()
    finally:
        if fd is not None:
            os.close(fd)
    kind = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
    raise InvalidState(
        f"{name} in {root} is {kind}; cogit reads only regular files there (never what a link points to)",
        hint=f"Move it away and restore the committed file: cd {root} && mv {name} ../{name}.moved && git checkout -- {name}"
             " (then copy what you need into it and run `cogit commit`). Nothing was changed.",
    )
