"""Reading history: log with provenance filters, semantic diffs, `why`, and the item index
kept up to date (revert, which writes, is history/revert.py)."""

from __future__ import annotations

import heapq
import json
from dataclasses import dataclass

from cogit.paths import Home
from cogit.store.git import repo as git
from cogit.store.state import yamlio
from cogit.store.history import gitlog
from cogit.store.history import index as hx
from cogit.store.history.diff import ItemChange, diff_states
from cogit.store.history.index import Entry, parse_since  # noqa: F401 - re-exported
from cogit.store.git.repo import open_existing
from cogit.store.git.provenance import parse
from cogit.store.state import loader
from cogit.store.state.documents import default_doc, section_of_file
from cogit.store.write.transact import load_state


def _entry(info: git.CommitInfo) -> Entry:
    summary, body, trailers = parse(info.message)
    return Entry(info.sha, summary, body, info.author, info.time, list(info.parents), trailers)


def commit_changes(repo, sha: str, parent: str | None = None, only_id: str | None = None) -> list[ItemChange]:
    """Semantic changes a commit made against its first parent (or `parent`).

    Only the files whose blob differs between the two trees are read and diffed: the
    other sections cannot hold a change (same blob, same document)."""
    if parent is None:
        parents = git.info(repo, sha).parents
        parent = parents[0] if parents else None
    new_blobs = git.blob_ids(repo, sha)
    if parent is None:  # the root commit: everything in it is new
        before, after = {}, yamlio.plain(dict(loader.load_plain(repo, sha, new_blobs)))
    else:
        old_blobs = git.blob_ids(repo, parent)
        names = [n for n in sorted(set(old_blobs) | set(new_blobs))
                 if old_blobs.get(n) != new_blobs.get(n) and section_of_file(n) is not None]
        if only_id is not None:
            # Cheap pre-check: only commits whose changed files mention the id are parsed
            # (or could spell it otherwise: a YAML escape like "l-\x61bc", or UTF-16).
            token = only_id.encode()
            if not any(_may_hold(git.blob(repo, b[n]), token) for n in names for b in (old_blobs, new_blobs) if n in b):
                return []
        if not names:
            return []
        before = {section_of_file(n): _doc(repo, n, old_blobs) for n in names}
        after = {section_of_file(n): _doc(repo, n, new_blobs) for n in names}
    changes = diff_states(before, after)
    if only_id is not None:
        changes = [c for c in changes if c.key == only_id]
    return changes


def _may_hold(data: bytes, token: bytes) -> bool:
    return token in data or b"\\" in data or b"\x00" in data


_DOCS: dict[str, dict] = {}  # blob id -> plain document, for the diffs of one walk
_DOCS_LIMIT = 256


def _doc(repo, name: str, blobs: dict[str, str]) -> dict:
    """A section's plain document in a commit. Files cogit wrote (the canonical layout)
    are read by `canonical_reader`, several times faster than ruamel.yaml; the rest go
    through the validated, cached `loader.parse_blob`. Consecutive commits share blobs."""
    section = section_of_file(name)
    if name not in blobs:
        return yamlio.plain(default_doc(section))
    blob_id = blobs[name]
    doc = _DOCS.get(blob_id)
    if doc is None:
        doc = loader.read_only(repo, section, blob_id)
        if len(_DOCS) >= _DOCS_LIMIT:
            _DOCS.clear()
        _DOCS[blob_id] = doc
    return doc


APPEND_BATCH = 500  # records held before they go to history.dat (any prefix of the ancestors-first order is complete)


@dataclass
class _Node:
    sha: str
    parents: list[str]
    time: int


def _oldest_missing(git_dir: str, head: str, rows, count: int) -> list[_Node] | None:
    """The oldest `count` commits reachable from `head` that `rows` does not hold, parents
    before children, from one `git rev-list --reverse --topo-order` (a prefix of that order
    holds every ancestor of each of its commits); None when git cannot answer."""
    base = gitlog.command(git_dir) if gitlog._sha(head) else None
    if base is None:
        return None
    out = []
    try:
        with gitlog.streamed(base, gitlog._env(), ("rev-list", "--reverse", "--topo-order", "--timestamp",
                                                    "--parents", head)) as proc:
            for line in proc.stdout:
                parts = line.decode("ascii").split()
                if len(parts) < 2 or not parts[0].isdigit() or not all(gitlog._sha(p) for p in parts[1:]):
                    return None
                if parts[1] not in rows:
                    out.append(_Node(parts[1], parts[2:], int(parts[0])))
                    if len(out) >= count:
                        break
            else:
                if not gitlog.finish(proc):
                    return None
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return out


