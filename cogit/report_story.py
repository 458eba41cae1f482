"""The top of `cogit report`: what memory did in a period, and the pieces it is told with.

The period starts at the last report made on this machine (remembered in the runtime
folder: machine-local, never synced) or at `--since DATE`; the first report tells all.
Everything here is derived from the report's own data (cogit/report.py `build`): the
commits of the period with their semantic diffs, the rules with their ledgers, the
sessions with their titles. Nothing is read twice and no commit is walked again, so the
story costs the report nothing it did not already pay.

What it tells: the lessons learned (items added, outside merges and reflection), the rules
with evidence or receipts in the period with their measured effect (cogit/learn/effect.py,
when this cogit has it: never an effect that was not measured), what was reverted or
forgotten, what came from other machines (the merges a pull made), what reflection
proposed (and whether it still waits for review), and the sessions of the period by title.
"""

from __future__ import annotations

import json
import math
import os
import time

from cogit.store.state.documents import ITEM_SECTIONS

MAX_LIST = 40  # entries per list of the story; the page says how many more
LEARNED = ("learnings", "heuristics", "avoidances", "rules")
VERDICTS = ("helps", "no effect", "hurts", "not enough data")
STATE_FILE = "report.json"  # runtime/report.json: when this machine last wrote a report


# --------------------------------------------------------------------------- the last report


def last_report(runtime: os.PathLike) -> tuple[float | None, set[str]]:
    """When the last report was written on this machine (None: a missing or foreign file), and
    the commits of its last second it already told (a commit's time has whole seconds only)."""
    try:
        with open(os.path.join(runtime, STATE_FILE), encoding="utf-8") as f:
            doc = json.loads(f.read(64 * 1024))
        value, seen = doc.get("generated_at"), doc.get("told") or []
    except (OSError, ValueError, AttributeError):
        return None, set()
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0
    told = {s for s in seen[:MAX_TOLD] if isinstance(s, str) and len(s) == 40} if isinstance(seen, list) else set()
    return (float(value), told) if ok else (None, set())


MAX_TOLD = 200


def remember_report(runtime: os.PathLike, t: float, commits: list[dict] = ()) -> None:
    """Remember that a report was written at `t`, with the commits of that very second it
    held (the next one tells what happened since, neither missing nor repeating any)."""
    from cogit.runtime import private_dirs, write_json

    told = [c["sha"] for c in commits if c["t"] >= math.floor(t)][:MAX_TOLD]
    private_dirs(os.fspath(runtime))
    write_json(os.path.join(runtime, STATE_FILE), {"generated_at": t, "told": told})


# --------------------------------------------------------------------------- names


def unique_names(names: list[str]) -> list[str]:
    """Display names for scopes (cogit/scope.py `display_name`), made unique: two folders
    named `app` become `src/app` and `old/app`, from the names the projects record."""
    from cogit.scope import display_name

    shown = [display_name(n) for n in names]
    for depth in (2, 3):
        clash = {s for s in shown if shown.count(s) > 1}
        if not clash:
            break
        shown = [display_name(n, depth) if s in clash else s for n, s in zip(names, shown)]
    seen: dict[str, int] = {}
    out = []
    for s in shown:
        seen[s] = seen.get(s, 0) + 1
        out.append(s if seen[s] == 1 else f"{s} ({seen[s]})")
    return out


# --------------------------------------------------------------------------- measured effect


