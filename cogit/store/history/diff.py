"""Semantic diff of two states: items added, removed and changed, by id.

    + learning l-3f2a "Run tests with pytest -q"
    ~ heuristic h-9c1a: use_count 3 → 4
    - avoidance a-12ab "Building meta-systems"
    ~ focus: current "old" → "new"

Used by `cogit diff`, `cogit log --item`, `cogit why` and `cogit revert`.
"""

from __future__ import annotations

import json
from typing import Any

from cogit.store.history.change import MAX_FIELDS, _MISSING, ItemChange, _short  # noqa: F401 - ItemChange re-exported
from cogit.store.state.schema import SECTIONS
from cogit.store.state.documents import ITEM_SECTIONS, SINGULAR


def _flatten(doc: Any, prefix: str = "") -> dict[str, Any]:
    """Dicts flatten to dotted keys; lists and scalars are leaves."""
    out: dict[str, Any] = {}
    if isinstance(doc, dict):
        for k, v in doc.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            if isinstance(v, dict):
                out.update(_flatten(v, key))  # an empty map has no leaves
            else:
                out[key] = v
    return out


def diff_states(old: dict, new: dict) -> list[ItemChange]:
    """Changes from `old` to `new` (plain states: section -> document)."""
    changes: list[ItemChange] = []
    for section in SECTIONS:
        a, b = old.get(section) or {}, new.get(section) or {}
        if section in ITEM_SECTIONS:
            changes += _diff_items(section, a.get("items") or [], b.get("items") or [])
        else:
            fa, fb = _flatten({k: v for k, v in a.items() if k != "schema_version"}), _flatten(
                {k: v for k, v in b.items() if k != "schema_version"}
            )
            fields = [
                (k, fa.get(k, _MISSING), fb.get(k, _MISSING))
                for k in sorted(set(fa) | set(fb))
                if fa.get(k, _MISSING) != fb.get(k, _MISSING)
            ]
            for key, group in _group(section, fields):
                changes.append(ItemChange("~", section, key, fields=[(f, _none(o), _none(n)) for f, o, n in group], old=fa, new=fb))
    return changes


def _group(section: str, fields: list) -> list[tuple[str, list]]:
    """Tools change as one entry per tool (and one for sequences); others as one entry."""
    if not fields:
        return []
    if section != "tools":
        return [(section, fields)]
    groups: dict[str, list] = {}
    for f, o, n in fields:
        parts = f.split(".", 2)
        key = parts[1] if parts[0] == "tools" and len(parts) == 3 else parts[0]
        groups.setdefault(key, []).append((f, o, n))
    return list(groups.items())


def _none(v):
    return None if v is _MISSING else v


def _diff_items(section: str, old: list, new: list) -> list[ItemChange]:
    a = {i.get("id"): i for i in old}
    b = {i.get("id"): i for i in new}
    out = []
    for item in new:
        key = item.get("id")
        if key not in a:
            out.append(ItemChange("+", section, key, item.get("text", ""), new=item))
        elif a[key] != item:
            fields = [
                (f, a[key].get(f), item.get(f))
                for f in sorted(set(a[key]) | set(item))
                if a[key].get(f) != item.get(f) and f != "updated_at"
            ]
            if fields:
                out.append(ItemChange("~", section, key, item.get("text", ""), fields, old=a[key], new=item))
    for item in old:
        if item.get("id") not in b:
            out.append(ItemChange("-", section, item.get("id"), item.get("text", ""), old=item))
    return out
