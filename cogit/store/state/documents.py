"""The sections of memory as data: file names, item ids, defaults, lookups and caps.

A state is a dict section -> document. Documents are ruamel round-trip maps when
they come from the store (so comments survive) and plain dicts in pure code;
everything here works on both, since both are dicts and lists.
"""

from __future__ import annotations

import os

import json
from typing import Any

from cogit.errors import ItemNotFound
from cogit.store.state import yamlio
from cogit.store.state.schema import SECTIONS
# The names live in domain/sections.py (no store imports, for the cold reads); re-exported here.
from cogit.domain.sections import CATEGORIES, ITEM_SECTIONS, PLURAL, SINGULAR, section_name  # noqa: F401

PREFIX = {"heuristics": "h", "learnings": "l", "avoidances": "a", "reflections": "rf", "rules": "ru"}

DEFAULT_CAPS = {
    "learnings": 50,
    "reflections": 20,
    "heuristics": 30,
    "avoidances": 30,
    "rules": 40,
    "priorities": 10,
    "sequences": 50,
}


def filename(section: str) -> str:
    return f"{section}.yaml"


# Every name memory's tree may hold, and so every name cogit writes in the working tree.
STATE_FILES = frozenset(filename(s) for s in SECTIONS)


def section_of_file(name: str) -> str | None:
    if name.endswith(".yaml") and name[:-5] in SECTIONS:
        return name[:-5]
    return None


def template_text(section: str) -> str:
    from importlib import resources  # here: the cold `show` / `status` import this module, not the templates

    return resources.files("cogit.templates").joinpath("state", filename(section)).read_text("utf-8")


def default_doc(section: str) -> Any:
    return yamlio.load(template_text(section))


def new_id(section: str, state: dict) -> str:
    taken = set(all_ids(state))
    while True:
        candidate = f"{PREFIX[section]}-{os.urandom(3).hex()}"  # = secrets.token_hex(3), without importing hmac and random
        if candidate not in taken:
            return candidate


def all_ids(state: dict):
    for section in ITEM_SECTIONS:
        for item in state.get(section, {}).get("items", []) or []:
            yield item.get("id")


def find(state: dict, item_id: str) -> tuple[str, int, Any]:
    """(section, index, item) of an item id in any section."""
    for section in ITEM_SECTIONS:
        for index, item in enumerate(state.get(section, {}).get("items", []) or []):
            if item.get("id") == item_id:
                return section, index, item
    raise ItemNotFound(
        f"no item with id {item_id!r} in this memory",
        hint="List ids with `cogit show` (or `cogit log --item ID` for items that were removed).",
    )


def caps(config: Any) -> dict[str, int]:
    out = dict(DEFAULT_CAPS)
    out.update((config or {}).get("caps", {}) or {})
    return out


def _sort_key_oldest(item) -> tuple:
    # Timestamps have one-second resolution; list order (appended = newer) breaks ties.
    return (str(item.get("created_at", "")),)


def _prune_order(section: str):
    """Which item goes first when a section is over its cap (earliest in the sorted list)."""
    if section in ("heuristics", "rules"):
        from cogit.domain.rank import prune_key  # lowest score first, never the best-proven

        return prune_key(section)
    return _sort_key_oldest


