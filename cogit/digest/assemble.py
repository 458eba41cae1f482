"""The digest: what the agent is told at session start, compiled when memory changes.

Compiling needs the state read from git and YAML, so it happens after each commit
(the write path calls cogit/store/cache/digest.py, which reads the states and keeps
the result), never in a hook. This module is the pure part: states in, text out.

The digest has a budget in characters (config digest.max_chars, default 2000,
about 500 tokens, never above 9000), shared by the sections by rank. When items do
not fit, it says how many were cut and how to see them. An empty memory says, in
one line, that memory is active and how the user adds to it.
"""

from __future__ import annotations

HARD_LIMIT = 9000
TIME_RESERVE = 80  # the hook prepends the time of day at injection time
OPEN = "<cogit-memory>"
CLOSE = "</cogit-memory>"


def budget(config) -> int:
    value = int(((config or {}).get("digest") or {}).get("max_chars", 2000))
    return max(200, min(value, HARD_LIMIT))


def _items(state, section):
    return list((state.get(section) or {}).get("items") or [])


def _ranked(state, config=None) -> dict[str, list[dict]]:
    """Each section by its documented score (cogit/domain/rank.py), never by file order."""
    from cogit.domain import rank

    out = {s: rank.ranked(s, _items(state, s), config=config) for s in ("heuristics", "learnings", "avoidances", "rules")}
    # Reflections' insights and patterns (not their open questions), newest first like learnings.
    out["reflections"] = rank.ranked("reflections", [i for i in _items(state, "reflections")
                                                     if i.get("kind", "insight") in ("insight", "pattern")], config=config)
    return out


def _line(section: str, item: dict, config=None) -> str:
    from cogit.frame import neutral

    # An item's text is whatever a person, a pull, a tool or a model wrote: no tag in it
    # may end the block or open one (cogit/frame.py). The id is cogit's, but a pull brings it.
    item = dict(item, id=neutral(str(item.get("id", ""))))
    text = neutral(" ".join(str(item.get("text", "")).split()))
    if section == "heuristics" and int(item.get("use_count", 0)):
        return f"• {text} (used {item['use_count']}×) [{item['id']}]"
    if section == "learnings":
        return f"• [{item.get('category', 'insight')}] {text} [{item['id']}]"
    if section == "rules":
        import time

        from cogit.domain import ledger

        c = ledger.of_item(item, time.time(), config)
        return f"• {text} [{item['id']}] (confidence {c:.0%})"
    return f"• {text} [{item['id']}]"


HEADINGS = {
    "heuristics": "What works:",
    "learnings": "Recent learnings:",
    "avoidances": "Avoid:",
    "rules": "Learned rules:",
    "reflections": "Insights from reflection:",
}


EMPTY = ('cogit memory is active and empty so far. The user adds to it by saying "remember this: ..." '
         'in a prompt, or with `cogit add learning "..."` in a shell.')
FOOTER_RESERVE = 140  # room kept for the "(Not shown ...)" line


def _interleave(lists: list[list[dict]]) -> list[dict]:
    """Rank by rank across scopes, the project's item first at each rank."""
    out = []
    for rank in range(max((len(x) for x in lists), default=0)):
        out += [x[rank] for x in lists if rank < len(x)]
    return out


