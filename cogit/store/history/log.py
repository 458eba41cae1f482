"""Reading history: log with provenance filters, semantic diffs, `why`, and revert."""

from __future__ import annotations

import copy
import heapq
import json
import os
from dataclasses import dataclass

from cogit.errors import CogitError, Conflict, RevisionNotFound
from cogit.paths import Home
from cogit.store.git import repo as git
from cogit.store.state import yamlio
from cogit.store.history import gitlog
from cogit.store.history import index as hx
from cogit.store.history.diff import ItemChange, diff_states
from cogit.store.history.index import Entry, parse_since  # noqa: F401 - re-exported
from cogit.store.git.repo import open_existing
from cogit.store.git.provenance import Provenance, parse
from cogit.store.state import loader
from cogit.store.state.documents import ITEM_SECTIONS, default_doc, section_of_file
from cogit.domain.times import now_iso
from cogit.store.write.transact import Change, State, load_state, transact


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
        self.index = hx.Index(str(home.runtime / "cache"))
        self.rows = self.index.rows
        self.unreadable: set[str] = set()  # commits whose record could not be read: indexed again on close

    def close(self) -> None:
        self.index.close()
        redo = [sha for sha in self.unreadable if sha in self.rows]
        if redo:  # a later line for the same commit wins when the index is read
            self.index.append([self._row(_Node(sha, self.rows[sha][1], self.rows[sha][0])) for sha in redo])

    def ensure(self, head: str) -> None:
        """Index every commit reachable from `head` that is not indexed yet."""
        missing, todo, seen = [], [head], set()
        while todo:
            sha = todo.pop()
            if sha in self.rows or sha in seen:
                continue
            seen.add(sha)
            c = self.repo[sha.encode()]
            info = _Node(sha, [p.decode() for p in c.parents], c.commit_time)
            missing.append(info)
            todo.extend(info.parents)
        if not missing:
            return
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
                if len(found) >= APPEND_BATCH:  # bounded memory: a record is written, then forgotten
                    self.index.append(found)
                    found = []
        self.index.append(found)

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
        index = None
        found = _from_git(home, repo, git.head(repo, branch), item) if item else None
        if found is not None:
            entries = (e for e, _ in found)
        elif item:
            index = ItemIndex(home, repo)
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


def _from_git(home: Home, repo, head: str | None, item_id: str):
    """(entry, changes) of the commits that changed `item_id`, read by git for this one
    item (history/itemwalk.py) while the item index is empty, or None: the index is built."""
    try:
        if not head or os.path.getsize(home.runtime / "cache" / "history.idx") > len(hx.HEADER):
            return None
    except OSError:
        pass  # no index at all
    from cogit.store.history import itemwalk

    found = itemwalk.item_history(str(home.memory / ".git"), head, item_id, lambda: open_existing(home),
                                  lambda repo, sha: commit_changes(repo, sha, None, only_id=item_id))
    return None if found is None else [(gitlog.raw_entry(raw, Entry), changes) for raw, changes in found]


def why(home: Home, item_id: str, branch: str = git.MAIN) -> list[tuple[Entry, list[ItemChange]]]:
    repo = open_existing(home)
    try:
        found = _from_git(home, repo, git.head(repo, branch), item_id)
        if found is not None:
            return found
        out = []
        index = ItemIndex(home, repo)
        needle = json.dumps(item_id, ensure_ascii=False)
        try:
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


def catch_up(home: Home) -> None:
    """Bring the item index and the recent files up to date with every scope's branch
    (the detached session-end work runs this, so a query after many commits pays nothing)."""
    repo = open_existing(home)
    try:
        index = ItemIndex(home, repo)
        try:
            for branch in git.branches(repo):
                if branch == git.MAIN or branch.startswith(hx.PROJECT_PREFIX):
                    index.ensure(git.head(repo, branch))
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


