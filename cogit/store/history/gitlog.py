"""History read through the trusted `git` binary, where git's C walk is the cheap way.

`log --event E` for an event that is rare (or gone) must read every commit: the recent
files hold only the newest, and dulwich parses each commit in pure Python (16-19x
`git log --grep` at 10k commits, issue 25). Here git does the reading:

* `git rev-list --merges --max-count=1 HEAD`: whether the history has a merge (a synced
  one has recent ones, found at once); without, rev-list's order is the only order;
* with one, `git rev-list --timestamp --parents HEAD`: the graph (commit time, parents),
  from which the walk order of `git.walk` (newest commit time first, ties by sha, a commit
  never before its child) is rebuilt exactly;
* `git rev-list -F --grep='Cogit-Event: E' HEAD`, run at the same time: the commits whose
  message holds that text anywhere, a superset of those whose trailer is E or E.* (a
  trailer line is `Cogit-Event: VALUE`, provenance._TRAILER);
* `git cat-file --batch`: those commits' raw objects, parsed here as dulwich would
  (author line, author time, message decoded as UTF-8 with replacement), and the
  filters applied to the parsed trailers, exactly as the full path does.

Standard library only (the CLI's fast path calls it before any dulwich import). git runs
with an explicit --git-dir, cwd `/`, no GIT_* variable of the caller, no system or
global config, from the trusted PATH (cogit/programs.py). Anything odd (no git, a git
that fails, output that does not parse) returns None and the caller takes its usual
path: this is a shortcut, never the only way.
"""

from __future__ import annotations

import heapq
import os
import subprocess
import sys

TIMEOUT = 120  # seconds for one git process (a 100k-commit history takes well under 2)
_HEX = frozenset("0123456789abcdef")


def _env() -> dict:
    from cogit.store.git.plumbing import env  # the one clean environment for the git binary

    return env()


def _git() -> str | None:
    from cogit.store.git.plumbing import binary

    return binary()


def command(git_dir: str) -> list[str] | None:
    """The start of every git command line here (no hooks), or None when no trusted git
    is on PATH."""
    binary = _git()
    if binary is None:
        return None
    return [binary, "--git-dir", git_dir, "-c", "core.hooksPath=" + os.devnull]


def _sha(text: str) -> bool:
    return len(text) == 40 and _HEX.issuperset(text)


def event_commits(git_dir: str, head: str, event: str):
    """Raw commits reachable from `head`, in `git.walk`'s order, whose message holds
    `Cogit-Event: <event>`: a list of (sha, parents, author, author time, message), or
    None when git cannot answer (the caller walks the history itself)."""
    base = command(git_dir)
    if base is None or not _sha(head) or not event or any(c in event for c in "\n\r\x00"):
        return None
    env = _env()
    import threading

    found: list = []

    def grep_commits():  # in a thread, read as it comes: the walks run at once, none stalls on a full pipe
        try:
            found.append(subprocess.run([*base, "rev-list", "-F", f"--grep=Cogit-Event: {event}", head],
                                        capture_output=True, stdin=subprocess.DEVNULL, cwd="/", env=env, timeout=TIMEOUT))
        except (OSError, subprocess.SubprocessError):
            pass

    grepper = threading.Thread(target=grep_commits, daemon=True)
    try:
        with streamed(base, env, ("rev-list", "--merges", "--max-count=1", head)) as merges:
            grepper.start()
            merge = merges.stdout.read()
            ok = finish(merges)
        out = None
        if ok and merge.strip():  # a merge (found at once in a synced history): the order needs the graph
            with streamed(base, env, ("rev-list", "--timestamp", "--parents", head)) as graph:
                out = graph.stdout.read()
                ok = finish(graph)
        grepper.join(TIMEOUT)
    except (OSError, subprocess.SubprocessError):
        return None
    if not ok or not found or found[0].returncode != 0:
        return None
    try:
        listed = found[0].stdout.decode("ascii").split()
        if not all(_sha(sha) for sha in listed):
            return None
        # one chain (no merge at all): rev-list's order is the only order, and `re` is not imported
        order = _walk_order(out.decode("ascii"), head, set(listed)) if out is not None else listed
    except (UnicodeDecodeError, ValueError):
        return None
    if order is None:
        return None
    if not order:
        return []
    raw = _cat(base, env, order)
    if raw is None:
        return None
    return [raw[sha] for sha in order]


_LINES = None  # compiled on first use: `re` stays off the import path of the fast CLI commands


