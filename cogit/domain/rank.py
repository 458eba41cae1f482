"""The score that orders heuristics, learnings, avoidances and rules in the digest and in caps.

    heuristic:  (1 + use_count + 2 * evidence) * 0.5 ** (age / 30 days)
                age = days since last_used (else created_at); evidence = praise
    rule:       its confidence from the ledger (cogit/domain/ledger.py); rules under
                learning.rule_min_confidence are not shown (they stay in memory and history)
    learning, avoidance:  0.5 ** (age / 30 days), age since created_at (newest first)

Ties go to the more recent item (last_used, else updated_at, else created_at), then to the
id: never to the order of the file. Caps prune the lowest score first.

A rotating slot: when a section has more items than its quota, the quota's last place goes
to one of the items below the top (quota - 1), in turn: the turn advances with every folded
session (tools.sessions), so an item is shown within as many sessions as there are items
waiting below the top, however low its score (a never-shown heuristic has no other way to
earn use).
"""

from __future__ import annotations

import time

from cogit.domain import ledger

HALF_LIFE_DAYS = 30.0


def _t(item, *keys) -> float:
    for key in keys:
        t = ledger.parse_time(item.get(key))
        if t is not None:
            return t
    return 0.0


def recency(item) -> float:
    return _t(item, "last_used", "updated_at", "created_at")


def score(section: str, item: dict, now: float | None = None, config: dict | None = None) -> float:
    now = time.time() if now is None else now
    if section == "rules":
        return ledger.of_item(item, now, config)
    if section == "heuristics":
        age = max(0.0, now - _t(item, "last_used", "created_at")) / ledger.DAY
        weight = 1 + int(item.get("use_count", 0) or 0) + 2 * int(item.get("evidence", 0) or 0)
        return weight * 0.5 ** (age / HALF_LIFE_DAYS)
    age = max(0.0, now - _t(item, "created_at")) / ledger.DAY
    return 0.5 ** (age / HALF_LIFE_DAYS)


def key(section: str, now: float | None = None, config: dict | None = None):
    """Sort key, best first."""
    now = time.time() if now is None else now
    return lambda item: (-score(section, item, now, config), -recency(item), str(item.get("id", "")))


def ranked(section: str, items: list[dict], now: float | None = None, config: dict | None = None) -> list[dict]:
    now = time.time() if now is None else now
    out = sorted(items, key=key(section, now, config))
    if section == "rules":
        floor = ledger.settings(config)["rule_min_confidence"]
        idle = idle_limit(config)
        # Dormant: shown in `idle` sessions in a row that never came near it (issue 22). It
        # stays in memory; the next detection of its pattern brings it back.
        out = [r for r in out if ledger.of_item(r, now, config) >= floor and int(r.get("idle", 0) or 0) < idle]
    return out


IDLE_SESSIONS = 10


def idle_limit(config: dict | None) -> int:
    value = ((config or {}).get("learning") or {}).get("rule_idle_sessions", IDLE_SESSIONS)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else IDLE_SESSIONS


def rotate(items: list[dict], quota: int, turn: int) -> list[dict]:
    """The rotating slot: item number (turn mod waiting) below the top takes place quota-1."""
    if quota < 2 or len(items) <= quota:
        return items
    top, waiting = items[: quota - 1], items[quota - 1 :]
    pick = waiting[turn % len(waiting)]
    return top + [pick] + [i for i in waiting if i is not pick]


def prune_key(section: str, config: dict | None = None):
    """For caps: the first items in this order go first (lowest score, oldest)."""
    now = time.time()
    return lambda item: (score(section, item, now, config), recency(item), str(item.get("id", "")))