def _count(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _number(value) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else None


def _arm(value) -> dict:
    value = value if isinstance(value, dict) else {}
    return {k: _count(value.get(k)) for k in ("sessions", "relevant", "pattern")}


def _rate(arm: dict, how: str) -> str:
    if not arm["relevant"]:
        return f"{how}: no relevant session yet ({arm['sessions']} sessions)"
    share = round(100 * arm["pattern"] / arm["relevant"])
    return f"{how}: the pattern in {arm['pattern']} of {arm['relevant']} relevant sessions ({share}%)"


def effect_view(effect) -> dict | None:
    """A rule's measured effect (cogit/learn/effect.py `rule_effects`) as the page shows it.

    None when nothing was measured: the page then says nothing about an effect. A verdict
    is shown only with enough data; otherwise it is "not enough data", whatever came in."""
    if not isinstance(effect, dict):
        return None
    shown, withheld = _arm(effect.get("shown")), _arm(effect.get("withheld"))
    enough = effect.get("enough") is True
    verdict = effect.get("verdict") if effect.get("verdict") in VERDICTS else "not enough data"
    if not enough:
        verdict = "not enough data"
    value = _number(effect.get("effect"))
    interval = effect.get("interval")
    lo_hi = [_number(x) for x in interval] if isinstance(interval, (list, tuple)) and len(interval) == 2 else None
    if lo_hi and None in lo_hi:
        lo_hi = None
    measure = ""
    if value is not None and enough:
        measure = f"effect {value:+.2f}" + (f" (interval {lo_hi[0]:+.2f} to {lo_hi[1]:+.2f})" if lo_hi else "")
    applied = effect.get("applied") if isinstance(effect.get("applied"), dict) else {}
    a = {k: _count(applied.get(k)) for k in ("relevant", "shown", "followed")}
    text = " ".join(str(effect.get("text") or "").split())
    return {
        "verdict": verdict,
        "enough": enough,
        "rates": _rate(shown, "shown") + "; " + _rate(withheld, "withheld"),
        "measure": measure,
        "applied": f"relevant in {a['relevant']} sessions, shown in {a['shown']} of them, followed in {a['followed']}",
        "text": text if len(text) <= 300 else text[:299] + "…",
    }


# --------------------------------------------------------------------------- the story


def _bounded(rows: list) -> dict:
    return {"rows": rows[:MAX_LIST], "more": max(0, len(rows) - MAX_LIST)}


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def story(commits: list[dict], start: float | None, how: str, *, rules: list[dict], items: list[dict],
          sessions: list[dict], proposed: dict[str, list[dict]], left_out: int, told: set[str] = frozenset()) -> dict:
    """What memory did from `start` on (None: everything the report holds).

    `commits` newest first, as the report holds them; `proposed`: commit sha -> the review
    proposals it added (with their status now); `told`: commits the last report already told."""
    if start is not None:
        start = math.floor(start)  # commit times are whole seconds
    period = [c for c in commits if (start is None or c["t"] >= start) and c["sha"] not in told]
    present = {(s["scope"], i["id"]) for s in items for rows in s["sections"].values() for i in rows}
    titles = {s["id"]: s.get("title") or "" for s in sessions}
    learned, removed, reverts, synced, reflected, new_rules = [], [], [], [], [], set()
    brought = from_other_machines(commits, period)
    for c in period:
        merge, sid = len(c["parents"]) > 1, c["trailers"].get("Cogit-Session", "-")
        if c["sha"] in brought:
            continue  # made on another machine: told with the merge that brought it
        scope = c["scopes"][0] if c["scopes"] else ""
        base = {"commit": c["sha"], "scope": scope, "time": c["time"], "session": "" if sid == "-" else sid,
                "title": titles.get(sid, ""), "source": c["source"]}
        items_changed = [ch for ch in c["changes"] if ch["section"] in ITEM_SECTIONS]
        if merge:
            added = [ch for ch in items_changed if ch["op"] == "+"]
            synced.append(dict(base, summary=c["summary"], added=[{"section": ch["section"], "id": ch["id"], "text": ch["text"]} for ch in added[:10]],
                               n_added=len(added), n_commits=sum(1 for m in brought.values() if m == c["sha"]), n_changed=sum(1 for ch in items_changed if ch["op"] == "~"),
                               n_removed=sum(1 for ch in items_changed if ch["op"] == "-")))
            continue
        if c["trailers"].get("Cogit-Reverts"):
            reverts.append(dict(base, summary=c["summary"], target=c["trailers"]["Cogit-Reverts"]))
        if c["source"] == "reflection" or c["sha"] in proposed:
            reflected.append(dict(base, summary=c["summary"], proposals=proposed.get(c["sha"], [])[:20],
                                  added=[{"section": ch["section"], "id": ch["id"], "text": ch["text"]} for ch in items_changed if ch["op"] == "+"][:20]))
            continue
        for ch in items_changed:
            row = dict(base, section=ch["section"], id=ch["id"], text=ch["text"])
            if ch["op"] == "+" and ch["section"] in LEARNED:
                if ch["section"] == "rules":
                    new_rules.add(ch["id"])
                learned.append(dict(row, kept=any((s, ch["id"]) in present for s in c["scopes"])))
            elif ch["op"] == "-":
                removed.append(dict(row, how=_how_removed(c)))
    from cogit.learn.session_trailers import parse_shown

    in_period = {c["sha"] for c in period}
    shown_in: dict[str, set[str]] = {}  # rule -> the sessions of the period shown it (every receipt)
    for c in period:
        t, sid = c["trailers"], c["trailers"].get("Cogit-Session", "-")
        if sid and sid != "-":
            for rid in parse_shown(t.get("Cogit-Shown")) + ([t["Cogit-Rule"]] if t.get("Cogit-Injected") == "yes" and t.get("Cogit-Rule") else []):
                shown_in.setdefault(rid, set()).add(sid)
    rule_rows = []
    for r in rules:
        ev = [e for e in r["ledger"] if e["commit"] in in_period]
        shown = shown_in.get(r["id"], set())
        if not (ev or shown or r["id"] in new_rules):
            continue
        rule_rows.append({"id": r["id"], "text": r["text"], "scope": r["scope"], "new": r["id"] in new_rules,
                          "detections": sum(1 for e in ev if e["kind"] == "detect"),
                          "suppressions": sum(1 for e in ev if e["kind"] == "suppress"),
                          "sessions_shown": len(shown), "confidence": r["confidence"], "effect": r.get("effect")})
    ids = {c["trailers"].get("Cogit-Session") for c in period}
    in_period = [s for s in sessions if s["id"] in ids]
    oldest = period[-1]["t"] if period else None
    return {
        "how": how,  # "last report", "since" or "all"
        "start": _iso(start) if start is not None else "",
        "commits": len(period),
        # More commits of the period than the report shows: the story tells the newest only.
        "cut": bool(left_out) and (start is None or (oldest is not None and oldest > start)),
        "sessions": _bounded([{"id": s["id"], "title": s.get("title") or "", "agent": s["agent"], "scopes": s["scopes"],
                               "first": s["first"], "learned": len(s["learned"])} for s in in_period]),
        "learned": _bounded(learned),
        "rules": _bounded(rule_rows),
        "removed": _bounded(removed),
        "reverts": _bounded(reverts),
        "synced": _bounded(synced),
        "reflection": _bounded(reflected),
    }


def from_other_machines(commits: list[dict], period: list[dict], max_merges: int = 20, max_walk: int = 2000) -> dict[str, str]:
    """sha -> the merge that brought it: the commits on a merge's second-parent side that its
    first parent does not hold (another machine's work, pulled and merged here). Bounded:
    the newest `max_merges` merges of the period, `max_walk` commits walked per side.
    A pull that fast-forwarded made no merge: those commits are told as if made here."""
    by_sha = {c["sha"]: c for c in commits}

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo and len(seen) < max_walk:
            sha = todo.pop()
            if sha in seen or sha not in by_sha:
                continue
            seen.add(sha)
            todo.extend(by_sha[sha]["parents"])
        return seen

    out: dict[str, str] = {}
    for m in [c for c in period if len(c["parents"]) > 1][:max_merges]:
        mine = reach(m["parents"][0])
        for side in m["parents"][1:]:
            for sha in reach(side) - mine:
                out.setdefault(sha, m["sha"])
    return out


def _how_removed(c: dict) -> str:
    t = c["trailers"]
    if t.get("Cogit-Reverts"):
        return "reverted"
    if t.get("Cogit-Pruned") or "prune" in t.get("Cogit-Event", ""):
        return "pruned (over its cap)"
    if c["source"] == "human edit":
        return "removed by a hand edit"
    return "forgotten"


# --------------------------------------------------------------------------- shown in N sessions


def shown_sessions(infos) -> dict[str, dict[str, float]]:
    """rule id -> {session: the time it was first shown there}, from the `Cogit-Shown` trailers
    of every commit the report walked: every injection receipt that held the rule, whatever
    its source (digest, per-prompt update, reflex). A substring test first: only fold commits
    that name shown rules are parsed."""
    from cogit.learn.session_trailers import parse_shown

    out: dict[str, dict[str, float]] = {}
    for info in infos:
        msg = info.message
        if "\nCogit-Shown: " not in msg:
            continue
        # The two trailer lines only (a full parse of every fold commit of a long history costs
        # more than the rest of this): the last of each, as the trailer block ends the message.
        session = _line(msg, "\nCogit-Session: ")
        if not session or session == "-":
            continue
        for rule in parse_shown(_line(msg, "\nCogit-Shown: ")):
            seen = out.setdefault(rule, {})
            seen[session] = min(seen.get(session, info.time), info.time)
    return out


def _line(msg: str, key: str) -> str:
    at = msg.rfind(key)
    if at < 0:
        return ""
    end = msg.find("\n", at + len(key))
    return msg[at + len(key): end if end >= 0 else None].strip()
