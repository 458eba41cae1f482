"""The rules as `cogit rules` lists and shows them: each rule's ledger across scopes, and
its row (counts, recent evidence, state).

Split from cogit/learn/rules.py (which creates rules and records their evidence).
"""

from __future__ import annotations

import time

from cogit.domain import ledger
from cogit.domain.times import now_iso
from cogit.learn import ledger_history
from cogit.paths import Home
from cogit.store.git import repo as git
from cogit.store.write.transact import main_config


def _scopes(repo) -> list[str]:
    return [git.MAIN] + [b for b in git.branches(repo) if b.startswith("project/")]


def entries_of(repo, rule_id: str, branch: str, books: dict) -> list:
    """A rule's ledger: its branch's evidence, and for a global rule also what every project
    recorded of it (each piece of evidence is in exactly one scope), oldest first."""
    def book(b):
        if b not in books:
            books[b] = ledger_history.read(repo, b)
        return books[b]

    entries = [_labelled(e, branch) for e in book(branch).get(rule_id, [])]
    if branch == git.MAIN:
        for b in _scopes(repo)[1:]:
            entries += [_labelled(e, b) for e in book(b).get(rule_id, [])]
    return sorted(entries, key=lambda e: e.time)


def _labelled(ev, branch: str):
    ev.scope = "global" if branch == git.MAIN else branch
    return ev


def listing(home: Home, branches: list[str] | None = None, now: float | None = None) -> list[dict]:
    """Every rule with its ledger-derived numbers (`cogit rules`), best first."""
    from cogit.store.git.repo import open_existing
    from cogit.store.write.transact import load_state

    now = time.time() if now is None else now
    repo = open_existing(home)
    try:
        config = main_config(repo)
        if branches is None:
            branches = _scopes(repo)
        out = []
        books: dict = {}
        for b in branches:
            sha = git.head(repo, b)
            if not sha:
                continue
            items = (load_state(repo, sha).get("rules") or {}).get("items") or []
            for rule in items:
                out.append(_row(rule, entries_of(repo, rule.get("id"), b, books), b, now, config))
    finally:
        repo.close()
    _with_effects(home, out, branches)
    return sorted(out, key=lambda r: (-r["confidence"], r["id"]))


def _with_effects(home: Home, rows: list[dict], branches=None) -> None:
    """Each row gets its measured effect and whether it was applied (cogit/learn/effect.py)."""
    from cogit.learn.effect import rule_effects

    if not rows:
        return
    effects = rule_effects(home, [r["id"] for r in rows], branches)
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
        "scope": "global" if branch == git.MAIN else branch,
        "evidence_by_scope": {k: sum(1 for e in entries if getattr(e, "scope", "") == k) for k in dict.fromkeys(getattr(e, "scope", "") for e in entries)},
        "source": rule.get("source"),
        "created_at": rule.get("created_at"),
    }


def show(home: Home, rule_id: str, now: float | None = None) -> dict:
    """One rule, its ledger from history and its confidence over time (`cogit rules show`)."""
    from cogit.errors import ItemNotFound
    from cogit.store.git.repo import open_existing
    from cogit.store.write.transact import load_state

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
        _with_effects(home, [row], [b])
        return row
    raise ItemNotFound(f"no rule with id {rule_id!r}", hint="List rules with `cogit rules`.")
