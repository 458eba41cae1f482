"""The commit graph of the memory repository: commits parsed once per open repository,
merge bases, ancestry and the commits new since a point, through dulwich.

Split from cogit/store/git/repo.py (which re-exports these names: callers use `git.commits`,
`git.is_ancestor`, ...): pulls and merges walk the graph; a plain write never does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogit.errors import InvalidState

from .object_sizes import object_header
from .shape import MAX_COMMIT_BYTES

if TYPE_CHECKING:
    from dulwich.objects import Commit
    from dulwich.repo import Repo


class _Commits:
    """The commits of one open repository, each parsed once however many walks read it.

    A pull walks the same new commits to validate them, to count them, to test ancestry
    and to find the merge base; commits never change, so one parse serves all of them
    for the life of the Repo object. Looks like an object store to dulwich's walkers."""

    LIMIT = 50_000  # about 25 MB of parsed commits

    def __init__(self, repo: Repo):
        self.store = repo.object_store
        self.cache: dict[bytes, Commit] = {}

    def __getitem__(self, sha: bytes):
        found = self.cache.get(sha)
        if found is None:
            found = self.store[sha]
            from dulwich.objects import Commit

            if not isinstance(found, Commit):
                return found
            if len(self.cache) >= self.LIMIT:
                self.cache.clear()
            self.cache[sha] = found
        return found

    def parents(self, sha: bytes) -> list[bytes]:
        return self[sha].parents

    def stamp(self, sha: bytes) -> int:
        return self[sha].commit_time


def commits(repo: Repo) -> _Commits:
    cached = getattr(repo, "_cogit_commits", None)
    if cached is None:
        cached = repo._cogit_commits = _Commits(repo)
    return cached


def _lcas(repo: Repo, a: bytes, b: bytes) -> list[bytes]:
    """The merge bases of a and b: dulwich's find_merge_base, reading commits through the cache."""
    if a == b:
        return [a]
    try:
        from dulwich.graph import _find_lcas
    except ImportError:  # a dulwich without it: the public function, without the cache
        from dulwich.graph import find_merge_base

        return find_merge_base(repo, [a, b])
    graph = commits(repo)
    return _find_lcas(graph.parents, a, [b], graph.stamp)


def merge_bases(repo: Repo, a: str, b: str) -> list[str]:
    return [s.decode() for s in _lcas(repo, a.encode(), b.encode())]


def is_ancestor(repo: Repo, ancestor: str, descendant: str) -> bool:
    """Does `descendant` contain `ancestor` (so moving from one to the other loses nothing)?

    Not dulwich's can_fast_forward: it stops at commits older than `ancestor`, and
    clocks of two machines disagree, so a child can be "older" than its parent.
    """
    return ancestor == descendant or ancestor.encode() in _lcas(repo, ancestor.encode(), descendant.encode())


class _MeasuredCommits:
    """commits(repo) for a walk of pulled history: each commit not yet parsed is measured
    from its header first, so a crafted 256 MiB commit message is refused unread."""

    def __init__(self, repo: Repo):
        self.repo, self.commits = repo, commits(repo)

    def __getitem__(self, sha: bytes):
        if sha not in self.commits.cache:
            kind, size = object_header(self.repo, sha)
            if size > MAX_COMMIT_BYTES:
                raise ValueError(f"commit {sha.decode()[:10]} is {size} bytes, over the {MAX_COMMIT_BYTES}-byte limit")
        return self.commits[sha]


def new_commits(repo: Repo, tip: str, exclude: list[str], measured: bool = False) -> list[str]:
    """Commits reachable from `tip` but from none of `exclude`, newest first. `measured`:
    pulled history, whose commits are measured before they are read (_MeasuredCommits)."""
    from dulwich.walk import Walker

    try:
        store = _MeasuredCommits(repo) if measured else commits(repo)
        walker = Walker(store, include=[tip.encode()], exclude=[e.encode() for e in exclude if e])
        return [entry.commit.id.decode() for entry in walker]
    except (TypeError, ValueError, AttributeError, KeyError) as e:
        # A pulled commit dulwich parses into something without dates or parents it can
        # read (git's fsck would have refused it): refused like any other bad pulled object.
        raise InvalidState(f"a commit reachable from {tip[:10]} cannot be read ({type(e).__name__}: {e})",
                           hint="Local memory is unchanged. The remote holds a malformed commit (a crafted or "
                                "damaged repository?); `git fsck` in it names the object.") from None
