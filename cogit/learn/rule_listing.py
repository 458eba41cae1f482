"""The rules as `cogit rules` lists and shows them: each rule's ledger across scopes, and
its row (counts, recent evidence, state).

Split from cogit/learn/rules.py (which creates rules and records their evidence). The
rows are made by `rows`, from the store here, or from the snapshots and the history
index (cogit/quickrules.py, the plain `cogit rules` without dulwich): so both print the same.
Nothing here imports dulwich until it reads git.
"""

from __future__ import annotations

import time

from cogit.domain import ledger
from cogit.domain.times import now_iso
from cogit.learn import ledger_history
from cogit.paths import Home

MAIN = "main"  # = store.git.repo.MAIN


def _scopes(repo) -> list[str]:
    from cogit.store.git import repo as git

    return [MAIN] + [b for b in git.branches(repo) if b.startswith("project/")]


def entries_of(repo, rule_id: str, branch: str, books: dict, scopes: list[str] | None = None) -> list:
    """A rule's ledger: its branch's evidence, and for a global rule also what every project
    recorded of it (each piece of evidence is in exactly one scope), oldest first. `books`:
    each scope's ledger, read from `repo` when missing (`scopes`: every scope, if known)."""
    def book(b):
        if b not in books:
            books[b] = ledger_history.read(repo, b)
        return books[b]

    entries = [_labelled(e, branch) for e in book(branch).get(rule_id, [])]
    if branch == MAIN:
        for b in (_scopes(repo) if scopes is None else scopes)[1:]:
            entries += [_labelled(e, b) for e in book(b).get(rule_id, [])]
    return sorted(entries, key=lambda e: e.time)


def _labelled(ev, branch: str):
    ev.scope = "global" if branch == MAIN else branch
    return ev


def listing(home: Home, branches: list[str] | None = None, now: float | None = None) -> list[dict]:
    """Every rule with its ledger-derived numbers (`cogit rules`), best first."""
    from cogit.learn.effect import rule_effects
    from cogit.store.git import repo as git
    from cogit.store.git.repo import open_existing
    from cogit.store.write.transact import load_state, main_config

    repo = open_existing(home)
    try:
        config = main_config(repo)
        scopes = _scopes(repo)
        if branches is None:
            branches = scopes
        rules = [(b, (load_state(repo, sha).get("rules") or {}).get("items") or [])
                 for b in branches for sha in [git.head(repo, b)] if sha]
        books: dict = {}
        out = rows(rules, lambda rid, b: entries_of(repo, rid, b, books, scopes), now, config)
    finally:
        repo.close()
    if out:  # (the measured effects read history again, with the controls: cogit/learn/effect.py)
        _with_effects(out, rule_effects(home, [r["id"] for r in out], branches))
    return sorted(out, key=lambda r: (-r["confidence"], r["id"]))


def rows(rules: list, ledger_of, now: float | None, config) -> list[dict]:
    """The rows of the rules given as [(branch, items)], unsorted, without effects;
    `ledger_of(rule_id, branch)`: the rule's ledger (`entries_of`)."""
    now = time.time() if now is None else now
    return [_row(rule, ledger_of(rule.get("id"), b), b, now, config) for b, items in rules for rule in items]


def _with_effects(rows: list[dict], effects: dict) -> None:
    """Each row gets its measured effect and whether it was applied (cogit/learn/effect.py)."""
    for r in rows:
        e = effects.get(r["id"])
        if e is not None:
            r["applied"] = e["applied"]
            r["effect"] = {k: v for k, v in e.items() if k not in ("branch", "scope")}  # the rule_effects shape


def _row(rule: dict, entries: list, branch: str, now: float, config) -> dict:
    det = [e for e in entries if e.kind == "detect"]
    sup = [e for e in entries if e.kind == "suppress"]
    last = entries[-1].time if entries else ledger.parse_time(rule.get("created_at"))
    return {
        "id": rule.get("id"),
        "text": rule.get("text"),
        "detector": rule.get("detector"),
        "signature": rule.get("signature") or "",
        "trigger": rule.get("trigger") or "",  # its command family: what "came near" means (detectors.relevant)
        "idle": int(rule.get("idle", 0) or 0),  # shown in sessions that never came near it, in a row
        "confidence": ledger.confidence(len(entries), last, now, config, sum(1 for e in det if e.injected)),
        "detections": len(det),
        "misses": sum(1 for e in det if e.injected),
        "suppressions": len(sup),
        "last_detected": now_iso(det[-1].time) if det else None,
        "last_suppressed": now_iso(sup[-1].time) if sup else None,
        "sessions_injected": len({e.session for e in entries if e.injected}),
        "scope": "global" if branch == MAIN else branch,
        "evidence_by_scope": {k: sum(1 for e in entries if getattr(e, "scope", "") == k) for k in dict.fromkeys(getattr(e, "scope", "") for e in entries)},
        "source": rule.get("source"),
        "created_at": rule.get("created_at"),
    }


def show(home: Home, rule_id: str, now: float | None = None) -> dict:
    """One rule, its ledger from history and its confidence over time (`cogit rules show`)."""
    from cogit.errors import ItemNotFound
    from cogit.learn.effect import rule_effects
    from cogit.store.git import repo as git
    from cogit.store.git.repo import open_existing
    from cogit.store.write.transact import load_state, main_config

    now = time.time() if now is None else now
    repo = open_existing(home)
    try:
        config = main_config(repo)
        books: dict = {}
        for b in _scopes(repo):
            items = (load_state(repo, git.head(repo, b)).get("rules") or {}).get("items") or []
            rule = next((r for r in items if r.get("id") == rule_id), None)
            if rule is None:
                continue
            entries = entries_of(repo, rule_id, b, books)
            row = _row(rule, entries, b, now, config)
            row["ledger"] = [{"kind": e.kind, "session": e.session, "commit": e.sha, "time": now_iso(e.time),
                              "injected": e.injected, "scope": e.scope, "withheld": e.withheld} for e in entries]
            points = ledger.history(entries, ledger.parse_time(rule.get("created_at")), now, config)
            row["over_time"] = [{"time": now_iso(t), "confidence": c} for t, c in points]
            row["sparkline"] = ledger.sparkline([c for _, c in points])
            break
        else:
            row = None
    finally:
        repo.close()
    if row is not None:
        _with_effects([row], rule_effects(home, [row["id"]], [b]))
        return row
    raise ItemNotFound(f"no rule with id {rule_id!r}", hint="List rules with `cogit rules`.")
