"""Removed items that hold some words, read through the `git` binary: `search --history`.

The dulwich walk (cogit/search.py `_removed_by_walk`) reads every commit and both trees of
each in pure Python: at 100,000 commits 41 s and 280 MB, as much on a fresh clone as warm,
since nothing of it is cached. Here git does the reading, streamed, in bounded memory:

* `git log --raw --diff-merges=first-parent` lists every commit reachable from the head
  with its commit-time line for the walk order (gitlog's `_walk_order`) and the blobs of
  the item files it changed against its first parent (what the walk compares); a root
  commit is skipped, as the walk skips it (nothing was removed there);
* one `git cat-file --batch`, asked one blob at a time as the log streams by, gives the
  old blob of each changed item file; a blob whose lowercased bytes lack a word is
  dropped unread (most are), the others are read (the canonical reader, else `fallback`,
  the validated loader) and only their entries that `wanted` accepts are kept; then the
  new blob is read for its ids, and an entry whose id is gone is a removal;
* of each id's removals the first in `git.walk`'s order (its newest) is kept, and those
  commits are read by `cat-file` (gitlog `_cat`) for their message and time.

Consecutive commits share blobs (one's new file is the next one's old), so a few are
kept. Anything odd (no git, a git that fails, output that does not parse) returns None and
the caller walks the history with dulwich: this is a shortcut, never the only way.
"""

from __future__ import annotations

import subprocess

from cogit.store.history import gitlog
from cogit.store.state import yamlio

_KEEP = 8  # blobs kept read: a commit's new file is the next (older) commit's old one


class _Refused(Exception):
    """git's output was not what it should be: the caller takes the dulwich walk."""


def removed(git_dir: str, head: str, needles: list[bytes], wanted, fallback):
    """[(raw commit as gitlog gives it, section, item)] of every item removed on the way to
    `head` (reachable commits against their first parent) whose old file holds every needle
    (lowercase bytes) and that `wanted(item)` accepts, each id once (its newest removal),
    in `git.walk`'s order; None when git cannot answer. `fallback(section, blob_id)`: the
    document of a blob the canonical reader refuses (it may raise: that file is skipped)."""
    from cogit.store.state.documents import ITEM_SECTIONS, filename

    base = gitlog.command(git_dir)
    if base is None or not gitlog._sha(head) or not needles:
        return None
    env = gitlog._env()
    files = {filename(s).encode(): s for s in ITEM_SECTIONS}
    order = bytearray()
    try:
        with gitlog.raw_log(base, env, head) as log, \
                gitlog.streamed(base, env, ("cat-file", "--batch"), stdin=subprocess.PIPE) as cat:
            found = _scan(gitlog.raw_commits(log.stdout, files, order), needles, wanted, _Blobs(cat, fallback))
            if not gitlog.finish(log) or not order:
                return None
    except (OSError, ValueError, UnicodeDecodeError, subprocess.SubprocessError, _Refused):
        return None
    text = order.decode("ascii")
    del order
    walk = gitlog._walk_order(text, head, {sha for hits in found.values() for sha, _, _ in hits})
    if walk is None:
        return None
    rank = {sha: n for n, sha in enumerate(walk)}
    sections = {s: n for n, s in enumerate(ITEM_SECTIONS)}
    newest = {}
    for iid, hits in found.items():  # the walk's first removal of an id is its last one
        newest[iid] = min(hits, key=lambda h: (rank[h[0]], sections[h[1]]))
    shas = sorted({h[0] for h in newest.values()}, key=rank.__getitem__)
    raw = gitlog._cat(base, env, shas) if shas else {}
    if raw is None:
        return None
    out = sorted(newest.values(), key=lambda h: (rank[h[0]], sections[h[1]]))
    return [(raw[sha], section, item) for sha, section, item in out]


def _scan(commits, needles, wanted, blobs):
    """id -> [(sha, section, item)] of every removal of a wanted item in `commits`
    (gitlog.raw_commits)."""
    found = {}
    for sha, root, pairs in commits:
        if root:
            continue  # a root commit removed nothing
        for section, old, new in pairs:
            if old is None:
                continue  # the file is new: nothing in it was removed
            before = blobs.matching(old, section, needles, wanted)
            if not before:
                continue
            after = set() if new is None else blobs.ids(new, section)
            if after is None:
                continue  # a file the walk cannot read either: nothing to report from it
            for item in before:
                iid = item.get("id")
                if iid not in after:
                    found.setdefault(iid, []).append((sha, section, item))
    return found


class _Blobs:
    """One `git cat-file --batch`, asked a blob at a time; the last few answers kept."""

    def __init__(self, proc, fallback):
        self.proc = proc
        self.fallback = fallback
        self.kept: dict[tuple, object] = {}

    def _data(self, blob_id: str) -> bytes:
        if not gitlog._sha(blob_id):
            raise _Refused()
        self.proc.stdin.write(blob_id.encode() + b"\n")
        self.proc.stdin.flush()
        head = self.proc.stdout.readline().split()
        if len(head) != 3 or head[0] != blob_id.encode() or head[1] != b"blob" or not head[2].isdigit():
            raise _Refused()
        size = int(head[2])
        if size > yamlio.MAX_BYTES:  # larger than any state file cogit reads: dropped unread, in pieces
            left = size + 1
            while left:
                piece = self.proc.stdout.read(min(left, 1 << 16))
                if not piece:
                    raise _Refused()
                left -= len(piece)
            return None
        data = self.proc.stdout.read(size + 1)
        if len(data) != size + 1 or data[-1:] != b"\n":
            raise _Refused()
        return data[:-1]

    def _doc(self, blob_id, section, data):
        from cogit.store.state import canonical_reader

        doc = canonical_reader.read(data)
        if doc is None:
            try:
                doc = self.fallback(section, blob_id)
            except Exception:  # a tree a person broke and cogit refused: nothing to report from it
                return None
        return doc.get("items") or []

    def _remember(self, key, value):
        if len(self.kept) >= _KEEP:
            self.kept.pop(next(iter(self.kept)))
        self.kept[key] = value
        return value

    def matching(self, blob_id, section, needles, wanted):
        """The wanted entries of a blob that holds every needle, else []."""
        key = ("m", blob_id)
        if key in self.kept:
            return self.kept[key]
        data = self._data(blob_id)
        if data is None:  # too large to be a state file: the walk cannot read it either
            return self._remember(key, [])
        low = data.lower()
        if not all(n in low for n in needles):
            return self._remember(key, [])
        items = self._doc(blob_id, section, data)
        return self._remember(key, [i for i in items or [] if wanted(i)])

    def ids(self, blob_id, section):
        """The ids of a blob's entries, None if it cannot be read."""
        key = ("i", blob_id)
        if key in self.kept:
            return self.kept[key]
        data = self._data(blob_id)
        items = None if data is None else self._doc(blob_id, section, data)
        return self._remember(key, None if items is None else {i.get("id") for i in items})