def apply_caps(state: dict, config: Any, protect=frozenset()) -> list[tuple[str, dict]]:
    """Enforce the caps in place; return what was pruned as (section, plain item).

    Pruned items stay in history: the commit that prunes them names them. Items whose id is
    in `protect` (the ones the change being committed adds) go last: the lowest-scored of
    the others is pruned for them.
    """
    limits = caps(config)
    pruned: list[tuple[str, dict]] = []
    for section in ITEM_SECTIONS:
        items = state.get(section, {}).get("items")
        limit = limits.get(section)
        if not items or limit is None or len(items) <= limit:
            continue
        key = _prune_order(section)
        order = [item for _, item in sorted(enumerate(items), key=lambda p: (p[1].get("id") in protect, *key(p[1]), p[0]))]
        doomed = {id(i) for i in order[: len(items) - limit]}
        pruned += [(section, yamlio.plain(i)) for i in items if id(i) in doomed]
        items[:] = [i for i in items if id(i) not in doomed]
    focus = state.get("focus")
    if focus and len(focus.get("priorities") or []) > limits["priorities"]:
        for p in focus["priorities"][limits["priorities"] :]:
            pruned.append(("focus", {"id": "priority", "text": str(p)}))
        del focus["priorities"][limits["priorities"] :]
    tools = state.get("tools")
    if tools and len(tools.get("sequences") or {}) > limits["sequences"]:
        seqs = tools["sequences"]
        ranked = sorted(seqs.items(), key=lambda kv: (-int(kv[1]), kv[0]))
        for key, count in ranked[limits["sequences"] :]:
            pruned.append(("tools", {"id": "sequence", "text": f"{key} ({count})"}))
            del seqs[key]
    return pruned


def shrink_to_fit(section: str, doc: Any, excess: int) -> list[tuple[str, dict]]:
    """Remove, in the order caps prune, entries of about `excess` bytes (at least one);
    return them as (section, plain item). Empty if nothing in the section can go."""

    def size(value) -> int:
        return len(json.dumps(yamlio.plain(value), ensure_ascii=False).encode()) + 8

    removed: list[tuple[str, dict]] = []
    freed = 0
    if section == "reflections":  # the oldest tombstones go before any insight (cogit/learn/inbox.py)
        stones = doc.get("tombstones") or []
        while stones and freed < excess:
            stone = stones.pop(0)
            freed += size(stone)
            removed.append((section, {"id": stone.get("id"), "text": stone.get("text", "")}))
    if section in ITEM_SECTIONS and freed < excess:
        items = doc.get("items") or []
        key = _prune_order(section)
        gone = set()
        for _, item in sorted(enumerate(items), key=lambda p: (*key(p[1]), p[0])):
            if freed >= excess:
                break
            freed += size(item)
            gone.add(id(item))
        removed += [(section, yamlio.plain(i)) for i in items if id(i) in gone]
        items[:] = [i for i in items if id(i) not in gone]
    elif section == "tools" and doc.get("sequences"):
        seqs = doc["sequences"]
        for seq, count in sorted(seqs.items(), key=lambda kv: (int(kv[1]), kv[0])):
            if freed >= excess:
                break
            freed += size(seq)
            removed.append(("tools", {"id": "sequence", "text": f"{seq} ({count})"}))
            del seqs[seq]
    elif section == "focus" and doc.get("priorities"):
        while doc["priorities"] and freed < excess:
            text = str(doc["priorities"].pop())
            freed += size(text)
            removed.append(("focus", {"id": "priority", "text": text}))
    return removed


def stamp_changes(doc, before, stamp: str) -> bool:
    """Set `updated_at` of every item (and of a document that has one, like focus) whose
    content changed while its `updated_at` did not; returns whether any was set."""
    if not isinstance(doc, dict) or not isinstance(before, dict):
        return False

    def content(d):
        return {k: v for k, v in yamlio.plain(d).items() if k != "updated_at"} if isinstance(d, dict) else d

    done = False
    if "updated_at" in doc and doc.get("updated_at") == before.get("updated_at"):
        if {k: v for k, v in content(doc).items() if k != "items"} != {k: v for k, v in content(before).items() if k != "items"}:
            doc["updated_at"] = stamp
            done = True
    items = doc.get("items")
    if isinstance(items, list):
        old = {i.get("id"): i for i in before.get("items") or [] if isinstance(i, dict)}
        for item in items:
            prev = old.get(item.get("id")) if isinstance(item, dict) else None
            if prev is None or item.get("updated_at") != prev.get("updated_at"):
                continue  # new, or its time was set by whoever changed it
            if content(item) != content(prev):
                item["updated_at"] = stamp
                done = True
    return done
