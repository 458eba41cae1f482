"""Semantic three-way merge of state documents.

Pure: no dulwich, no YAML, no I/O. The sync path loads the three states (merge base,
ours, theirs), calls `merge_states`, and writes the result; caps are applied after.

A state maps a section name to its plain document (see schemas/*.json). The rules:

* list items (``items: [{id, ...}]``) are matched by ``id``; the result holds the union;
* counters add both sides' increments: ``base + (ours - base) + (theirs - base)``;
* timestamps take the latest value (``created_at`` takes the earliest);
* any other field changed on one side takes that side; changed on both sides to different
  values, the newer change wins (the item's or document's ``updated_at``) and a
  `FieldConflict` records the value that lost;
* an item (or tool entry, or sequence) deleted on one side is deleted if the other side left
  it unchanged, and kept with the other side's changes otherwise;
* config, and any section this module does not know, merges field-wise recursively.

The result depends only on the three inputs, never on which side is called "ours"
(`merge_states(b, x, y).state == merge_states(b, y, x).state`, key and item order
included), so two machines that merge each other's histories write identical files.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

__all__ = ["FieldConflict", "MergeResult", "merge_states"]


@dataclass
class FieldConflict:
    """One field both sides changed to different values, and which value won."""

    section: str
    item_id: str | None  # None for document-level fields
    field: str  # dotted path for nested fields, e.g. "caps.learnings"
    kept: Any  # None also stands for "the field was removed"
    other: Any
    kept_side: str  # "ours" or "theirs"
    reason: str = ""  # why this value won, naming both sides' updated_at


@dataclass
class MergeResult:
    state: dict[str, dict]
    conflicts: list[FieldConflict] = field(default_factory=list)


class _Missing:
    """A key that is absent (distinct from a key whose value is None)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __deepcopy__(self, memo):
        return self


MISSING: Any = _Missing()

# Field policies.
COUNTER = "counter"
LATEST = "latest"
EARLIEST = "earliest"
PLAIN = "plain"

LIST_SECTIONS = ("heuristics", "learnings", "avoidances", "reflections", "rules")

# Policies of item fields, common to every list section, then per section.
_ITEM_COMMON = {"updated_at": LATEST, "created_at": EARLIEST}
_ITEM_FIELDS: dict[str, dict[str, str]] = {
    "heuristics": {"use_count": COUNTER, "evidence": COUNTER, "last_used": LATEST},
    "rules": {
        "detections": COUNTER,
        "suppressions": COUNTER,
        "last_detected": LATEST,
        "last_suppressed": LATEST,
        "misses": COUNTER,
    },
    # reflections.yaml's review inbox and tombstones (cogit/learn/inbox.py), merged by id like items.
    "reflections.tombstones": {"dropped": COUNTER, "last_dropped_at": LATEST},
}
# Lists of id'd entries beside `items` in a section: merged entry by entry, never as one value.
_EXTRA_LISTS = {"reflections": ("proposals", "tombstones"), "rules": ("tombstones",)}

# Policies of document-level fields of the non-list sections.
_DOC_FIELDS: dict[str, dict[str, str]] = {
    "engagement": {
        "meaningful_interactions": COUNTER,
        "total_interactions": COUNTER,
        "last_meaningful_at": LATEST,
    },
    "focus": {"updated_at": LATEST},
    "tools": {"sessions": COUNTER},
}
_TOOL_STAT_FIELDS = {
    "calls": COUNTER,
    "failures": COUNTER,
    "duration_ms_total": COUNTER,
    "timed_calls": COUNTER,
    "last_used": LATEST,
}


# --------------------------------------------------------------------------- helpers


def _canon(value: Any) -> str:
    """A total, side-independent order on values, used only to break exact ties."""
    if value is MISSING:
        return ""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _ts_key(value: Any) -> tuple:
    """Order timestamps: missing < null < unparsable < real instants (by UTC time).

    The raw string is the last element so that two spellings of one instant still
    order deterministically.
    """
    if value is MISSING:
        return (0,)
    if value is None:
        return (1,)
    if isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return (2, value)
        if dt.tzinfo is None:  # treat naive times as UTC, as cogit writes UTC only
            dt = dt.replace(tzinfo=timezone.utc)
        return (3, dt.astimezone(timezone.utc), value)
    return (2, _canon(value))


def _union(base: dict, ours: dict, theirs: dict) -> list:
    """All keys, in an order fixed by the inputs (not by hashing), so that conflict
    records come out in the same order on every run."""
    return list(dict.fromkeys([*ours, *theirs, *base]))


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _ordered_keys(base: dict, ours: dict, theirs: dict, keep: set) -> list:
    """Order merged dict keys like list items: no side is favoured, new keys by name."""
    return _merge_order(keep, list(base), list(ours), list(theirs), lambda k: _canon(k))


