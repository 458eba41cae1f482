"""Reading history: log with provenance filters, semantic diffs, `why`, and revert."""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass

from cogit.errors import CogitError, Conflict, RevisionNotFound, UsageError
from cogit.paths import Home
from cogit.store import repo as git
from cogit.store import yamlio
from cogit.store.diff import ItemChange, diff_states
from cogit.store.memory import open_existing
from cogit.store.provenance import Provenance, parse
from cogit.store.state import ITEM_SECTIONS, now_iso
from cogit.store.write import Change, State, load_state, transact


@dataclass
class Entry:
    sha: str
    summary: str
    body: str
    author: str
    time: int
    parents: list[str]
    trailers: dict[str, str]

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


def _entry(info: git.CommitInfo) -> Entry:
    summary, body, trailers = parse(info.message)
    return Entry(info.sha, summary, body, info.author, info.time, info.parents, trailers)


def parse_since(text: str) -> int:
    """`2026-11-30`, `2026-11-30T10:00:00Z`, or a relative `3d`, `12h`, `30m`."""
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


def commit_changes(repo, sha: str, parent: str | None = None, only_id: str | None = None) -> list[ItemChange]:
    """Semantic changes a commit made against its first parent (or `parent`)."""
    info = git.info(repo, sha)
    if parent is None and info.parents:
        parent = info.parents[0]
    if only_id is not None:
        # Cheap pre-check: only commits whose changed files mention the id are parsed.
        old, new = git.read_files(repo, parent), git.read_files(repo, sha)
        token = only_id.encode()
        touched = [n for n in set(old) | set(new) if old.get(n) != new.get(n) and (token in (old.get(n) or b"") or token in (new.get(n) or b""))]
        if not touched:
            return []
    before = yamlio.plain(dict(load_state(repo, parent))) if parent else {}
    after = yamlio.plain(dict(load_state(repo, sha)))
    changes = diff_states(before, after)
    if only_id is not None:
        changes = [c for c in changes if c.key == only_id]
    return changes


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
        for info in git.walk(repo, git.head(repo, branch)):
            if cutoff is not None and info.time < cutoff:
                continue
            entry = _entry(info)
            t = entry.trailers
            if event and not (t.get("Cogit-Event", "") == event or t.get("Cogit-Event", "").startswith(event + ".")):
                continue
            if source and t.get("Cogit-Source") != source:
                continue
            if session and t.get("Cogit-Session") != session:
                continue
            if item and not commit_changes(repo, info.sha, only_id=item):
                continue
            out.append(entry)
            if limit and len(out) >= limit:
                break
        return out
    finally:
        repo.close()


def why(home: Home, item_id: str, branch: str = git.MAIN) -> list[tuple[Entry, list[ItemChange]]]:
    repo = open_existing(home)
    try:
        out = []
        for info in git.walk(repo, git.head(repo, branch)):
            changes = commit_changes(repo, info.sha, only_id=item_id)
            if changes:
                out.append((_entry(info), changes))
        return out
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


def revert(home: Home, rev: str, prov: Provenance, branch: str = git.MAIN):
    """Undo exactly the item changes of commit `rev`, as a new commit.

    Later commits that changed other items are kept. If a later commit changed
    one of the same items, nothing is changed and Conflict names both commits.
    """
    repo = open_existing(home)
    try:
        target = git.resolve(repo, rev, branch)
        info = git.info(repo, target)
        _, _, tr = parse(info.message)
        if tr.get("Cogit-Rule") and (tr.get("Cogit-Event") in ("rule.detect", "rule.suppress") or tr.get("Cogit-Reverts")):
            from cogit.learn.rules import revert_evidence  # evidence is a ledger entry (cogit/learn/ledger.py)

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
        field_keys = {(c.section, f) for c in changes if c.section not in ITEM_SECTIONS for f, _, _ in c.fields}
        reachable = False
        for later in repo.get_walker(include=[head.encode()], exclude=[target.encode()]):
            lsha = later.commit.id.decode()
            for lc in commit_changes(repo, lsha):
                clash = (lc.section, lc.key) in keys if lc.section in ITEM_SECTIONS else any(
                    (lc.section, f) in field_keys for f, _, _ in lc.fields
                )
                if clash:
                    what = (f"{lc.section[:-1]} {lc.key}" if lc.section in ITEM_SECTIONS else
                            f"{lc.section} ({', '.join(f for f, _, _ in lc.fields if (lc.section, f) in field_keys)})")
                    raise Conflict(
                        f"cannot revert {target[:10]}: the later commit {lsha[:10]} "
                        f"({_entry(git.info(repo, lsha)).summary}) changed {what} too",
                        hint=f"Revert {lsha[:10]} first, or change the item by hand (`cogit edit`).",
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


def _proposals_added(repo, sha: str, parent: str) -> list[dict]:
    """Review-inbox proposals that commit `sha` added."""
    new = (load_state(repo, sha).get("reflections") or {}).get("proposals") or []
    old = {p.get("id") for p in (load_state(repo, parent).get("reflections") or {}).get("proposals") or []}
    return [yamlio.plain(p) for p in new if p.get("id") not in old]


def _bury_reverted(state: State, changes: list[ItemChange], proposed: list[dict]) -> None:
    """A reverted proposal leaves a tombstone: items from a reflection that the revert
    removes, and the commit's proposals still waiting for review (which go too)."""
    from cogit.learn.inbox import bury

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

