"""Which commits `cogit report` holds: the newest `max_commits` of every scope, in the page's
order, and the sessions each rule was shown in (read from every commit's trailers).

Two ways, one answer (tests/test_report_commits.py compares them on real histories):

* `walked`: dulwich walks every branch and holds every commit with its message (the way it
  was; at 100,000 commits 290 MB and 16-19 s of CPU, no cache at all). The fallback.
* `through_git`: the trusted `git` binary lists the graph once (`rev-list --format='%H %ct
  %at %P'`, kept here as arrays of numbers: some 15 MB at 100,000 commits), the order is
  rebuilt from it exactly (`git.walk`'s order per branch for the ties, then `newest_first`),
  and only the shown commits are read, through dulwich as before. The sessions shown each
  rule: every commit streamed once through `cat-file --batch`, and only those whose bytes
  hold `Cogit-Shown: ` read by the same `shown_sessions`.

Anything odd from git (absent, failed, a line that does not parse, a parent it never
listed, an object over the bound) returns None and the report walks as it did.
"""

from __future__ import annotations

import heapq
import re
import subprocess
from array import array
from collections.abc import Sequence
from dataclasses import dataclass

from cogit import report_story as story_of
from cogit.store.git import plumbing
from cogit.store.git import repo as git

MAX_MESSAGE = 1 << 20  # bytes of one commit whose trailers are read (cogit writes a few KB)
_LINE = re.compile(rb"([0-9a-f]{40}) ([0-9]{1,12}) ([0-9]{1,12}) ((?:[0-9a-f]{40}(?: [0-9a-f]{40}){0,63})?)\n")
_MAX_LINE = 4096  # bytes of one graph line (64 parents take 2,624); a longer one does not parse
_SHOWN = b"\nCogit-Shown: "  # what shown_sessions looks for first


@dataclass
class Listing:
    shown: list  # CommitInfo, newest first: the first `max_commits` of the period
    scope_of: dict  # sha of a shown commit -> the names of the scopes that reach it, in scope order
    total: int  # commits of every scope
    in_range: int  # of them, at or after the cutoff
    shown_at: dict  # rule id -> {session: first time shown}, story_of.shown_sessions over every commit


def read(repo, git_dir: str, scopes, cutoff, max_commits: int, *, use_git: bool = True) -> Listing:
    found = through_git(repo, git_dir, scopes, cutoff, max_commits) if use_git else None
    return found if found is not None else walked(repo, scopes, cutoff, max_commits)


def walked(repo, scopes, cutoff, max_commits: int) -> Listing:
    """Every commit of every scope, once (a sha reachable from two branches lists both)."""
    infos: dict = {}
    scope_of: dict[str, list[str]] = {}
    rank: dict[str, int] = {}  # position in its branch's walk: breaks ties of one second
    for branch, name in scopes:
        for n, info in enumerate(git.walk(repo, git.head(repo, branch))):
            infos.setdefault(info.sha, info)
            rank.setdefault(info.sha, n)
            scope_of.setdefault(info.sha, []).append(name)
    ordered = newest_first(infos, rank)
    in_range = [i for i in ordered if cutoff is None or i.time >= cutoff]
    shown = in_range[:max_commits]
    return Listing(shown, {i.sha: scope_of[i.sha] for i in shown}, len(ordered), len(in_range),
                   story_of.shown_sessions(infos.values()))


def newest_first(infos: dict, rank: dict[str, int]) -> list:
    """Newest first, and never a parent before its child (commits in one second are common:
    a session's fold writes several), whatever the clocks of the machines said."""
    children = dict.fromkeys(infos, 0)
    for info in infos.values():
        for p in info.parents:
            if p in children:
                children[p] += 1
    heap = [(-i.time, rank[i.sha], i.sha) for i in infos.values() if children[i.sha] == 0]
    heapq.heapify(heap)
    out = []
    while heap:
        sha = heapq.heappop(heap)[2]
        out.append(infos[sha])
        for p in infos[sha].parents:
            if p in children:
                children[p] -= 1
                if children[p] == 0:
                    heapq.heappush(heap, (-infos[p].time, rank[p], p))
    return out


class _Graph:
    """The commits of some heads as numbers: commit i's raw sha keys[i], commit and author
    time, parents. A raw sha orders as its hex does, so ties break as in `walked`."""

    def __init__(self):
        self.index: dict[bytes, int] = {}
        self.keys: list[bytes] = []
        self.ctime, self.atime = array("q"), array("q")
        self.first = array("l")  # first parent, -1: none
        self.more: dict[int, tuple[int, ...]] = {}  # the other parents of a merge
        self.listed = bytearray()  # 1: git listed the commit itself, not only as a parent

    def id(self, hexsha: bytes) -> int:
        key = bytes.fromhex(hexsha.decode())
        i = self.index.get(key)
        if i is None:
            i = self.index[key] = len(self.keys)
            self.keys.append(key)
            self.ctime.append(0), self.atime.append(0), self.first.append(-1)
            self.listed.append(0)
        return i

    def add(self, m) -> None:
        i = self.id(m[1])
        if self.listed[i]:
            raise ValueError("listed twice")
        self.listed[i] = 1
        self.ctime[i], self.atime[i] = int(m[2]), int(m[3])
        parents = [self.id(p) for p in m[4].split()]
        if parents:
            self.first[i] = parents[0]
            if len(parents) > 1:
                self.more[i] = tuple(parents[1:])

    def parents(self, i: int):
        p = self.first[i]
        if p < 0:
            return ()
        more = self.more.get(i)
        return (p, *more) if more else (p,)