def _merge_order(
    keep: Any, base_order: list, ours_order: list, theirs_order: list,
    gap_key: Callable[[Any], Any],
) -> list:
    """Order the merged keys (item ids, dict keys) without favouring either side.

    Keys both sides hold ("anchors") keep their common order; if the sides disagree,
    the side that reordered relative to the base wins (else a fixed rule picks one).
    Every other key follows the anchor it followed on its own side; keys from the two
    sides that land in the same gap interleave by `gap_key`, which keeps each side's
    own order. Merging the result again with either side reproduces the same order.
    """
    lo = [k for k in ours_order if k in keep]
    lt = [k for k in theirs_order if k in keep]
    in_t = set(lt)
    anchors_o = [k for k in lo if k in in_t]
    anchors_set = set(anchors_o)
    anchors_t = [k for k in lt if k in anchors_set]
    if anchors_o == anchors_t:
        anchors = anchors_o
    else:
        base_pos = {k: i for i, k in enumerate(base_order)}

        def reordered(seq: list) -> bool:
            in_base = [k for k in seq if k in base_pos]
            return in_base != sorted(in_base, key=base_pos.__getitem__)

        ro, rt = reordered(anchors_o), reordered(anchors_t)
        if ro != rt:
            anchors = anchors_o if ro else anchors_t
        else:
            anchors = min(anchors_o, anchors_t, key=lambda s: [_canon(k) for k in s])

    def gaps(seq: list) -> dict:
        """anchor (None for the head) -> the non-anchor keys after it on this side."""
        out: dict = {None: []}
        last = None
        for k in seq:
            if k in anchors_set:
                last = k
                out.setdefault(k, [])
            else:
                out[last].append(k)
        return out

    go, gt = gaps(lo), gaps(lt)

    def interleave(a: list, b: list) -> list:
        out, i, j = [], 0, 0
        while i < len(a) and j < len(b):
            if gap_key(a[i]) <= gap_key(b[j]):
                out.append(a[i])
                i += 1
            else:
                out.append(b[j])
                j += 1
        return out + a[i:] + b[j:]

    result = interleave(go.get(None, []), gt.get(None, []))
    for a in anchors:
        result.append(a)
        result.extend(interleave(go.get(a, []), gt.get(a, [])))
    return result


class _Ctx:
    """Where the merge is (for conflict records) and how to tell the newer side."""

    def __init__(self, section: str, item_id: str | None, ours_stamp: Any, theirs_stamp: Any):
        self.section = section
        self.item_id = item_id
        self.stamps = {"ours": ours_stamp, "theirs": theirs_stamp}
        self.ours_newer = _side_order(ours_stamp, theirs_stamp)

    def pick(self, path: str, ours: Any, theirs: Any, conflicts: list) -> Any:
        """Both sides changed a field to different values: keep the newer, record the other."""
        order = self.ours_newer
        if order == 0:  # same (or no) timestamp: fall back to a value order, symmetric
            order = 1 if _canon(ours) > _canon(theirs) else -1
        kept, other, side = (ours, theirs, "ours") if order > 0 else (theirs, ours, "theirs")
        other_side = "theirs" if side == "ours" else "ours"
        won, lost = (_stamp_text(self.stamps[side]), _stamp_text(self.stamps[other_side]))
        if self.ours_newer:
            reason = f"kept the newer change: updated_at {won} against {lost}"
        else:
            reason = (f"no side is newer (updated_at {won} on both sides): kept by a fixed order of the values, "
                      "so both machines keep the same one")
        conflicts.append(
            FieldConflict(
                section=self.section,
                item_id=self.item_id,
                field=path,
                kept=None if kept is MISSING else copy.deepcopy(kept),
                other=None if other is MISSING else copy.deepcopy(other),
                kept_side=side,
                reason=reason,
            )
        )
        return kept


def _stamp_text(stamp: Any) -> str:
    return "none" if stamp is MISSING or stamp is None else str(stamp)


def _side_order(ours_stamp: Any, theirs_stamp: Any) -> int:
    ko, kt = _ts_key(ours_stamp), _ts_key(theirs_stamp)
    return (ko > kt) - (ko < kt)


# --------------------------------------------------------------------------- values


def _merge_plain(path: str, base: Any, ours: Any, theirs: Any, ctx: _Ctx, conflicts: list) -> Any:
    """Classic three-way merge of one value; dicts on both sides merge key by key."""
    if ours == theirs:
        return ours
    if isinstance(ours, dict) and isinstance(theirs, dict):
        b = base if isinstance(base, dict) else {}
        return _merge_mapping(path, b, ours, theirs, ctx, conflicts, lambda _k: PLAIN)
    if ours == base:
        return theirs
    if theirs == base:
        return ours
    return ctx.pick(path, ours, theirs, conflicts)


