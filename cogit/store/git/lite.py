"""The memory repository read and written with the standard library alone: what one write needs.

Importing dulwich's repository layer costs about four times `python -c pass` before a byte is
read, half of a cold `cogit add` (issue 25). A write needs little of it: the branch heads, one
commit and its tree, a blob or two, a few new loose objects, a compare-and-swap of one ref with
its reflog line, the index entries of the files it wrote and one setting of .git/config. This
module does exactly those, in the formats git and dulwich write (loose objects, packs through
packread.py, packed-refs; the index is index_file.py's), and anything else raises `Unsupported`:
the adapter (repo.py, worktree.py) then opens dulwich's repository for that call alone
(`LiteRepo.full`). The write path is the same function whichever answers
(store/write/transact.py); tests/test_lite_repo.py holds every answer and every written byte to
dulwich's and to git's.
"""

from __future__ import annotations

import mmap
import os
import stat
import zlib

from . import packread

try:
    from _sha1 import sha1  # the builtin module: hashlib's import loads OpenSSL
except ImportError:  # pragma: no cover
    from hashlib import sha1

ZERO = "0" * 40
TYPES = packread.TYPES


class Unsupported(Exception):
    """A layout this module does not read (index v4, a pack index v1, a config include...):
    the caller asks dulwich instead."""


class LockHeld(OSError):
    """A git lock file held by another process (`git` run by hand in memory): busy, not a bug."""

    def __init__(self, path: str):
        super().__init__(f"{path} exists")
        self.filename = self.lockfilename = path


def blob_id(data: bytes) -> str:
    """The id git gives `data` as a blob."""
    return sha1(b"blob %d\0" % len(data) + data).hexdigest()


