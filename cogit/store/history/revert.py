"""`cogit revert REV`: undo exactly one commit's item changes, as a new commit through the
one write path, refusing when a later commit changed the same item (history/log.py gives
the changes; this module only decides what undoing them means)."""

from __future__ import annotations

import copy

from cogit.errors import CogitError, Conflict, RevisionNotFound
from cogit.paths import Home
from cogit.domain.times import now_iso
from cogit.store.git import repo as git
from cogit.store.git.provenance import Provenance, parse
from cogit.store.git.repo import open_existing
from cogit.store.history.diff import ItemChange
from cogit.store.history.log import _entry, commit_changes
from cogit.store.state import yamlio
from cogit.store.state.documents import ITEM_SECTIONS
from cogit.store.write.transact import Change, State, load_state, transact


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