def _merge_field(
    policy: str, path: str, base: Any, ours: Any, theirs: Any, ctx: _Ctx, conflicts: list
) -> Any:
    if policy == COUNTER:
        if ours is MISSING and theirs is MISSING:
            return MISSING
        vals = [0 if v is MISSING else v for v in (base, ours, theirs)]
        if all(_is_count(v) for v in vals):
            b, o, t = vals
            # A counter never goes below zero, even if both sides reset it.
            return max(0, b + (o - b) + (t - b))
    elif policy == LATEST:
        return max(ours, theirs, key=_ts_key)
    elif policy == EARLIEST:
        real = [v for v in (ours, theirs) if isinstance(v, str) and _ts_key(v)[0] == 3]
        if real:
            return min(real, key=_ts_key)
    # PLAIN, and counters or creation times that hold something unexpected.
    return _merge_plain(path, base, ours, theirs, ctx, conflicts)


def _merge_mapping(
    prefix: str,
    base: dict,
    ours: dict,
    theirs: dict,
    ctx: _Ctx,
    conflicts: list,
    policy_of: Callable[[str], str],
) -> dict:
    """Merge dicts key by key; a key absent on a side is MISSING there."""
    out: dict = {}
    merged: dict = {}
    for k in _union(base, ours, theirs):
        path = f"{prefix}.{k}" if prefix else str(k)
        v = _merge_field(
            policy_of(k), path, base.get(k, MISSING), ours.get(k, MISSING),
            theirs.get(k, MISSING), ctx, conflicts,
        )
        if v is not MISSING:
            merged[k] = v
    for k in _ordered_keys(base, ours, theirs, set(merged)):
        out[k] = merged[k]
    return out


def _merge_entries(
    base: dict, ours: dict, theirs: dict, merge_one: Callable[[Any, Any, Any, Any], Any]
) -> dict:
    """Merge keyed entries (list items, tools, sequences) with delete-vs-change rules.

    Present on both sides: merge_one(key, base_or_MISSING, ours, theirs).
    Present on one side only: if the base had it, the other side deleted it, and the
    entry survives only if this side changed it; if the base did not, it is new: keep it.
    """
    merged: dict = {}
    for k in dict.fromkeys([*ours, *theirs]):
        b = base.get(k, MISSING)
        if k in ours and k in theirs:
            merged[k] = merge_one(k, b, ours[k], theirs[k])
            continue
        only = ours[k] if k in ours else theirs[k]
        if b is MISSING or only != b:
            merged[k] = only
    return merged


# --------------------------------------------------------------------------- list items


def _item_key(item: Any) -> Any:
    if isinstance(item, dict) and isinstance(item.get("id"), str):
        return item["id"]
    # Malformed item without an id: identify it by its whole content.
    return ("content", _canon(item))


def _index(items: list) -> tuple[dict, list]:
    """id -> item, and the id order; a repeated id keeps its first occurrence."""
    by_id: dict = {}
    for it in items:
        by_id.setdefault(_item_key(it), it)
    return by_id, list(by_id)


def _created_key(item: Any, key: Any) -> tuple:
    """New items from the two sides interleave by creation time, then id."""
    created = item.get("created_at") if isinstance(item, dict) else None
    return (_ts_key(created if created is not None else MISSING), _canon(key))


def _merge_items(section: str, base: list, ours: list, theirs: list, conflicts: list, key: str = "items") -> list:
    policies = {**_ITEM_COMMON, **_ITEM_FIELDS.get(section if key == "items" else f"{section}.{key}", {})}
    b_by, b_order = _index(base)
    o_by, o_order = _index(ours)
    t_by, t_order = _index(theirs)

    def merge_one(key, b, o, t):
        if not (isinstance(o, dict) and isinstance(t, dict)):
            ctx = _Ctx(section, None, MISSING, MISSING)
            return _merge_plain("items", b, o, t, ctx, conflicts)
        ctx = _Ctx(section, key if isinstance(key, str) else None,
                   o.get("updated_at", MISSING), t.get("updated_at", MISSING))
        bd = b if isinstance(b, dict) else {}
        return _merge_mapping("", bd, o, t, ctx, conflicts,
                              lambda f: policies.get(f, PLAIN))

    keep = _merge_entries(b_by, o_by, t_by, merge_one)
    order = _merge_order(keep, b_order, o_order, t_order, lambda k: _created_key(keep[k], k))
    return [keep[k] for k in order]


# --------------------------------------------------------------------------- sections


def _merge_keyed_map(path: str, base: Any, ours: dict, theirs: dict, merge_one) -> dict:
    """A dict of entries (tools by name, sequences by key) with delete-vs-change rules."""
    bd = base if isinstance(base, dict) else {}
    merged = _merge_entries(bd, ours, theirs, merge_one)
    return {k: merged[k] for k in _ordered_keys(bd, ours, theirs, set(merged))}