def _patterns():
    global _LINES
    import re

    if _LINES is None:
        # possessive (`*+`): a plain `*` keeps a backtracking mark per line, 53 MB for 100,000 lines
        _LINES = (re.compile(r"(?:[0-9]+(?: [0-9a-f]{40}){1,64}\n)*+"), re.compile(r"^[0-9]+ [0-9a-f]{40} [0-9a-f]{40} ", re.M),
                  re.compile(r"^[0-9]+ ([0-9a-f]{40})", re.M), re.compile(r"([0-9]+) ([0-9a-f]{40})([^\n]*)\n"))
    return _LINES


def _walk_order(text: str, head: str, hits: set[str]) -> list[str] | None:
    """The shas of `hits` in `git.walk`'s order, from rev-list's `time sha parents` lines
    (checked whole by one regular expression: a line that does not parse refuses all).
    Only the hits are kept of a chain; a graph with merges is held as arrays of indices
    (a 100,000-commit graph in some 15 MB, not 40 as tuples and lists)."""
    from array import array

    shape, merge, first, row = _patterns()
    if not shape.fullmatch(text):
        return None
    if merge.search(text) is None:  # one chain: rev-list's order is the only order
        found, top = [], None
        for match in first.finditer(text):
            sha = match.group(1)
            if top is None:
                top = sha
            if sha in hits:
                found.append(sha)
        if top != head or len(found) != len(hits):
            return None
        return found
    index: dict[str, int] = {}
    names: list[str] = []
    times = array("q")
    for match in row.finditer(text):
        sha = match.group(2)
        index[sha] = len(names)
        names.append(sha)
        times.append(int(match.group(1)))
    starts, flat = array("l", [0]), array("l")
    for match in row.finditer(text):
        for parent in match.group(3).split():
            at = index.get(parent)
            if at is None:
                return None
            flat.append(at)
        starts.append(len(flat))
    top = index.get(head)
    if top is None or not all(h in index for h in hits):
        return None
    order = []
    queued = bytearray(len(names))
    queue, queued[top] = [(-times[top], head, top)], 1
    while queue:
        _, sha, at = heapq.heappop(queue)
        if sha in hits:
            order.append(sha)
        for n in range(starts[at], starts[at + 1]):
            parent = flat[n]
            if not queued[parent]:
                queued[parent] = 1
                heapq.heappush(queue, (-times[parent], names[parent], parent))
    return order


# `git log --raw` of every commit reachable from a head, each against its first parent
# (what `commit_changes` diffs): a header line `\x01time sha parents`, then its changed files.
RAW_LOG = ("log", "--no-color", "--format=%x01%ct %H %P", "--raw", "--no-abbrev", "--no-renames",
           "--diff-merges=first-parent")
# git maps its packs in windows that count in its resident memory: `git log --raw` through
# every tree of a 100,000-commit history maps most of its 80 MB pack and peaked at 102 MB;
# small windows, unmapped as it moves on, keep it at 46 MB for some 10% more time. (Not for
# cat-file: reading blobs of deltas all over the pack, small windows made it 3.6x slower.)
_SMALL_WINDOWS = ("-c", "core.packedGitLimit=16m", "-c", "core.packedGitWindowSize=1m")


def raw_log(base: list[str], env: dict, head: str) -> "streamed":
    """RAW_LOG of `head`, streamed, in small pack windows."""
    return streamed([*base, *_SMALL_WINDOWS], env, (*RAW_LOG, head))
_ZERO = b"0" * 40


