"""The history index on disk, and the history queries it answers without dulwich.

Standard library only: when the index is current (every branch head, read from the ref
files by cogit/heads.py), `why ID`, `log --item ID`, `log -n N` and `log --event E -n N`
import neither dulwich nor the YAML or schema code (a rare event: history/gitlog.py). When
it is behind, any check here raises `Stale` and the caller takes the full path
(cogit/store/history/log.py), which brings the index up to date as it goes.

Files in runtime/cache/ (caches: deleting them only costs speed):

- history.idx: a header, then a line per commit, ancestors first: `sha commit-time parents
  offset length keys` and a tab (parents `p1,p2` or `-`; offset/length: the record in
  history.dat; keys: the JSON list of item keys changed, what `why` looks for).
- history.dat: one JSON record per commit: its author, author time, summary, body,
  trailers, item changes against its first parent; each compressed (history/records.py).
- recent/<branch>.jsonz: per branch, its head and its newest commits (the first RECENT of
  `git.walk`'s order), zlib-compressed JSON, so `log -n 20` reads one small file.

Everything read is bounded and checked (a torn, foreign or corrupt file is hostile input): a
line that does not parse is skipped, a record out of bounds or not the commit's makes it Stale.
"""

from __future__ import annotations

import contextlib
import heapq
import json
import os
import time
import zlib

from cogit.heads import ref_head
from cogit.store.history import records

HEADER = f"cogit-history-index {records.FORMAT}\n"
MAX_INDEX = 256 * 1024 * 1024  # bytes of history.idx read at most (100,000 commits take ~15 MB)
MAX_RECORD = 16 * 1024 * 1024  # one commit's record
MAX_RECENT = 8 * 1024 * 1024  # one branch's recent file
RECENT = 200  # commits kept per branch for `log -n N` (and a project's name, from its newest 50)
NAME_DEPTH = 50  # how far back a project's name is looked for (cogit/store/scopes.project_name)
MAIN = "main"
PROJECT_PREFIX = "project/"
_HEX = frozenset("0123456789abcdef")


class Stale(Exception):
    """The index (or a recent file) cannot answer exactly: take the full path."""


class Entry:
    """One commit as log and why print it."""

    __slots__ = ("sha", "summary", "body", "author", "time", "parents", "trailers")

    def __init__(self, sha, summary, body, author, time, parents, trailers):
        self.sha, self.summary, self.body, self.author = sha, summary, body, author
        self.time, self.parents, self.trailers = time, parents, trailers

    def __eq__(self, other):
        return isinstance(other, Entry) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def to_json(self) -> dict:
        return {
            "sha": self.sha,
            "summary": self.summary,
            "author": self.author,
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.time)),
            "parents": self.parents,
            "body": self.body,
            "trailers": self.trailers,
        }

    def as_list(self) -> list:
        return [self.sha, self.summary, self.body, self.author, self.time, self.parents, self.trailers]


def parse_since(text: str) -> int:
    """`2026-11-30`, `2026-11-30T10:00:00Z`, or a relative `3d`, `12h`, `30m`."""
    from cogit.errors import UsageError

    text = text.strip()
    units = {"m": 60, "h": 3600, "d": 86400, "w": 604800}
    if text[:-1].isdigit() and text[-1:] in units:
        return int(time.time()) - int(text[:-1]) * units[text[-1]]
    for fmt in ("%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d"):
        try:
            import calendar

            return calendar.timegm(time.strptime(text, fmt))
        except ValueError:
            continue
    raise UsageError(f"cannot read the date {text!r}", hint="Use YYYY-MM-DD, an ISO time, or 3d / 12h / 30m.")


def is_sha(text) -> bool:
    return isinstance(text, str) and len(text) == 40 and _HEX.issuperset(text)


# --------------------------------------------------------------------------- the item index