def _graph(base: list[str], heads: list[str]) -> _Graph | None:
    proc = subprocess.Popen([*base, "rev-list", "--no-commit-header", "--format=%H %ct %at %P", *heads],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, cwd="/",
                            env=plumbing.env())
    g = _Graph()
    try:
        while line := proc.stdout.readline(_MAX_LINE):
            m = _LINE.fullmatch(line)
            if m is None:
                return None
            g.add(m)
    except ValueError:
        return None
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stdout.close()
    if proc.returncode != 0 or not all(g.listed):
        return None
    return g


class _Said:
    __slots__ = ("time", "message")

    def __init__(self, time: int, message: str):
        self.time, self.message = time, message


def through_git(repo, git_dir: str, scopes, cutoff, max_commits: int) -> Listing | None:
    heads = [h for h in (git.head(repo, b) for b, _ in scopes) if h]
    if not heads:
        return Listing([], {}, 0, 0, {})
    if not all(plumbing.is_sha(h.encode()) for h in heads):
        return None
    try:
        g = _graph([*plumbing.base(git_dir), "--no-replace-objects"], heads)
    except (OSError, subprocess.SubprocessError, plumbing.Unavailable):
        return None
    if g is None:
        return None
    n = len(g.keys)
    # Each branch walked in git.walk's order (newest commit time first, ties by sha), as `walked` does.
    rank, reach, seen_order = array("l", [-1]) * n, [], array("l")
    for head in [git.head(repo, b) for b, _ in scopes]:
        mark = bytearray(n)
        reach.append(mark)
        if not head:
            continue
        h = g.index.get(bytes.fromhex(head))
        if h is None:
            return None
        heap, mark[h], pos = [(-g.ctime[h], g.keys[h], h)], 1, 0
        while heap:
            i = heapq.heappop(heap)[2]
            if rank[i] < 0:
                rank[i] = pos
                seen_order.append(i)
            pos += 1
            for p in g.parents(i):
                if not mark[p]:
                    mark[p] = 1
                    heapq.heappush(heap, (-g.ctime[p], g.keys[p], p))
    if len(seen_order) != n:
        return None
    shown_ids, in_range = _ordered(g, rank, cutoff, max_commits)
    shown = [git.info(repo, g.keys[i].hex()) for i in shown_ids]
    scope_of = {info.sha: [name for (_, name), mark in zip(scopes, reach) if mark[i]] for info, i in zip(shown, shown_ids)}
    try:
        shown_at = story_of.shown_sessions(_messages(repo, git_dir, g, seen_order))
    except (plumbing.Unavailable, plumbing.TooBig):
        return None
    return Listing(shown, scope_of, n, in_range, shown_at)


def _ordered(g: _Graph, rank, cutoff, max_commits: int) -> tuple[list[int], int]:
    """`newest_first` over the graph, stopped once the first `max_commits` of the period are out."""
    children = array("l", [0]) * len(g.keys)
    for i in range(len(g.keys)):
        for p in g.parents(i):
            children[p] += 1
    heap = [(-g.atime[i], rank[i], g.keys[i], i) for i in range(len(g.keys)) if children[i] == 0]
    heapq.heapify(heap)
    out = []
    while heap and len(out) < max_commits:
        i = heapq.heappop(heap)[3]
        if cutoff is None or g.atime[i] >= cutoff:
            out.append(i)
        for p in g.parents(i):
            children[p] -= 1
            if children[p] == 0:
                heapq.heappush(heap, (-g.atime[p], rank[p], g.keys[p], p))
    in_range = len(g.keys) if cutoff is None else sum(1 for t in g.atime if t >= cutoff)
    return out, in_range


class _Shas(Sequence):
    """The hex shas of `ids`, made as plumbing.objects asks for them (100,000 held at once
    would be 9 MB)."""

    def __init__(self, g: _Graph, ids):
        self.g, self.ids = g, ids

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self.g.keys[i].hex() for i in self.ids[k]]
        return self.g.keys[self.ids[k]].hex()


def _messages(repo, git_dir: str, g: _Graph, ids):
    """The author time and message, as git.info reads them, of each of `ids` whose message
    may hold `Cogit-Shown: ` (shown_sessions reads only those), one at a time: every commit
    streamed by cat-file and tested as raw bytes (an ASCII byte survives the decoding with
    replacement, so the test is the same), never all held. A commit in a layout parse_commit
    does not vouch for is read by dulwich. Raises Unavailable or TooBig: the caller walks.
    Not `rev-list --grep`: git keeps every commit that does not match in memory (104 MB at
    100,000 commits), and it greps a message converted from its declared encoding."""
    for (sha, kind, raw), i in zip(plumbing.objects(git_dir, _Shas(g, ids), MAX_MESSAGE), ids):
        if _SHOWN not in raw:
            continue
        parsed = plumbing.parse_commit(raw) if kind == "commit" else None
        if parsed is None:
            info = git.info(repo, sha)
            yield _Said(info.time, info.message)
        else:
            yield _Said(g.atime[i], parsed[4].decode("utf-8", "replace"))
