"""`cogit import nox PATH/state.json`: nox-cognitive's cognitive state.

The format (nox-cognitive's `cognitive/state.json`, as its author describes it):

    {"focus": {"current": "...", "priorities": ["..."], "lastUpdated": TIME},
     "heuristics": [{"text": "...", "source": "...", "useCount": 3, "lastUsed": TIME}],
     "learnings": [{"text": "...", "category": "insight|feedback|pattern|mistake",
                    "context": "...", "timestamp": TIME}],
     "avoidances": ["..."],
     "engagement": {"meaningfulInteractions": 12, "totalInteractions": 40, "lastMeaningfulAt": TIME}}

TIME is ISO 8601 or epoch milliseconds (JavaScript's two usual forms); snake_case keys are
accepted too. What each part becomes:

- focus: cogit's focus and priorities, unless cogit's focus was set later than nox's
  `lastUpdated` (the newer focus wins, as in a merge); its time is kept.
- heuristics: heuristics with `use_count` and `last_used`; one already in memory (same text)
  keeps the larger use count and the later last use, so a second import changes nothing.
- learnings: learnings with their category, context and original time (`created_at`);
  an unknown category is reported and imported as `insight`.
- avoidances: avoidances.
- engagement (global scope only): the counts are added to cogit's; the commit records the
  counts it took (`Cogit-Engagement`), and a later import adds only what grew since.

A syntax error refuses the file (with its line and column); an entry of the wrong shape is
reported with its line and the rest is imported.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field

from cogit.imports import (MAX_ENTRIES, ImportRefused, Report, allow_for, clean_text, fingerprint, iso, parse_time,
                           read_file, stored_form)

CATEGORIES = ("insight", "feedback", "pattern", "mistake")
LISTS = ("heuristics", "learnings", "avoidances")


@dataclass
class Entry:
    line: int
    text: str
    time: float | None = None  # learnings: when learned; heuristics: last used
    use_count: int = 0
    category: str = "insight"
    context: str | None = None


@dataclass
class Parsed:
    name: str
    focus: dict | None = None  # {"current", "priorities", "time"}
    lists: dict[str, list[Entry]] = field(default_factory=dict)
    engagement: dict | None = None  # {"meaningful", "total", "last"}


def _get(obj: dict, *names):
    for n in names:
        if n in obj:
            return obj[n]
    return None


def _walk(text: str) -> dict[str, tuple[int, object]]:
    """Top-level key -> (line, value); for the lists, value is [(line, element), ...].

    The whole text already parsed as JSON (so this walk meets no syntax error); it re-reads
    it with the same decoder to learn on which line each entry starts."""
    dec = json.JSONDecoder()
    ws = re.compile(r"[ \t\n\r]*")
    lines = [0, 1]  # [position counted up to, line there]: counting forward only

    def line_at(i: int) -> int:
        lines[1] += text.count("\n", lines[0], i)
        lines[0] = i
        return lines[1]

    def skip(i: int) -> int:
        return ws.match(text, i).end()

    out: dict[str, tuple[int, object]] = {}
    i = skip(0)
    i = skip(i + 1)  # "{"
    if text[i] == "}":
        return out
    while True:
        key, i = dec.raw_decode(text, i)
        i = skip(skip(i) + 1)  # ":"
        start = line_at(i)
        if key in LISTS and text[i] == "[":
            elems = []
            i = skip(i + 1)
            if text[i] == "]":
                i += 1
            else:
                while True:
                    line = line_at(i)
                    value, i = dec.raw_decode(text, i)
                    elems.append((line, value))
                    i = skip(i)
                    if text[i] == ",":
                        i = skip(i + 1)
                        continue
                    i += 1  # "]"
                    break
            out[key] = (start, elems)
        else:
            value, i = dec.raw_decode(text, i)
            out[key] = (start, value)
        i = skip(i)
        if text[i] == ",":
            i = skip(i + 1)
            continue
        return out


def load(path: str, report: Report) -> tuple[Parsed, str]:
    data = read_file(path, "nox-cognitive state.json")
    name = os.path.basename(path)
    report.files.append(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise ImportRefused(f"{path}:{line}: not UTF-8 text (byte {e.start})", hint="Give nox-cognitive's state.json (JSON text); nothing was imported.") from None
    try:
        doc = json.loads(text)
        if not isinstance(doc, dict):
            raise ImportRefused(f"{path}: the top level is {type(doc).__name__}, not an object",
                                hint="Give nox-cognitive's cognitive/state.json; nothing was imported.")
        found = _walk(text)
    except json.JSONDecodeError as e:
        raise ImportRefused(f"{path}:{e.lineno}:{e.colno}: not valid JSON: {e.msg}",
                            hint="Fix the file (or give nox-cognitive's cognitive/state.json); nothing was imported.") from None
    except RecursionError:
        raise ImportRefused(f"{path}: nested too deeply to be a nox-cognitive state", hint="Nothing was imported.") from None
    parsed = Parsed(name)
    known = set(LISTS) | {"focus", "engagement"}
    if not known & set(found):
        raise ImportRefused(f"{path}: none of focus, heuristics, learnings, avoidances, engagement is there; "
                            "this is not a nox-cognitive state", hint="Give nox-cognitive's cognitive/state.json.")
    if "focus" in found:
        parsed.focus = _focus(name, *found["focus"], report)
    for key in LISTS:
        if key not in found:
            continue
        line, elems = found[key]
        if not isinstance(elems, list):
            report.problem(name, line, f"{key} is {type(elems).__name__}, not a list (skipped)")
            continue
        if len(elems) > MAX_ENTRIES:
            report.problem(name, line, f"{key} has {len(elems):,} entries; only the first {MAX_ENTRIES:,} are read")
        parsed.lists[key] = [e for e in (_entry(key, name, ln, v, report) for ln, v in elems[:MAX_ENTRIES]) if e]
    if "engagement" in found:
        parsed.engagement = _engagement(name, *found["engagement"], report)
    return parsed, f"{name} sha256:{fingerprint(data)}"


def _focus(name, line, value, report) -> dict | None:
    if not isinstance(value, dict):
        report.problem(name, line, "focus is not an object (skipped)")
        return None
    current = _get(value, "current")
    text = ""
    if current not in (None, ""):
        text, why = clean_text(current)
        if why:
            report.problem(name, line, f"focus.current: {why} (focus skipped)")
            return None
    priorities = []
    raw = _get(value, "priorities") or []
    if not isinstance(raw, list):
        report.problem(name, line, "focus.priorities is not a list (skipped)")
        raw = []
    for p in raw[:50]:
        t, why = clean_text(p, 500)
        if why:
            report.problem(name, line, f"focus priority: {why} (skipped)")
        else:
            priorities.append(t)
    if len(raw) > 50:
        report.problem(name, line, f"focus has {len(raw)} priorities; only the first 50 are read")
    t, why = parse_time(_get(value, "lastUpdated", "last_updated", "updatedAt"))
    if why:
        report.problem(name, line, f"focus.lastUpdated: {why} (time not kept)")
    if not text and not priorities:
        return None
    return {"current": text, "priorities": priorities, "time": t}


def _entry(key: str, name: str, line: int, value, report: Report) -> Entry | None:
    singular = key[:-1]
    if isinstance(value, str) or key == "avoidances":
        text, why = clean_text(value)
        if why:
            report.problem(name, line, f"{singular}: {why} (skipped)")
            return None
        return Entry(line, text)
    if not isinstance(value, dict):
        report.problem(name, line, f"{singular}: expected an object, found {type(value).__name__} (skipped)")
        return None
    text, why = clean_text(_get(value, "text"))
    if why:
        report.problem(name, line, f"{singular} text: {why} (skipped)")
        return None
    entry = Entry(line, text)
    if key == "heuristics":
        count = _get(value, "useCount", "use_count")
        if count is not None:
            if isinstance(count, bool) or not isinstance(count, (int, float)) or count != count or not 0 <= count <= 2**53 - 1:
                report.problem(name, line, f"heuristic useCount {str(count)[:20]!r} is not a count (taken as 0)")
            else:
                entry.use_count = int(count)
        entry.time, why = parse_time(_get(value, "lastUsed", "last_used"))
        if why:
            report.problem(name, line, f"heuristic lastUsed: {why} (not kept)")
    if key == "learnings":
        category = _get(value, "category")
        if category in CATEGORIES:
            entry.category = category
        elif category is not None:
            report.problem(name, line, f"learning category {str(category)[:30]!r} is not one of {', '.join(CATEGORIES)} (imported as insight)")
        context = _get(value, "context")
        if context not in (None, ""):
            entry.context, why = clean_text(context)
            if why:
                report.problem(name, line, f"learning context: {why} (context not kept)")
        entry.time, why = parse_time(_get(value, "timestamp", "created_at", "createdAt"))
        if why:
            report.problem(name, line, f"learning timestamp: {why} (the import time is used)")
    return entry


def _engagement(name, line, value, report) -> dict | None:
    if not isinstance(value, dict):
        report.problem(name, line, "engagement is not an object (skipped)")
        return None
    out = {}
    for key, names in (("meaningful", ("meaningfulInteractions", "meaningful_interactions")),
                       ("total", ("totalInteractions", "total_interactions"))):
        v = _get(value, *names)
        if v is None:
            v = 0
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 2**53 - 1:
            report.problem(name, line, f"engagement {names[0]} {str(v)[:20]!r} is not a count (engagement skipped)")
            return None
        out[key] = v
    if out["meaningful"] > out["total"]:
        report.problem(name, line, "engagement: more meaningful interactions than interactions (engagement skipped)")
        return None
    out["last"], why = parse_time(_get(value, "lastMeaningfulAt", "last_meaningful_at"))
    if why:
        report.problem(name, line, f"engagement lastMeaningfulAt: {why} (not kept)")
    return out


_ENGAGEMENT = re.compile(r"^meaningful=(\d{1,16}) total=(\d{1,16})$")


def _previous_engagement(home, branch: str) -> tuple[int, int]:
    """The engagement counts the last nox import on this branch took (0, 0 if none)."""
    from cogit.store.git import repo as git
    from cogit.store.git.provenance import parse

    repo = git.open_repo(home.memory)
    try:
        for info in git.walk(repo, git.head(repo, branch)):
            if "Cogit-Engagement: " not in info.message:
                continue
            _, _, tr = parse(info.message)
            m = _ENGAGEMENT.match(tr.get("Cogit-Engagement", ""))
            if tr.get("Cogit-Event") == "import.nox" and m:
                return int(m.group(1)), int(m.group(2))
    finally:
        repo.close()
    return 0, 0


def apply(home, parsed: Parsed, report: Report, branch: str):
    from cogit.store.git import repo as git
    from cogit.store.state.documents import new_id
    from cogit.domain.times import now_iso

    def fn(state):
        report.start_apply()
        allow = allow_for(home, state, branch)
        now = now_iso()
        trailers = {}
        if parsed.focus:
            _apply_focus(state, parsed.focus, allow, now, report)
        for key in LISTS:
            items = state[key]["items"]
            by_text = {str(i.get("text")): i for i in items}
            for e in parsed.lists.get(key, []):
                text = stored_form(e.text, allow)  # as memory keeps it; the write path redacts the item
                old = by_text.get(text)
                if old is not None:
                    if key == "heuristics" and _merge_heuristic(old, e, now):
                        report.count("heuristics updated")
                    continue
                item = {"id": new_id(key, state), "text": e.text}
                if key == "learnings":
                    item["category"] = e.category
                    if e.context:
                        item["context"] = e.context
                if key == "heuristics":
                    item["use_count"] = e.use_count
                    item["last_used"] = iso(e.time) if e.time else None
                created = iso(e.time) if (key == "learnings" and e.time) else now
                item.update(source="import", created_at=created, updated_at=now)
                items.append(item)
                by_text[text] = item
                report.count(key)
        if parsed.engagement:
            if branch != git.MAIN:
                report.apply_notes.append("engagement is kept in global memory only; import without --project to add it")
            else:
                trailers["Cogit-Engagement"] = f"meaningful={parsed.engagement['meaningful']} total={parsed.engagement['total']}"
                if _apply_engagement(home, state, parsed.engagement, branch):
                    report.count("engagement")
        if not report.added:
            return None
        from cogit.store.write.transact import Change

        what = ", ".join(f"{n} {k}" for k, n in report.added.items())
        return Change(f"Import from nox-cognitive ({parsed.name}): {what}", trailers=trailers)

    return fn


def _apply_focus(state, focus: dict, allow, now: str, report: Report) -> None:
    from cogit.imports import iso as to_iso
    from cogit.domain.ledger import parse_time as ledger_time

    doc = state["focus"]
    if (doc.get("current") == stored_form(focus["current"], allow)
            and list(doc.get("priorities") or []) == [stored_form(p, allow) for p in focus["priorities"]]):
        return
    mine = ledger_time(doc.get("updated_at"))
    if doc.get("current") and mine and (focus["time"] is None or focus["time"] <= mine):
        report.apply_notes.append(f"focus not imported: cogit's focus ({doc.get('updated_at')}) is newer than nox's"
                            + (f" ({to_iso(focus['time'])})" if focus["time"] else " (which has no time)"))
        return
    doc["current"] = focus["current"]  # the write path redacts what it stores
    doc["priorities"] = list(focus["priorities"])
    doc["updated_at"] = to_iso(focus["time"]) if focus["time"] else now
    report.count("focus")


def _merge_heuristic(old: dict, e: Entry, now: str) -> bool:
    from cogit.domain.ledger import parse_time as ledger_time

    changed = False
    if e.use_count > int(old.get("use_count") or 0):
        old["use_count"] = e.use_count
        changed = True
    if e.time and (ledger_time(old.get("last_used")) or 0) < int(e.time):
        old["last_used"] = iso(e.time)
        changed = True
    if changed:
        old["updated_at"] = now
    return changed


def _apply_engagement(home, state, eng: dict, branch: str) -> bool:
    from cogit.domain.ledger import parse_time as ledger_time

    doc = state["engagement"]
    prev_m, prev_t = _previous_engagement(home, branch)
    add_m, add_t = max(0, eng["meaningful"] - prev_m), max(0, eng["total"] - prev_t)
    add_m = min(add_m, add_t) if add_t else 0
    changed = False
    if add_t:
        doc["meaningful_interactions"] = int(doc.get("meaningful_interactions") or 0) + add_m
        doc["total_interactions"] = int(doc.get("total_interactions") or 0) + add_t
        changed = True
    if eng["last"] and (ledger_time(doc.get("last_meaningful_at")) or 0) < int(eng["last"]):
        doc["last_meaningful_at"] = iso(eng["last"])
        changed = True
    return changed
