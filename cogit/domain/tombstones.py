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

PROPOSAL_SECTIONS = ("heuristics", "learnings", "avoidances", "rules", "focus")
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
    text = str(text).strip()[:MAX_TEXT]
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