class ItemIndex:
    """The item index (cogit/store/history/index.py) kept up to date through dulwich, so
    `why ID` and `log --item ID` need not diff every commit of a long history again.

    A commit never changes, so its line never goes stale: whatever moved a branch (a
    write, a revert, a pull or merge, a hand edit committed) only adds commits, and
    commits not yet in the index are added (ancestors first) the first time a query
    meets them. Which commits a branch holds, and their order, come from walking the
    parents in the index exactly as `git.walk` walks the object store (newest commit
    time first, ties by sha), so the answers are those of the full walk. A torn or
    foreign line is ignored and that commit indexed again; an unreadable record is
    answered from the commit itself: the files are a cache, never a source of truth.
    """

    def __init__(self, home: Home, repo):
        self.repo = repo
        self.git_dir = str(home.memory / ".git")
        self.index = hx.Index(str(home.runtime / "cache"))
        self.rows = self.index.rows
        self.unreadable: set[str] = set()  # commits whose record could not be read: indexed again on close
        self.added = 0  # commits indexed through this object

    def close(self) -> None:
        self.index.close()
        redo = [sha for sha in self.unreadable if sha in self.rows]
        if redo:  # a later line for the same commit wins when the index is read
            self.index.append([self._row(_Node(sha, self.rows[sha][1], self.rows[sha][0])) for sha in redo])

    def missing(self, head: str, limit: int | None = None) -> list[_Node] | None:
        """The commits reachable from `head` that are not indexed yet, or None when there
        are more than `limit` (found by walking back to indexed commits: the index holds
        every ancestor of a commit it holds)."""
        missing, todo, seen = [], [head], set()
        while todo:
            sha = todo.pop()
            if sha in self.rows or sha in seen:
                continue
            if limit is not None and len(missing) >= limit:
                return None
            seen.add(sha)
            c = self.repo[sha.encode()]
            info = _Node(sha, [p.decode() for p in c.parents], c.commit_time)
            missing.append(info)
            todo.extend(info.parents)
        return missing

    def ensure(self, head: str, budget: int | None = None) -> bool:
        """Index every commit reachable from `head` that is not indexed yet; with a
        `budget`, at most that many, the oldest first (read through git: `git rev-list
        --reverse --topo-order`), so a fresh clone of a long history is indexed over a
        few session ends in bounded time and memory. True when `head` is indexed."""
        missing = self.missing(head, budget)
        if missing is None:
            missing = _oldest_missing(self.git_dir, head, self.rows, budget)
            if missing is None:  # no git: the whole gap, as before
                missing = self.missing(head)
        if not missing:
            return head in self.rows
        by_sha = {i.sha: i for i in missing}
        found, done = [], set()
        for info in missing:  # ancestors first: any prefix of what is written is complete
            stack = [(info, False)]
            while stack:
                node, expanded = stack.pop()
                if node.sha in done:
                    continue
                if not expanded:
                    stack.append((node, True))
                    stack.extend((by_sha[p], False) for p in node.parents if p in by_sha and p not in done)
                    continue
                done.add(node.sha)
                found.append(self._row(node))
                self.added += 1
                if len(found) >= APPEND_BATCH:  # bounded memory: a record is written, then forgotten
                    self.index.append(found)
                    found = []
        self.index.append(found)
        return head in self.rows

    def behind(self, head: str, limit: int) -> bool:
        """More than `limit` commits reachable from `head` are not indexed."""
        return self.missing(head, limit) is None

    def _row(self, node: _Node) -> tuple:
        """What the index keeps of a commit: its place in the graph and its record."""
        e = _entry(git.info(self.repo, node.sha))
        changes = commit_changes(self.repo, node.sha, node.parents[0] if node.parents else None)
        return (node.sha, node.time, node.parents, {
            "sha": node.sha, "time": e.time, "author": e.author, "summary": e.summary, "body": e.body,
            "trailers": e.trailers, "changes": [[c.op, c.section, c.key, c.text, c.fields] for c in changes]})

    def walk(self, head: str | None):
        """The shas reachable from `head` in `git.walk`'s order."""
        if not head:
            return
        self.ensure(head)
        rows = self.rows
        queue, queued = [(-rows[head][0], head)], {head}
        while queue:
            _, sha = heapq.heappop(queue)
            yield sha
            for parent in rows[sha][1]:
                if parent not in queued:
                    if parent not in rows:
                        self.ensure(parent)
                    queued.add(parent)
                    heapq.heappush(queue, (-rows[parent][0], parent))

    def changes(self, sha: str, item_id: str, needle: str | None = None) -> list[ItemChange]:
        """The changes of commit `sha` to `item_id` (`needle`: the id as JSON, if known)."""
        if (needle or json.dumps(item_id, ensure_ascii=False)) not in self.rows[sha][4]:
            return []
        try:
            return self.index.changes(sha, item_id)
        except hx.Stale:  # a garbled record: the commit itself answers
            self.unreadable.add(sha)
            return commit_changes(self.repo, sha, only_id=item_id)

    def entry(self, sha: str) -> Entry:
        try:
            return self.index.entry(sha)
        except hx.Stale:
            self.unreadable.add(sha)
            return _entry(git.info(self.repo, sha))


