"""The sections of memory by name. No imports but cogit.errors.

The cold `show` and `status` (answered from store/cache/snapshot.py) need the names of the
sections, not the store: importing store/state/documents.py brings yamlio and schema with them
(json, their regular expressions). store/state/documents.py re-exports everything here.
"""

from __future__ import annotations

from cogit.errors import UsageError

# The state files, in this order everywhere (= store.schema.SECTIONS; tests/test_snapshot.py keeps them equal).
SECTIONS = ("focus", "heuristics", "learnings", "avoidances", "engagement", "tools", "reflections", "rules", "config")
CATEGORIES = ("insight", "feedback", "pattern", "mistake")  # of learnings
ITEM_SECTIONS = ("heuristics", "learnings", "avoidances", "reflections", "rules")
SINGULAR = {
    "heuristics": "heuristic",
    "learnings": "learning",
    "avoidances": "avoidance",
    "reflections": "reflection",
    "rules": "rule",
    "focus": "focus",
    "engagement": "engagement",
    "tools": "tools",
    "config": "config",
}
PLURAL = {v: k for k, v in SINGULAR.items()}


def section_name(word: str) -> str:
    """Accept `learning`, `learnings`, `Learnings`; refuse anything else with a list."""
    w = word.strip().lower()
    if w in SECTIONS:
        return w
    if w in PLURAL:
        return PLURAL[w]
    raise UsageError(f"unknown section {word!r}", hint="Sections: " + ", ".join(SECTIONS) + ".")