def revert(home: Home, rev: str, prov: Provenance, branch: str = git.MAIN, *, revert_evidence=None):
    """Undo exactly the item changes of commit `rev`, as a new commit.

    Later commits that changed other items are kept. If a later commit changed
    one of the same items, nothing is changed and Conflict names both commits.

    A rule's evidence commit is a ledger entry, not an item change: it is handed to
    `revert_evidence(home, target, summary, rule_id, prov, branch)` (the CLI passes
    cogit/learn/rules.py's; learning sits above the store, so it is a parameter).
    """
    repo = open_existing(home)
    try:
        target = git.resolve(repo, rev, branch)
        info = git.info(repo, target)
        _, _, tr = parse(info.message)
        if tr.get("Cogit-Rule") and (tr.get("Cogit-Event") in ("rule.detect", "rule.suppress", "rule.withheld") or tr.get("Cogit-Reverts")):
            if revert_evidence is None:
                raise CogitError(f"commit {target[:10]} is evidence of rule {tr['Cogit-Rule']}, a ledger entry",
                                 hint="Revert it with `cogit revert`, which rewrites the rule's ledger.")
            return revert_evidence(home, target, _entry(info).summary, tr["Cogit-Rule"], prov, branch)
        if not info.parents:
            raise CogitError("that is the commit that created memory; it cannot be reverted",
                             hint="Use `cogit forget ID` to remove single items.")
        head = git.head(repo, branch)
        changes = commit_changes(repo, target)
        proposed = _proposals_added(repo, target, info.parents[0])  # the review inbox (cogit/learn/inbox.py)
        if not changes and not proposed:
            raise CogitError(f"commit {target[:10]} changed no items; nothing to revert",
                             hint="Pick a commit from `cogit log` that added, changed or removed items.")
        keys = {(c.section, c.key) for c in changes}
        # Items whose use counts this commit itself changed: later uses do block those.
        use_keys = {(c.section, c.key) for c in changes if c.op == "~" and any(f in USE_FIELDS for f, _, _ in c.fields if f != "updated_at")}
        field_keys = {(c.section, f) for c in changes if c.section not in ITEM_SECTIONS for f, _, _ in c.fields}
        reachable = False
        for later in repo.get_walker(include=[head.encode()], exclude=[target.encode()]):
            lsha = later.commit.id.decode()
            for lc in commit_changes(repo, lsha):
                if _only_use(lc) and (lc.section, lc.key) not in use_keys:
                    continue  # use counts are evidence, not edits: they never block a revert
                clash = (lc.section, lc.key) in keys if lc.section in ITEM_SECTIONS else any(
                    (lc.section, f) in field_keys for f, _, _ in lc.fields
                )
                if clash:
                    what = (f"{lc.section[:-1]} {lc.key}" if lc.section in ITEM_SECTIONS else
                            f"{lc.section} ({', '.join(f for f, _, _ in lc.fields if (lc.section, f) in field_keys)})")
                    raise Conflict(
                        f"cannot revert {target[:10]}: the later commit {lsha[:10]} "
                        f"({_entry(git.info(repo, lsha)).summary}) changed {what} too",
                        hint=(f"Revert {lsha[:10]} first, change the item by hand (`cogit edit`), "
                              f"or remove it with `cogit forget {lc.key}`" if lc.section in ITEM_SECTIONS else
                              f"Revert {lsha[:10]} first, or change the item by hand (`cogit edit`)") + ".",
                    )
        for sha in git.walk(repo, head):
            if sha.sha == target:
                reachable = True
                break
        if not reachable:
            raise RevisionNotFound(f"commit {target[:10]} is not in the history of {branch}")
        summary = _entry(info).summary
    finally:
        repo.close()

    def apply(state: State) -> Change:
        for c in changes:
            _undo(state, c)
        _bury_reverted(state, changes, proposed)
        return Change(f"Revert \"{summary}\"", body=f"This reverts commit {target}.", trailers={"Cogit-Reverts": target})

    prov.event = "revert"
    return transact(home, prov, apply, branch=branch)


# Fields that sessions change as evidence (a heuristic used, a rule's ledger cache), not edits.
USE_FIELDS = frozenset(("use_count", "last_used", "updated_at", "evidence", "detections", "suppressions",
                        "last_detected", "last_suppressed", "idle"))


def _only_use(c: ItemChange) -> bool:
    return c.section in ("heuristics", "rules") and c.op == "~" and bool(c.fields) and all(f in USE_FIELDS for f, _, _ in c.fields)


def _proposals_added(repo, sha: str, parent: str) -> list[dict]:
    """Review-inbox proposals that commit `sha` added."""
    new = (load_state(repo, sha).get("reflections") or {}).get("proposals") or []
    old = {p.get("id") for p in (load_state(repo, parent).get("reflections") or {}).get("proposals") or []}
    return [yamlio.plain(p) for p in new if p.get("id") not in old]


def _bury_reverted(state: State, changes: list[ItemChange], proposed: list[dict]) -> None:
    """A reverted proposal leaves a tombstone: items from a reflection that the revert
    removes, and the commit's proposals still waiting for review (which go too)."""
    from cogit.domain.tombstones import bury

    for c in changes:
        if c.op == "+" and c.section in ITEM_SECTIONS and (c.new or {}).get("source") == "reflection":
            bury(state, c.section, c.text, "reverted", c.key)
    if proposed:
        ids = {p.get("id") for p in proposed}
        waiting = state["reflections"].get("proposals") or []
        for p in waiting:
            if p.get("id") in ids:
                bury(state, p.get("section"), p.get("text", ""), "reverted", p.get("id"))
        state["reflections"]["proposals"] = [p for p in waiting if p.get("id") not in ids]


def _undo(state: State, c: ItemChange) -> None:
    if c.section in ITEM_SECTIONS:
        items = state[c.section]["items"]
        index = next((i for i, it in enumerate(items) if it.get("id") == c.key), None)
        if c.op == "+":
            if index is not None:
                del items[index]
        elif c.op == "-":
            if index is None:
                items.append(copy.deepcopy(c.old))
        elif index is not None:
            for f, old, _ in c.fields:
                if old is None and f not in c.old:
                    items[index].pop(f, None)
                else:
                    items[index][f] = copy.deepcopy(old)
            items[index]["updated_at"] = now_iso()
        return
    doc = state[c.section]
    for f, old, _ in c.fields:
        parts = f.split(".")
        node = doc
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        if f not in (c.old or {}):
            node.pop(parts[-1], None)
        else:
            node[parts[-1]] = copy.deepcopy(old)

