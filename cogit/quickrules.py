"""The plain `cogit rules` / `rules --json` (no --project) without dulwich or click.

The full path (cogit/learn/rule_listing.listing) opens the store, reads each scope's rules
at its head and each rule's ledger by walking git (twice: the confidence evidence, then
the measured effect's controls). Here the same numbers come from caches that name the
commits they were made from:

- the rules and main's config from the snapshots (cogit/store/cache/snapshot.py), each
  served only when it was made from its branch's head now;
- every scope's ledger from the history index (cogit/store/history/index.py): its
  per-commit records hold the summary, body and trailers the ledger is counted from, and
  `Index.walk` gives `git.walk`'s order from the head, Stale on any commit not indexed.

The records go through the same counting (ledger_history.book, effect.effects_from,
rule_listing.rows), so both paths print the same rows. Anything these caches cannot say
exactly (a snapshot or head missing or behind, a branch the ref files do not show plainly,
a record that does not parse) gives None and the caller takes the full path, which brings
the index and snapshots up to date for the next run.

Standard library and cogit's stdlib modules only (tests/test_cli_quick.py checks that no
click and no dulwich is imported).
"""

from __future__ import annotations

import json
import os

from cogit.paths import Home

# The trailers that make a commit part of a ledger (cogit/learn/ledger_history.read reads
# only commits whose message holds one of them): a record without any is not parsed.
_NEEDLES = (b'"Cogit-Rule"', b'"Cogit-Reverts"', b'"Cogit-Ledger"', b'"Cogit-Withheld-Rules"', b'"rule.idle"')


class _Miss(Exception):
    """The caches cannot answer exactly."""


def _commits(index, head: str, dat):
    """(sha, time, summary, body, trailers) of the ledger commits reachable from `head`, in
    `git.walk`'s order, from the index's records (each checked to be its commit's)."""
    from cogit.store.history import records
    from cogit.store.history.index import MAX_RECORD

    out = []
    for sha in index.walk(head):
        _, _, off, length, _ = index.rows[sha]
        if length > MAX_RECORD:
            raise _Miss(sha)
        dat.seek(off)
        try:
            blob = records.text(dat.read(length), MAX_RECORD)  # records are stored compressed
        except ValueError:
            raise _Miss(sha) from None
        if b'"sha":"%s"' % sha.encode() not in blob:
            raise _Miss(sha)  # not this commit's record: even one the ledger would skip is not believed
        if not any(n in blob for n in _NEEDLES):
            continue
        try:
            rec = json.loads(blob)
        except ValueError:
            raise _Miss(sha) from None
        if not isinstance(rec, dict) or rec.get("sha") != sha:
            raise _Miss(sha)
        when, summary, body, trailers = rec.get("time"), rec.get("summary"), rec.get("body"), rec.get("trailers")
        if not (type(when) is int and isinstance(summary, str) and isinstance(body, str) and isinstance(trailers, dict)
                and all(isinstance(v, str) for v in trailers.values())):
            raise _Miss(sha)
        out.append((sha, when, summary, body, trailers))
    return out


def rows(home: Home, cwd: str) -> list[dict]:
    """The plain `rules`' rows: from the caches (`listing`), else from the store, which then
    indexes each scope's newest commits and snapshots each scope (the next run reads them)."""
    found = listing(home, cwd)
    if found is not None:
        return found
    from cogit.learn.rule_listing import _scopes, listing as full_listing
    from cogit.store import scoped
    from cogit.store.cache import snapshot
    from cogit.store.git.repo import open_existing
    from cogit.store.history import log as history

    here = scoped.folder_project(home, cwd)
    found = full_listing(home, [here.branch, "main"] if here else None)
    repo = open_existing(home)
    try:
        scopes = _scopes(repo)
    finally:
        repo.close()
    history.index_heads(home, scopes)
    snapshot.keep(home, scopes)
    return found


def _rules_of(snap) -> list:
    rules = snap["state"].get("rules") or {}
    items = rules.get("items") or [] if isinstance(rules, dict) else None
    if not isinstance(items, list) or not all(isinstance(r, dict) for r in items):
        raise _Miss("rules")
    return items


def listing(home: Home, cwd: str, now: float | None = None) -> list[dict] | None:
    """The rows `rule_listing.listing` gives for the plain `rules` in `cwd`, or None."""
    from cogit.store.cache import snapshot
    from cogit.store.history import index as history_index

    view = snapshot.cold_view(home, cwd)
    if view is None:
        return None
    main, here = view
    try:
        heads = history_index.branches(home.top)  # every branch, as the full path lists them
    except history_index.Stale:
        return None
    scopes = [snapshot.MAIN] + [b for b in heads if b.startswith(snapshot.PROJECT_PREFIX)]
    branches = [here[0].branch, snapshot.MAIN] if here else scopes
    try:
        rules = []
        for b in branches:
            if not heads.get(b):
                continue  # (the full path skips a branch with no commit)
            snap = main if b == snapshot.MAIN else snapshot.fresh(home, b)
            if snap is None:
                return None
            rules.append((b, _rules_of(snap)))
        if not any(items for _, items in rules):
            return []
        config = main["state"].get("config")
        if not isinstance(config, dict):
            return None
        return _rows(home, rules, scopes, heads, config, now)
    except (_Miss, history_index.Stale, OSError):
        return None


def _rows(home: Home, rules: list, scopes: list[str], heads: dict, config: dict, now) -> list[dict]:
    from cogit.learn import ledger_history, rule_listing
    from cogit.learn.effect import effects_from
    from cogit.store.history import index as history_index

    index = history_index.Index(os.path.join(home.top, "runtime", "cache"))
    try:
        with open(index.dat_path, "rb") as dat:
            commits = {b: _commits(index, heads[b], dat) for b in scopes if heads.get(b)}
    finally:
        index.close()
    plain = {b: ledger_history.book(c) for b, c in commits.items()}
    controls = {b: ledger_history.book(c, controls=True) for b, c in commits.items()}
    for b in scopes:  # a scope with no commit has no ledger (ledger_history.read walks nothing)
        plain.setdefault(b, {})
        controls.setdefault(b, {})
    out = rule_listing.rows(rules, lambda rid, b: rule_listing.entries_of(None, rid, b, plain, scopes), now, config)
    if out:
        rule_listing._with_effects(out, effects_from(rules, [r["id"] for r in out], scopes, config, None, controls))
    return sorted(out, key=lambda r: (-r["confidence"], r["id"]))