class Index:
    """history.idx and history.dat of one memory home (see the module's docstring).

    `rows`: sha -> (commit time, parents, offset, length, keys as JSON text). A line
    that does not parse is skipped (its commit is indexed again when met); an index whose
    records reach past the end of history.dat (the data file was lost) is not used."""

    def __init__(self, cache_dir: str):
        self.idx_path = os.path.join(cache_dir, "history.idx")
        self.dat_path = os.path.join(cache_dir, "history.dat")
        self.rows: dict[str, tuple[int, list[str], int, int, str]] = {}
        self.usable = False  # the files hold this format (else the next append starts them anew)
        self._dat = None
        try:
            with open(self.idx_path, "rb") as f:
                data = f.read(MAX_INDEX + 1)
            if len(data) > MAX_INDEX:
                return
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return
        if not text.startswith(HEADER):
            return
        rows = self.rows
        end = 0
        lines = text[len(HEADER):].split("\n")
        lines.pop()  # "" after the last newline, or a line torn by a crash
        for line in lines:
            parts = line.split(" ", 5)
            if len(parts) != 6 or line[-1:] != "\t":  # a line ends in a tab, which JSON never holds raw
                continue
            sha, ctime, parents, off, length, keys = parts
            keys = keys[:-1]
            if len(sha) != 40 or not ctime.isdigit() or not off.isdigit() or not length.isdigit() \
                    or keys[:1] != "[" or keys[-1:] != "]":
                continue
            off, length = int(off), int(length)
            rows[sha] = (int(ctime), parents.split(",") if parents != "-" else [], off, length, keys)
            if off + length > end:
                end = off + length
        try:
            if os.path.getsize(self.dat_path) < end:
                rows.clear()
                return
        except OSError:
            rows.clear()
            return
        self.usable = True

    def close(self) -> None:
        if self._dat is not None:
            self._dat.close()
            self._dat = None

    def walk(self, head: str):
        """The shas reachable from `head`, in `git.walk`'s order (newest commit time
        first, ties by sha, a commit never before its child). Stale on a gap."""
        rows = self.rows
        if head not in rows:
            raise Stale(head)
        queue, queued = [(-rows[head][0], head)], {head}
        pop, push = heapq.heappop, heapq.heappush
        while queue:
            _, sha = pop(queue)
            yield sha
            for parent in rows[sha][1]:
                if parent not in queued:
                    row = rows.get(parent)
                    if row is None:
                        raise Stale(parent)
                    queued.add(parent)
                    push(queue, (-row[0], parent))

    def touching(self, item_id: str) -> set[str]:
        """The commits whose changes have the key `item_id` (any branch)."""
        needle = json.dumps(item_id, ensure_ascii=False)
        found = set()
        for sha, row in self.rows.items():
            if needle in row[4]:
                try:
                    keys = json.loads(row[4])
                except ValueError:
                    raise Stale(sha) from None
                if item_id in keys:
                    found.add(sha)
        return found

    def record(self, sha: str) -> dict:
        """The commit's record from history.dat, checked to be that commit's."""
        row = self.rows.get(sha)
        if row is None or row[3] > MAX_RECORD:
            raise Stale(sha)
        try:
            if self._dat is None:
                self._dat = open(self.dat_path, "rb")
            self._dat.seek(row[2])
            rec = records.unpack(self._dat.read(row[3]), MAX_RECORD)
        except (OSError, ValueError):
            raise Stale(sha) from None
        if not isinstance(rec, dict) or rec.get("sha") != sha:
            raise Stale(sha)
        return rec

    def entry(self, sha: str) -> Entry:
        rec = self.record(sha)
        try:
            e = Entry(sha, rec["summary"], rec["body"], rec["author"], rec["time"], list(self.rows[sha][1]), rec["trailers"])
        except KeyError:
            raise Stale(sha) from None
        if not (isinstance(e.summary, str) and isinstance(e.body, str) and isinstance(e.author, str)
                and type(e.time) is int and isinstance(e.trailers, dict)):
            raise Stale(sha)
        return e

    def changes(self, sha: str, item_id: str):
        """The commit's changes to `item_id`, as ItemChange."""
        from cogit.store.history.change import ItemChange

        try:
            return [ItemChange(op, section, key, text, [tuple(f) for f in fields])
                    for op, section, key, text, fields in self.record(sha)["changes"] if key == item_id]
        except (KeyError, TypeError, ValueError):
            raise Stale(sha) from None

    def append(self, found: list[tuple[str, int, list[str], dict]]) -> None:
        """Add commits (sha, commit time, parents, record), ancestors first. The records
        go to history.dat before their lines to history.idx, under a lock, so a line
        never points at a record not yet written. Not writable: only speed is lost."""
        import fcntl

        if not found:
            return
        try:
            os.makedirs(os.path.dirname(self.idx_path), mode=0o700, exist_ok=True)
            dat = os.open(self.dat_path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                fcntl.flock(dat, fcntl.LOCK_EX)
                if not self.usable:  # a foreign, older or damaged index: start both files anew
                    os.ftruncate(dat, 0)
                    fd = os.open(self.idx_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                    try:
                        os.write(fd, HEADER.encode())
                    finally:
                        os.close(fd)
                    self.usable = True
                offset = os.fstat(dat).st_size
                blobs, lines = [], []
                for sha, ctime, parents, rec in found:
                    blob = records.pack(rec)
                    keys = json.dumps(list(dict.fromkeys(c[2] for c in rec["changes"])), ensure_ascii=False)
                    lines.append(f"{sha} {ctime} {','.join(parents) or '-'} {offset} {len(blob)} {keys}\t\n")
                    self.rows[sha] = (ctime, list(parents), offset, len(blob), keys)
                    blobs.append(blob + b"\n")
                    offset += len(blob) + 1
                _write_all(dat, b"".join(blobs))
                fd = os.open(self.idx_path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
                try:
                    size = os.fstat(fd).st_size
                    torn = size > 0 and os.pread(fd, 1, size - 1) != b"\n"  # a crash's torn line stays alone
                    _write_all(fd, ("\n" if torn else "").encode() + "".join(lines).encode("utf-8"))
                finally:
                    os.close(fd)
            finally:
                os.close(dat)  # also releases the lock
        except OSError:
            pass


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


# --------------------------------------------------------------------------- branches and recent files


def branches(home_root: str) -> dict[str, str]:
    """branch -> head of every branch, read from the ref files like dulwich does.

    Stale on anything unusual (a lock file, an odd name, a symbolic or unreadable ref):
    the full path then reads the refs through dulwich."""
    git_dir = os.path.join(home_root, "memory", ".git")
    if not os.path.isdir(git_dir):
        raise Stale("no memory repository")
    names = set()
    heads_dir = os.path.join(git_dir, "refs", "heads")
    for dirpath, _dirs, files in os.walk(heads_dir):
        rel = os.path.relpath(dirpath, heads_dir)
        for f in files:
            names.add(f if rel == "." else f"{rel}/{f}".replace(os.sep, "/"))
    try:
        with open(os.path.join(git_dir, "packed-refs"), encoding="ascii") as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2 and parts[1].startswith("refs/heads/"):
                    names.add(parts[1][len("refs/heads/"):])
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError):
        raise Stale("packed-refs") from None
    out = {}
    for name in sorted(names):
        if not _plain_branch(name):
            raise Stale(name)
        head = ref_head(home_root, name)
        if not is_sha(head):
            raise Stale(name)
        out[name] = head
    return out


def _plain_branch(name: str) -> bool:
    return (bool(name) and all(c.isascii() and (c.isalnum() or c in "-_./") for c in name)
            and not name.endswith((".lock", "/", ".")) and ".." not in name and "//" not in name
            and not name.startswith(("/", ".")) and "/." not in name)


def recent_path(cache_dir: str, branch: str) -> str:
    return os.path.join(cache_dir, "recent", branch.replace("/", "~") + ".jsonz")


def read_recent(cache_dir: str, branch: str, head: str) -> tuple[list[Entry], bool]:
    """The newest commits of `branch` and whether they are all of it, if the file
    matches `head`; else Stale."""
    try:
        with open(recent_path(cache_dir, branch), "rb") as f:
            packed = f.read(MAX_RECENT + 1)
        doc = json.loads(records.inflate(packed, MAX_RECENT))  # bounded: a small file may inflate to anything
    except (OSError, ValueError):
        raise Stale(branch) from None
    if not isinstance(doc, dict) or doc.get("format") != 1 or doc.get("branch") != branch or doc.get("head") != head:
        raise Stale(branch)
    rows, complete = doc.get("entries"), doc.get("complete")
    if not isinstance(rows, list) or type(complete) is not bool:
        raise Stale(branch)
    out = []
    for r in rows:
        if not (isinstance(r, list) and len(r) == 7 and is_sha(r[0]) and isinstance(r[1], str) and isinstance(r[2], str)
                and isinstance(r[3], str) and type(r[4]) is int and isinstance(r[5], list) and isinstance(r[6], dict)):
            raise Stale(branch)
        out.append(Entry(*r))
    if not out or out[0].sha != head:
        raise Stale(branch)
    return out, complete


def write_recent(cache_dir: str, branch: str, head: str, entries: list[Entry], complete: bool) -> None:
    """Write a branch's recent file atomically (a reader sees the old or the new one)."""
    if not _plain_branch(branch):
        return
    path = recent_path(cache_dir, branch)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        doc = {"format": 1, "branch": branch, "head": head, "complete": complete, "entries": [e.as_list() for e in entries]}
        with open(tmp, "wb") as f:
            f.write(zlib.compress(json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), 6))
        os.replace(tmp, path)
        with contextlib.suppress(OSError):
            os.unlink(path[:-1])  # the uncompressed file an earlier cogit wrote (recent/<branch>.json)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def project_label(branch: str, entries) -> str:
    """A scope's label: `global`, or the project's name as its newest commits record it
    (Cogit-Project), else its slug (cogit/store/scopes.project_name)."""
    if branch == MAIN:
        return "global"
    for n, e in enumerate(entries):
        if n >= NAME_DEPTH:
            break
        name = e.trailers.get("Cogit-Project")
        if name and name != "global":
            return name
    return branch[len(PROJECT_PREFIX):]


def _scope_branches(home_root: str) -> list[tuple[str, str | None]]:
    """(branch, head) of every scope, as cogit/store/scoped.every_scope lists them:
    main (present or not) first, then the project branches in name order."""
    heads = branches(home_root)
    return [(MAIN, heads.get(MAIN))] + [(b, h) for b, h in heads.items() if b.startswith(PROJECT_PREFIX)]


# --------------------------------------------------------------------------- the queries


def _matches(e: Entry, cutoff, event, source, session) -> bool:
    if cutoff is not None and e.time < cutoff:
        return False
    t = e.trailers
    ev = t.get("Cogit-Event", "")
    if event and not (ev == event or ev.startswith(event + ".")):
        return False
    if source and t.get("Cogit-Source") != source:
        return False
    if session and t.get("Cogit-Session") != session:
        return False
    return True


def merge_scopes(streams: list[tuple[str, str, list[Entry]]], limit: int | None) -> list[tuple[str, str, Entry]]:
    """(label, branch, entry) of several scopes' entries, newest first; a commit two
    branches share is listed once, under the first scope (cogit/store/scoped.log)."""
    merged = []
    for n, (label, branch, entries) in enumerate(streams):
        entries = sorted(entries, key=lambda e: -e.time)
        merged.append([(-e.time, n, i, label, branch, e) for i, e in enumerate(entries)])
    seen: set[str] = set()
    out = []
    for _, _, _, label, branch, entry in heapq.merge(*merged, key=lambda t: t[:3]):
        if entry.sha in seen:
            continue
        seen.add(entry.sha)
        out.append((label, branch, entry))
        if limit and len(out) >= limit:
            break
    return out


def log(home_root: str, cache: str, *, limit=None, event=None, source=None, session=None, since=None, item=None):
    """`cogit log` over every scope from the caches (`cache`: runtime/cache): (label,
    branch, entry) newest first. Stale when a cache cannot answer exactly."""
    scopes = _scope_branches(home_root)
    # (the full path reads the date once it meets a branch: an empty memory takes any)
    cutoff = parse_since(since) if since and any(head for _, head in scopes) else None
    streams = []
    if item:
        index = Index(cache)
        try:
            hits = index.touching(item)
            for branch, head in scopes:
                if head is None:
                    continue
                out = []
                for sha in index.walk(head):
                    if sha in hits:
                        e = index.entry(sha)
                        if _matches(e, cutoff, event, source, session):
                            out.append(e)
                            if limit and len(out) >= limit:
                                break
                streams.append((_label_from_index(index, branch, head), branch, out))
        finally:
            index.close()
        return merge_scopes(streams, limit)
    for branch, head in scopes:
        if head is None:
            continue
        try:
            entries, complete = read_recent(cache, branch, head)
        except Stale:
            if not event:
                raise
            entries, complete = [], False  # the newest commits are not cached: git reads them
        match = lambda e: _matches(e, cutoff, event, source, session)  # noqa: E731
        if event and not complete and not (limit and sum(1 for e in entries if match(e)) >= limit):
            from cogit.store.history import gitlog  # a rare or absent event needs every commit: git reads them
            git_dir = os.path.join(home_root, "memory", ".git")
            out = gitlog.matching(git_dir, head, event, limit, match, Entry)
            if branch != MAIN and len(entries) < NAME_DEPTH:  # (its label is in its newest commits)
                entries = gitlog.newest(git_dir, head, NAME_DEPTH, Entry)
            if out is None or entries is None:
                raise Stale(branch)
            streams.append((project_label(branch, entries), branch, out))
            continue
        out = []
        for e in entries:
            if _matches(e, cutoff, event, source, session):
                out.append(e)
                if limit and len(out) >= limit:
                    break
        else:
            if not complete:
                raise Stale(branch)  # the answer may lie past the newest commits kept
        if branch != MAIN and not complete and len(entries) < NAME_DEPTH:
            raise Stale(branch)
        streams.append((project_label(branch, entries), branch, out))
    return merge_scopes(streams, limit)


def why(home_root: str, cache: str, item_id: str):
    """`cogit why` over every scope from the index (`cache`: runtime/cache): (label,
    entry, changes). Stale when the index does not hold every branch head."""
    scopes = _scope_branches(home_root)
    index = Index(cache)
    try:
        hits = index.touching(item_id)
        found = []
        for branch, head in scopes:
            if head is None:
                continue
            label = None
            for sha in index.walk(head):
                if sha in hits:
                    changes = index.changes(sha, item_id)
                    if changes:
                        if label is None:
                            label = _label_from_index(index, branch, head)
                        found.append((label, index.entry(sha), changes))
        return found
    finally:
        index.close()


def _label_from_index(index: Index, branch: str, head: str) -> str:
    if branch == MAIN:
        return "global"

    def newest():
        for sha in index.walk(head):
            yield index.entry(sha)

    return project_label(branch, newest())