class LiteRepo:
    """A memory repository opened without dulwich (see the module's text). `full()` opens
    dulwich's Repo on the same folder for whatever this does not do; `close()` closes it."""

    opener = None  # set by repo.py: path -> dulwich Repo (this module must not import dulwich)

    def __init__(self, root: str):
        self.path = root
        self.git = os.path.join(root, ".git")
        self.objects = os.path.join(self.git, "objects")
        self._full = None
        self._packs: list | None = None

    # -- the other backend

    def full(self):
        if self._full is None:
            self._full = LiteRepo.opener(self.path)
        return self._full

    def close(self) -> None:
        self._reset_packs()
        if self._full is not None:
            self._full.close()
            self._full = None

    def controldir(self) -> str:
        return self.git

    def __getattr__(self, name):
        # Anything else of dulwich's Repo (object_store, refs, get_config...) comes from it.
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.full(), name)

    def __getitem__(self, sha: bytes):
        return self.full()[sha]

    def __contains__(self, sha: bytes) -> bool:
        return sha in self.full()

    # -- objects

    def read(self, sha: str) -> tuple[bytes, bytes]:
        """(type name, content) of an object; KeyError when the repository has none."""
        path = os.path.join(self.objects, sha[:2], sha[2:])
        found = None
        for fresh in (False, True):
            try:
                with open(path, "rb") as f:
                    raw = zlib.decompress(f.read())
                break
            except FileNotFoundError:
                pass
            if fresh:
                self._reset_packs()
            try:
                found = self._packed(sha)
            except FileNotFoundError:  # a pack removed since it was listed
                found = None
            if found is not None:
                kind, data = found
                break
        else:
            # The session-end work packs without the memory lock (store/maintain.py): a loose
            # object may have moved into a pack listed after ours; so one more look, as dulwich does.
            raise KeyError(sha)
        if found is None:
            head, nul, data = raw.partition(b"\0")
            kind, _, size = head.partition(b" ")
            if not nul or kind not in TYPES.values() or not size.isdigit() or int(size) != len(data):
                raise ValueError(f"damaged loose object {sha}")
        if sha1(b"%s %d\0" % (kind, len(data)) + data).hexdigest() != sha:
            raise ValueError(f"object {sha} does not hold what its name says")
        return kind, data

    def _reset_packs(self) -> None:
        for _, idx, pack in self._packs or ():
            idx.close()
            if pack is not None:
                pack.close()
        self._packs = None

    def write(self, kind: bytes, data: bytes) -> str:
        """Store a loose object as dulwich does (zlib's default level, read-only, not fsynced:
        the ref that names it is); an object already there only has its time refreshed."""
        raw = b"%s %d\0" % (kind, len(data)) + data
        sha = sha1(raw).hexdigest()
        folder = os.path.join(self.objects, sha[:2])
        path = os.path.join(folder, sha[2:])
        try:
            os.utime(path)
            return sha
        except FileNotFoundError:
            pass
        os.makedirs(folder, exist_ok=True)
        # Callers hold the memory lock, so a `.lock` here was left by a killed writer (repo._add_object).
        locked_write(path, zlib.compress(raw), 0o444, stale=True)
        return sha

    def _pack_list(self) -> list:
        if self._packs is None:
            packs = []  # kept only whole: a pack it cannot read is Unsupported at every look
            folder = os.path.join(self.objects, "pack")
            try:
                names = sorted(os.listdir(folder))
            except FileNotFoundError:
                names = []
            try:
                for name in names:
                    if not name.endswith(".idx") or not os.path.exists(os.path.join(folder, name[:-4] + ".pack")):
                        continue
                    with open(os.path.join(folder, name), "rb") as f:
                        if os.fstat(f.fileno()).st_size < 8 + 1024 + 40:
                            raise Unsupported(f"pack index {name} is too short")
                        idx = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
                    packs.append([os.path.join(folder, name[:-4] + ".pack"), idx, None])
                    if idx[:8] != b"\xfftOc\x00\x00\x00\x02":
                        raise Unsupported(f"pack index {name} is not version 2")
            except BaseException:
                for _, idx, _ in packs:
                    idx.close()
                raise
            self._packs = packs
        return self._packs

    def _offset(self, sha: str):
        """(pack entry, offset) of an object in a pack, or None."""
        want = bytes.fromhex(sha)
        for entry in self._pack_list():
            offset = packread.find(entry[1], want)
            if offset is not None:
                return entry, offset
        return None

    def _packed(self, sha: str):
        found = self._offset(sha)
        if found is None:
            return None
        entry, offset = found
        if entry[2] is None:
            with open(entry[0], "rb") as f:
                entry[2] = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        return packread.read_entry(entry[2], offset, self.read)

    # -- refs

    def ref(self, name: str) -> str | None:
        """The commit id a ref (`refs/heads/main`) holds: the loose file, else packed-refs."""
        try:
            with open(os.path.join(self.git, *name.split("/")), "rb") as f:
                text = f.read(200).strip()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return self.packed_refs().get(name)
        if text.startswith(b"ref: ") or len(text) != 40:
            raise Unsupported(f"{name} is not a plain ref")
        return text.decode("ascii")

    def packed_refs(self) -> dict[str, str]:
        try:
            with open(os.path.join(self.git, "packed-refs"), "rb") as f:
                text = f.read()
        except FileNotFoundError:
            return {}
        out = {}
        for line in text.split(b"\n"):
            if not line or line.startswith((b"#", b"^")):
                continue
            sha, _, name = line.partition(b" ")
            out[name.decode("utf-8", "replace")] = sha.decode("ascii")
        return out

    def branches(self) -> list[str]:
        base = os.path.join(self.git, "refs", "heads")
        found = {n[len("refs/heads/"):] for n in self.packed_refs() if n.startswith("refs/heads/")}
        for folder, _, names in os.walk(base):
            rel = os.path.relpath(folder, base)
            for n in names:
                if not n.endswith(".lock"):
                    found.add(n if rel == "." else f"{rel.replace(os.sep, '/')}/{n}")
        return sorted(found)

    def head_target(self) -> str | None:
        """The ref HEAD names (`refs/heads/main`), None when it is detached."""
        with open(os.path.join(self.git, "HEAD"), "rb") as f:
            text = f.read(300).strip()
        return text[5:].decode("utf-8", "replace") if text.startswith(b"ref: ") else None

    def swap_ref(self, name: str, old: str | None, new: str, message: bytes, committer: bytes, when: int) -> bool:
        """Move `name` from `old` (None: whatever it holds) to `new` under its `.lock`, as
        dulwich's set_if_equals does: False when it holds something else; the reflog line
        written with the lock held; the ref fsynced before the rename."""
        path = os.path.join(self.git, *name.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        lock = path + ".lock"
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            raise LockHeld(lock) from None
        try:
            with os.fdopen(fd, "wb") as f:
                current = self.ref(name)
                if old is not None and (current or ZERO) != old:
                    raise _Abort
                if current == new:
                    raise _Abort
                f.write(new.encode("ascii") + b"\n")
                f.flush()
                os.fsync(f.fileno())
            log = os.path.join(self.git, "logs", *name.split("/"))
            os.makedirs(os.path.dirname(log), exist_ok=True)
            with open(log, "ab") as f:
                f.write(b"%s %s %s %d +0000\t%s\n" % ((old or ZERO).encode(), new.encode(), committer, when,
                                                      b" ".join(message.split())))
            os.replace(lock, path)
        except _Abort:
            os.unlink(lock)
            return current == new
        except BaseException:
            _drop(lock)
            raise
        return True

    # -- config

    def config_value(self, section: str, key: str) -> str | None:
        """A plain `[section] key = value` of .git/config; Unsupported for anything it may not
        read right (an include, a quoted or continued value)."""
        try:
            with open(os.path.join(self.git, "config"), "rb") as f:
                text = f.read(1 << 20).decode("utf-8")
        except FileNotFoundError:
            return None
        here = False
        found = None
        for line in text.splitlines():
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                name, bracket, rest = line[1:].partition("]")
                name = name.strip().lower()
                if not bracket or name.startswith("include") or '"' in name or rest.strip(" \t"):
                    raise Unsupported("config includes, subsections or a header it cannot read")
                here = name == section
                continue
            if here:
                k, eq, v = line.partition("=")
                if k.strip().lower() == key:
                    v = v.strip()
                    if not eq or '"' in v or "\\" in v or "#" in v or ";" in v:
                        raise Unsupported("a config value to unquote")
                    found = v
        return found


class _Abort(Exception):
    pass


def locked_write(path: str, data: bytes, mode: int = 0o644, stale: bool = False) -> None:
    """Write `path` whole through `<path>.lock` (created exclusively, renamed over it), as git
    and dulwich do. A lock already there is LockHeld (git at work by hand), or with `stale`
    (the caller holds the memory lock, so a killed writer left it) removed and taken."""
    lock = path + ".lock"
    for attempt in range(20):
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            break
        except FileExistsError:
            if not stale:
                raise LockHeld(lock) from None
            os.unlink(lock)
        except FileNotFoundError:
            # Its folder went: `git prune-packed` (the session-end packing, which does not take
            # the memory lock) removes the object folders it empties. Once the lock file is in
            # it, the folder is not empty and stays.
            if attempt == 19:
                raise
            os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(lock, path)
    except BaseException:
        _drop(lock)
        raise


def _drop(lock: str) -> None:
    """Remove a lock file this process made, on the way out of a failed write."""
    try:
        os.unlink(lock)
    except OSError:
        pass


# --------------------------------------------------------------------------- trees and commits


def parse_tree(data: bytes) -> list[tuple[bytes, int, str]]:
    """(name, mode, id) of each entry of a tree object."""
    out, pos, end = [], 0, len(data)
    while pos < end:
        sp = data.index(b" ", pos)
        nul = data.index(b"\0", sp)
        if nul + 21 > end:
            raise ValueError("tree entry cut short")
        out.append((data[sp + 1:nul], int(data[pos:sp], 8), data[nul + 1:nul + 21].hex()))
        pos = nul + 21
    return out


def tree_bytes(entries: dict[bytes, tuple[int, str]]) -> bytes:
    """A tree object's content, entries in git's order (a folder sorts as if named `name/`)."""
    def key(name):
        return name + b"/" if stat.S_ISDIR(entries[name][0]) else name

    return b"".join(b"%o %s\0%s" % (entries[n][0], n, bytes.fromhex(entries[n][1])) for n in sorted(entries, key=key))


def commit_tree(data: bytes) -> str:
    """The tree id of a commit object."""
    if not data.startswith(b"tree ") or data[45:46] != b"\n":
        raise ValueError("a commit that does not start with its tree")
    return data[5:45].decode("ascii")


def commit_bytes(tree: str, parents: list[str], author: bytes, committer: bytes, when: int, message: bytes) -> bytes:
    """A commit object's content as dulwich serializes cogit's commits (UTC, encoding UTF-8)."""
    lines = [b"tree " + tree.encode()]
    lines += [b"parent " + p.encode() for p in parents]
    lines.append(b"author %s %d +0000" % (author, when))
    lines.append(b"committer %s %d +0000" % (committer, when))
    lines.append(b"encoding UTF-8")
    return b"\n".join(lines) + b"\n\n" + message