def log(
    home: Home,
    *,
    branch: str = git.MAIN,
    limit: int | None = None,
    event: str | None = None,
    source: str | None = None,
    session: str | None = None,
    since: str | None = None,
    item: str | None = None,
) -> list[Entry]:
    repo = open_existing(home)
    try:
        cutoff = parse_since(since) if since else None
        out = []
        index = ItemIndex(home, repo) if item else None
        found = _from_git(home, index, git.head(repo, branch), item) if item else None
        if found is not None:
            entries = (e for e, _ in found)
        elif item:
            needle = json.dumps(item, ensure_ascii=False)
            entries = (index.entry(sha) for sha in index.walk(git.head(repo, branch)) if index.changes(sha, item, needle))
        else:
            head = git.head(repo, branch)
            found = gitlog.event_commits(str(home.memory / ".git"), head, event) if event and head else None
            if found is not None:  # a rare event needs every commit: git's C walk reads them
                entries = (gitlog.raw_entry(raw, Entry) for raw in found)
            else:
                entries = (_entry(info) for info in git.walk(repo, head))
        for entry in entries:
            if cutoff is not None and entry.time < cutoff:
                continue
            t = entry.trailers
            if event and not (t.get("Cogit-Event", "") == event or t.get("Cogit-Event", "").startswith(event + ".")):
                continue
            if source and t.get("Cogit-Source") != source:
                continue
            if session and t.get("Cogit-Session") != session:
                continue
            out.append(entry)
            if limit and len(out) >= limit:
                break
        if index is not None:
            index.close()
        return out
    finally:
        repo.close()


def _from_git(home: Home, index: "ItemIndex", head: str | None, item_id: str):
    """(entry, changes) of the commits that changed `item_id`, read by git for this one
    item (history/itemwalk.py) while the item index lacks more than itemwalk.LAZY_MIN of
    the head's commits (a fresh clone, a lost runtime folder, an index the session-end
    work is still building), or None: the index answers, indexing the few it lacks."""
    from cogit.store.history import itemwalk

    if not head or (index.rows and not index.behind(head, itemwalk.LAZY_MIN)):
        return None
    found = itemwalk.item_history(str(home.memory / ".git"), head, item_id, lambda: open_existing(home),
                                  lambda repo, sha: commit_changes(repo, sha, None, only_id=item_id))
    return None if found is None else [(gitlog.raw_entry(raw, Entry), changes) for raw, changes in found]