def _merge_doc(section: str, base: dict, ours: dict, theirs: dict, conflicts: list) -> dict:
    fields = _DOC_FIELDS.get(section, {})
    # Document-level conflicts (focus.current, config values) go to the newer document.
    ctx = _Ctx(section, None, ours.get("updated_at", MISSING), theirs.get("updated_at", MISSING))

    # Keys whose value is a collection of entries, merged entry by entry.
    special: dict[str, Callable[[Any, Any, Any], Any]] = {}
    if section in LIST_SECTIONS or section not in _DOC_FIELDS and section != "config":
        special["items"] = lambda b, o, t: _merge_items(
            section, b if isinstance(b, list) else [], o, t, conflicts
        )
        kinds = {"items": list}
        if section == "rules":
            # A project's ledger cache of global rules: counters add up like the rules' own.
            def merge_evidence(rid, b, o, t):
                if not (isinstance(o, dict) and isinstance(t, dict)):
                    return _merge_plain(f"global_evidence.{rid}", b, o, t, ctx, conflicts)
                return _merge_mapping(f"global_evidence.{rid}", b if isinstance(b, dict) else {}, o, t,
                                      ctx, conflicts, lambda f: _ITEM_FIELDS["rules"].get(f, PLAIN))

            special["global_evidence"] = lambda b, o, t: _merge_keyed_map("global_evidence", b, o, t, merge_evidence)
            kinds["global_evidence"] = dict
            # Detector switches (`cogit rules off/on`): one entry per detector, never the whole map.
            special["detectors"] = lambda b, o, t: _merge_keyed_map(
                "detectors", b, o, t, lambda name, bb, oo, tt: _merge_plain(f"detectors.{name}", bb, oo, tt, ctx, conflicts))
            kinds["detectors"] = dict
        for extra in _EXTRA_LISTS.get(section, ()):
            special[extra] = lambda b, o, t, extra=extra: _merge_items(
                section, b if isinstance(b, list) else [], o, t, conflicts, extra
            )
            kinds[extra] = list
    elif section == "tools":

        def merge_tool(name, b, o, t):
            if not (isinstance(o, dict) and isinstance(t, dict)):
                return _merge_plain(f"tools.{name}", b, o, t, ctx, conflicts)
            return _merge_mapping(f"tools.{name}", b if isinstance(b, dict) else {}, o, t,
                                  ctx, conflicts, lambda f: _TOOL_STAT_FIELDS.get(f, PLAIN))

        def merge_seq(name, b, o, t):
            return _merge_field(COUNTER, f"sequences.{name}", b, o, t, ctx, conflicts)

        special["tools"] = lambda b, o, t: _merge_keyed_map("tools", b, o, t, merge_tool)
        special["sequences"] = lambda b, o, t: _merge_keyed_map("sequences", b, o, t, merge_seq)
        kinds = {"tools": dict, "sequences": dict}
    else:
        kinds = {}

    merged: dict = {}
    for k in _union(base, ours, theirs):
        b, o, t = base.get(k, MISSING), ours.get(k, MISSING), theirs.get(k, MISSING)
        if k in special and isinstance(o, kinds[k]) and isinstance(t, kinds[k]):
            v = special[k](b, o, t)
        else:
            v = _merge_field(fields.get(k, PLAIN), k, b, o, t, ctx, conflicts)
        if v is not MISSING:
            merged[k] = v
    return {k: merged[k] for k in _ordered_keys(base, ours, theirs, set(merged))}


def merge_states(
    base: dict[str, dict] | None, ours: dict[str, dict], theirs: dict[str, dict]
) -> MergeResult:
    """Three-way merge of two states that share `base` (None: unrelated histories).

    A section missing from the base merges as if from an empty document. A section
    missing from one side was deleted there: it goes if the other side left it
    unchanged and stays (as the other side has it) otherwise. Inputs are not modified.
    """
    base = base or {}
    conflicts: list[FieldConflict] = []

    def merge_one(section, b, o, t):
        if not (isinstance(o, dict) and isinstance(t, dict)):  # not a document: treat as a value
            ctx = _Ctx(section, None, MISSING, MISSING)
            return _merge_plain("*", b, o, t, ctx, conflicts)
        bd = b if isinstance(b, dict) else {}
        return _merge_doc(section, bd, o, t, conflicts)

    merged = _merge_entries(base, ours, theirs, merge_one)
    state = {k: merged[k] for k in _ordered_keys(base, ours, theirs, set(merged))}
    # Results share structure with the inputs; hand back an independent copy.
    return MergeResult(state=copy.deepcopy(state), conflicts=conflicts)