class streamed:
    """`with streamed(base, env, args) as proc:` one git process whose stdout is read as it
    comes; killed if still running and always reaped on the way out. After reading,
    `finish(proc)` is True when git ended well."""

    def __init__(self, base: list[str], env: dict, args, stdin=subprocess.DEVNULL):
        self.proc = subprocess.Popen([*base, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=stdin,
                                     cwd="/", env=env)

    def __enter__(self):
        return self.proc

    def __exit__(self, *exc):
        proc = self.proc
        if proc.stdin is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stdout.close()
        return False


def finish(proc) -> bool:
    try:
        return proc.wait(timeout=TIMEOUT) == 0
    except subprocess.SubprocessError:
        return False


def raw_commits(stream, files: dict, order: bytearray):
    """Read RAW_LOG's output: yield (sha, is_root, [(section, old, new)]) per commit, the
    blob ids as str (None for git's zero id, a file added or deleted), only for the paths
    in `files` (bytes path -> section); rev-list's `time sha parents` line of every commit
    is appended to `order` (bytes: a 100,000-commit history in 9 MB). A line that does
    not parse raises ValueError."""
    intern = sys.intern
    sha, root, pairs = None, False, []
    for line in stream:
        if line[:1] == b"\x01":
            if sha is not None:
                yield sha, root, pairs
            head = line[1:].rstrip()  # a root's `%P` leaves a space
            parts = head.split(b" ")
            if len(parts) < 2 or len(parts[1]) != 40:
                raise ValueError("a commit line git log should not print")
            order += head
            order += b"\n"
            sha, root, pairs = parts[1].decode("ascii"), len(parts) == 2, []
            continue
        if line[:1] != b":" or sha is None:
            continue
        meta, _, path = line.rstrip(b"\n").partition(b"\t")
        section = files.get(path)
        if section is None:
            continue
        fields = meta.split()
        if len(fields) != 5:
            raise ValueError("a raw line git log should not print")
        old, new = fields[2], fields[3]
        pairs.append((section, None if old == _ZERO else intern(old.decode("ascii")),
                      None if new == _ZERO else intern(new.decode("ascii"))))
    if sha is not None:
        yield sha, root, pairs


def _cat(base: list[str], env: dict, shas: list[str]) -> dict | None:
    """sha -> (sha, parents, author, author time, message) read by `git cat-file --batch`."""
    try:
        proc = subprocess.run([*base, "cat-file", "--batch"], input="".join(s + "\n" for s in shas).encode(),
                              capture_output=True, cwd="/", env=env, timeout=TIMEOUT)
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    data, pos, out = proc.stdout, 0, {}
    for sha in shas:
        nl = data.find(b"\n", pos)
        head = data[pos:nl].split(b" ") if nl >= 0 else []
        if len(head) != 3 or head[0].decode("ascii", "replace") != sha or head[1] != b"commit" or not head[2].isdigit():
            return None
        start = nl + 1
        end = start + int(head[2])
        if data[end:end + 1] != b"\n":
            return None
        parsed = _parse_commit(sha, data[start:end])
        if parsed is None:
            return None
        out[sha] = parsed
        pos = end + 1
    return out


def _parse_commit(sha: str, raw: bytes):
    """A commit object's parents, author line, author time and message, as dulwich reads
    them (headers until the first empty line, continuation lines start with a space)."""
    headers, sep, message = raw.partition(b"\n\n")
    if not sep and not raw.endswith(b"\n"):
        message = b""
    parents, author, when = [], None, None
    for line in headers.split(b"\n"):
        if line.startswith(b" "):
            continue
        key, _, value = line.partition(b" ")
        if key == b"parent":
            parents.append(value.decode("ascii", "replace"))
        elif key == b"author" and author is None:
            name, gt, rest = value.rpartition(b">")
            fields = rest.split()
            if not gt or len(fields) != 2 or not fields[0].lstrip(b"-").isdigit():
                return None
            author, when = (name + gt).decode("utf-8", "replace"), int(fields[0])
    if author is None:
        return None
    return sha, parents, author, when, message.decode("utf-8", "replace")


def newest_commits(git_dir: str, head: str, count: int):
    """The newest `count` commits of `head` as event_commits gives them, or None (also
    when they hold a merge: then rev-list's order need not be `git.walk`'s)."""
    base = command(git_dir)
    if base is None or not _sha(head):
        return None
    env = _env()
    try:
        proc = subprocess.run([*base, "rev-list", "--parents", f"--max-count={int(count)}", head], capture_output=True,
                              stdin=subprocess.DEVNULL, cwd="/", env=env, timeout=TIMEOUT)
        lines = proc.stdout.decode("ascii").splitlines()
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
        return None
    rows = [line.split(" ") for line in lines]
    if proc.returncode != 0 or not rows or any(len(r) > 2 or not all(_sha(p) for p in r) for r in rows):
        return None
    raw = _cat(base, env, [r[0] for r in rows])
    return None if raw is None else [raw[r[0]] for r in rows]



# --------------------------------------------------------------------------- as entries (index.log, log.log)


def matching(git_dir: str, head: str, event: str, limit, match, make):
    """The entries (`make`: index.Entry) of `log --event E` on one branch that pass
    `match`, newest first, at most `limit`; None when git cannot answer."""
    found = event_commits(git_dir, head, event)
    if found is None:
        return None
    out = []
    for raw in found:
        e = raw_entry(raw, make)
        if match(e):
            out.append(e)
            if limit and len(out) >= limit:
                break
    return out


def newest(git_dir: str, head: str, count: int, make):
    found = newest_commits(git_dir, head, count)
    return None if found is None else [raw_entry(raw, make) for raw in found]


def raw_entry(raw, make):
    """An Entry (`make`: its class) of a commit as event_commits gives it."""
    from cogit.store.git.provenance import parse

    sha, parents, author, when, message = raw
    summary, body, trailers = parse(message)
    return make(sha, summary, body, author, when, list(parents), trailers)