def why(home: Home, item_id: str, branch: str = git.MAIN) -> list[tuple[Entry, list[ItemChange]]]:
    repo = open_existing(home)
    try:
        out = []
        index = ItemIndex(home, repo)
        needle = json.dumps(item_id, ensure_ascii=False)
        try:
            found = _from_git(home, index, git.head(repo, branch), item_id)
            if found is not None:
                return found
            for sha in index.walk(git.head(repo, branch)):
                changes = index.changes(sha, item_id, needle)
                if changes:
                    out.append((index.entry(sha), changes))
        finally:
            index.close()
        return out
    finally:
        repo.close()


def refresh_recent(home: Home) -> None:
    """Write the recent file (history_index.RECENT newest commits) of every scope's
    branch whose file does not match its head, so the next `log -n N` reads no commit."""
    repo = open_existing(home)
    try:
        _refresh_recent(home, repo)
    finally:
        repo.close()


def _refresh_recent(home: Home, repo) -> None:
    cache = str(home.runtime / "cache")
    for branch in git.branches(repo):
        if branch != git.MAIN and not branch.startswith(hx.PROJECT_PREFIX):
            continue
        head = git.head(repo, branch)
        try:
            hx.read_recent(cache, branch, head)
            continue
        except hx.Stale:
            pass
        entries = [_entry(i) for i in git.walk(repo, head, max_entries=hx.RECENT + 1)]
        hx.write_recent(cache, branch, head, entries[:hx.RECENT], len(entries) <= hx.RECENT)


INDEX_GAP = 16  # commits a plain `diff` indexes on its full path at most (index_heads)


def index_heads(home: Home, branches: list[str]) -> None:
    """Index each branch's head when at most INDEX_GAP of its commits are not indexed yet
    (a few writes since the last query, a new project branch): the next plain `diff` reads
    it from the index. A longer gap (a fresh clone) is left to the queries that need the
    whole history."""
    repo = open_existing(home)
    try:
        index = ItemIndex(home, repo)
        try:
            for branch in branches:
                todo, seen = [git.head(repo, branch)], set()
                while todo and len(seen) <= INDEX_GAP:
                    sha = todo.pop()
                    if sha and sha not in index.rows and sha not in seen:
                        seen.add(sha)
                        todo.extend(git.info(repo, sha).parents)
                if seen and not todo and len(seen) <= INDEX_GAP:
                    index.ensure(git.head(repo, branch))
        finally:
            index.close()
    finally:
        repo.close()


FOLD_BUDGET = 2_000  # commits one session end indexes at most (about 1 ms each, bounded memory)


def catch_up(home: Home) -> None:
    """Bring the item index and the recent files up to date with every scope's branch
    (the detached session-end work runs this, so a query after many commits pays nothing).
    At most FOLD_BUDGET commits are indexed in one run, the oldest first: the first session
    end after a fresh clone of 100,000 commits would otherwise diff all of them (104 s of
    CPU, 260 MB); meanwhile `why` / `log --item` read the item through git (_from_git)."""
    repo = open_existing(home)
    try:
        index = ItemIndex(home, repo)
        try:
            for branch in git.branches(repo):
                if branch == git.MAIN or branch.startswith(hx.PROJECT_PREFIX):
                    left = FOLD_BUDGET - index.added
                    if left <= 0:
                        break  # the next session end goes on
                    index.ensure(git.head(repo, branch), left)
        finally:
            index.close()
        _refresh_recent(home, repo)
    finally:
        repo.close()


def diff(home: Home, rev_a: str | None = None, rev_b: str | None = None, *, raw: bool = False, branch: str = git.MAIN):
    """Changes from rev_a to rev_b. No revs: the last commit. One rev: since that rev."""
    repo = open_existing(home)
    try:
        head = git.head(repo, branch)
        if rev_a is None:
            new = head
            parents = git.info(repo, head).parents
            old = parents[0] if parents else None
        else:
            old = git.resolve(repo, rev_a, branch)
            new = git.resolve(repo, rev_b, branch) if rev_b is not None else head
        if raw:
            return git.raw_diff(repo, old, new)
        return commit_changes(repo, new, parent=old) if old else diff_states({}, yamlio.plain(dict(load_state(repo, new))))
    finally:
        repo.close()
