"""Tombstones: what a person refused (or forgot, or reverted) stays refused.

They live in reflections.yaml beside the review inbox's proposals (cogit/learn/inbox.py):

    tombstones: [{id: t-…, section, text, reason: rejected|forgotten|reverted, item?, dropped?, last_dropped_at?}]

A proposal whose normalized text has a tombstone is dropped, and the tombstone counts it.
The store buries what a revert or a `forget --tombstone` removes; the inbox buries what a
person rejects; both with `bury`. Pure: these work on a state (section -> document).
"""

from __future__ import annotations

import re
import secrets

from cogit.domain.times import now_iso

# reflections: the insights, patterns and questions of a model (a command or an endpoint)
PROPOSAL_SECTIONS = ("heuristics", "learnings", "avoidances", "rules", "focus", "reflections")
MAX_TOMBSTONES = 500  # the oldest go first (history keeps them)
MAX_TEXT = 2000


def normalize(text: str) -> str:
    """What "the same thing" means: case, punctuation and spacing do not count."""
    return " ".join(re.sub(r"[\W_]+", " ", str(text).casefold()).split())


def reflections_list(state: dict, key: str) -> list:
    """reflections.yaml's list `key` (`tombstones`, `proposals`), made a list if it is not one."""
    doc = state["reflections"]
    if not isinstance(doc.get(key), list):
        doc[key] = []
    return doc[key]


def short_id(prefix: str, taken: set) -> str:
    while True:
        candidate = f"{prefix}-{secrets.token_hex(3)}"
        if candidate not in taken:
            return candidate


def tombstone_of(state: dict, text: str) -> dict | None:
    norm = normalize(text)
    for t in state["reflections"].get("tombstones") or []:
        if normalize(t.get("text", "")) == norm:
            return t
    return None


def drop_if_buried(state: dict, text: str) -> dict | None:
    """The tombstone of `text`, its drop counted (the commit names the drop); None if none."""
    stone = tombstone_of(state, text)
    if stone is not None:
        now = now_iso()
        stone["dropped"] = int(stone.get("dropped") or 0) + 1
        stone["last_dropped_at"] = now
        stone["updated_at"] = now
    return stone


def bury(state: dict, section: str, text: str, reason: str, item: str | None = None) -> dict | None:
    """Leave a tombstone for `text` (none if one is there already); returns the new one."""
    from cogit.redact import clip  # redact, then cut: never a part of a secret

    text = clip(str(text).strip(), MAX_TEXT, 0, "")
    if not text or section not in PROPOSAL_SECTIONS + ("reflections",) or tombstone_of(state, text) is not None:
        return None
    stones = reflections_list(state, "tombstones")
    now = now_iso()
    stone = {"id": short_id("t", {t.get("id") for t in stones}), "section": section, "text": text, "reason": reason,
             "created_at": now, "updated_at": now}
    if item:
        stone["item"] = str(item)[:40]
    stones.append(stone)
    if len(stones) > MAX_TOMBSTONES:
        del stones[: len(stones) - MAX_TOMBSTONES]
    return stone


# --------------------------------------------------------------------------- rules
# A removed rule stays removed: a tombstone on its detector and signature (rules.yaml
# `tombstones`), so the detector that made it does not make it again.

MAX_RULE_TOMBSTONES = 500


def bury_rule(state: dict, rule: dict, reason: str) -> dict | None:
    """A removed rule stays removed: its detector and signature get a tombstone (`forget`,
    `revert` of its creation, `reject` of its proposal); the same pattern then creates no
    rule and adds evidence to nothing, until `cogit rules lift`."""
    detector, signature = str(rule.get("detector") or ""), str(rule.get("signature") or "")
    if not detector or buried(state["rules"], detector, signature) is not None:
        return None
    stones = state["rules"].setdefault("tombstones", [])
    rid = str(rule.get("id") or "-")[:40]
    stone = {"id": rid, "detector": detector[:100], "signature": signature[:300], "rule": rid,
             "text": " ".join(str(rule.get("text") or "").split())[:2000] or "-", "reason": reason, "at": now_iso()}
    stones.append(stone)
    if len(stones) > MAX_RULE_TOMBSTONES:
        del stones[: len(stones) - MAX_RULE_TOMBSTONES]
    return stone


def buried(doc, detector: str, signature: str) -> dict | None:
    """The tombstone on this detector and signature, if any."""
    for stone in (doc or {}).get("tombstones") or []:
        if stone.get("detector") == detector and str(stone.get("signature") or "") == signature:
            return stone
    return None