def compile_text(scopes: list[tuple[str, dict]], config) -> dict:
    """Compile the digest of one or more scopes (later scopes win: project over global).

    Sections share the budget by rank: the best item of every section goes in first,
    then the second of each, and so on, until nothing more fits, so the budget is
    filled before anything is cut. `digest.<section>` (config) is a floor: that many
    of a section's best items come before any section's extras.

    Returns {"text", "chars", "tokens", "cut": {section: n}, "shown": n}.
    """
    limit = budget(config) - TIME_RESERVE
    per = (config or {}).get("digest") or {}
    focus_current, priorities = "", []
    for _, state in scopes:
        focus = state.get("focus") or {}
        if focus.get("current"):
            focus_current = str(focus["current"])
            priorities = [str(p) for p in focus.get("priorities") or []]
    ranked = [{s: [dict(i, _scope=name) for i in items] for s, items in _ranked(state, config).items()}
              for name, state in reversed(scopes)]  # the project first
    merged = {section: _interleave([r[section] for r in ranked]) for section in HEADINGS}
    from cogit.domain import rank  # the rotating slot: every item gets its turn within the floor

    turn = sum(int(((s.get("tools") or {}).get("sessions")) or 0) for _, s in scopes)
    merged = {section: rank.rotate(items, int(per.get(section, 5)), turn) for section, items in merged.items()}
    from cogit.frame import neutral

    head = [OPEN]
    if focus_current:
        head.append(f"Focus: {neutral(' '.join(focus_current.split()))}")
    if priorities:
        head.append("Priorities: " + "; ".join(f"{i}. {neutral(' '.join(p.split()))}" for i, p in enumerate(priorities, 1)))
    order = list(HEADINGS)
    queue = sorted(
        ((rank >= int(per.get(section, 0)), rank, order.index(section), section, item)
         for section, items in merged.items() for rank, item in enumerate(items)),
        key=lambda t: t[:3],
    )
    size = sum(len(x) + 1 for x in head) + len(CLOSE) + FOOTER_RESERVE
    chosen: dict[str, list[str]] = {section: [] for section in HEADINGS}
    for *_, section, item in queue:
        line = _line(section, item, config)
        cost = len(line) + 1 + (0 if chosen[section] else len(HEADINGS[section]) + 1)
        if size + cost > limit:
            continue  # a long item does not stop shorter ones of lower rank from filling the rest
        chosen[section].append(line)
        size += cost
    lines = list(head)
    cut: dict[str, int] = {}
    shown = 0
    for section, heading in HEADINGS.items():
        if chosen[section]:
            lines += [heading, *chosen[section]]
            shown += len(chosen[section])
        if len(merged[section]) > len(chosen[section]):
            cut[section] = len(merged[section]) - len(chosen[section])
    if cut:
        parts = ", ".join(f"{n} {s}" for s, n in cut.items())
        lines.append(f"(Not shown to fit the budget: {parts}. See them with `cogit show`.)")
    if shown == 0 and not focus_current and not cut:
        # Empty memory: one line, so the model (and through it the user) knows memory exists.
        lines.append(EMPTY)
    lines.append(CLOSE)
    text = "\n".join(lines)
    if len(text) > limit:  # a very long focus: cut it, say so
        text = text[: limit - len(CLOSE) - 40] + "\n(cut to the digest budget)\n" + CLOSE
    return {"text": text, "chars": len(text), "tokens": (len(text) + 3) // 4, "cut": cut, "shown": shown}


FRESH = 12  # newest items per scope the hooks may announce at a prompt (see cogit/hooks/turn.py)


def fresh(scopes: list[tuple[str, dict]], config) -> dict:
    """What the per-prompt injection compares against: the newest items of each scope (by
    creation) with the line the digest shows for them, and the ids of every item, so a
    hook tells only what a session has not been shown yet (no YAML, no git in a hook)."""
    items, ids = [], []
    for _, state in scopes:
        # Newest first; within one second, the later in its file (items are appended) first.
        found = [((str(i.get("created_at") or ""), n), section, i) for section in HEADINGS
                 for n, i in enumerate(_items(state, section)) if isinstance(i, dict) and i.get("id")]
        ids += [str(i["id"]) for _, _, i in found]
        found.sort(key=lambda t: t[0], reverse=True)
        items += [{"id": str(i["id"]), "section": section, "text": " ".join(str(i.get("text", "")).split()),
                   "line": _line(section, i, config)} for _, section, i in found[:FRESH]]
    # The focus a session works under: a change of it is news for a running session (issue 22).
    focus = next((" ".join(str((st.get("focus") or {}).get("current") or "").split()) for _, st in scopes
                  if (st.get("focus") or {}).get("current")), "")
    return {"fresh": items, "ids": ids, "focus": focus[:300]}

