"""`cogit report`: one self-contained HTML file showing memory's self-modification over time.

The page is `templates/report/report.html` with its CSS and JS inlined and every piece of
data embedded as JSON in `<script type="application/json">`. Nothing is fetched: no server,
no network, no external script or font. Memory is hostile data (an agent wrote it, a pull
brought it): the JSON escapes `<`, `>` and `&` so no text can close its script element,
the page's JS only ever sets `textContent`, and a Content-Security-Policy allows exactly
the one inline script (by its hash) and nothing from anywhere else.

What it holds (all read through the store's own code, never re-implemented):
- commits of every scope (or global plus one project), newest first, bounded to
  `max_commits` (the page says how many were left out), each with its provenance
  trailers, the class of its source (user, hook, reflection, sync, human edit) and its
  semantic diff (cogit/store/history/log.py `commit_changes`);
- the items in memory now, per scope, each with the commit that added it (when that
  commit is in the report) and the commits that changed it;
- rules with their confidence over time (cogit/learn/ledger_history.py and cogit/domain/ledger.py, as `cogit rules show`);
- tool statistics per scope;
- sessions: their commits and what was injected (the `Cogit-Digest` receipts, the rules
  shown with `Cogit-Injected: yes`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import time
from importlib import resources
from pathlib import Path

from cogit import __version__
from cogit import report_commits
from cogit import report_story as story_of
from cogit.errors import UsageError
from cogit.paths import Home
from cogit.store.git import repo as git
from cogit.store.state import yamlio
from cogit.store.history.log import commit_changes, parse_since
from cogit.store.git.repo import open_existing
from cogit.store.git.provenance import parse
from cogit.scope import display_name
from cogit.store.scopes import Scope, is_project, project_name
from cogit.store.state.documents import ITEM_SECTIONS
from cogit.store.write.transact import load_state, main_config
from cogit.learn.session_trailers import parse_shown

MAX_COMMITS = 400  # default bound: the newest commits; the page names what it left out
MAX_TEXT = 2000  # characters of any one text in the page
MAX_CHANGES = 60  # item changes shown per commit
MAX_VALUE = 300  # characters of a changed field's old/new value

SOURCE_CLASSES = ("user", "hook", "reflection", "sync", "human edit")


def source_class(trailers: dict[str, str]) -> str:
    """The colour of a commit in the timeline: who caused it."""
    event, source = trailers.get("Cogit-Event", ""), trailers.get("Cogit-Source", "")
    if event == "human.edit" or source == "human":
        return "human edit"
    if source == "sync" or event == "merge":
        return "sync"
    if source in ("reflection", "hook"):
        return source
    return "user"  # cli, import, or a commit without trailers


def _cut(value, limit: int = MAX_TEXT) -> str:
    text = str(value if value is not None else "")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _value(value) -> str:
    if value is None:
        return "∅"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return _cut(text, MAX_VALUE)


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def parse_receipts(text: str) -> list[dict]:
    """`Cogit-Digest: startup 1a2b3c4d5e6f chars=812 tokens=203 cut=0; resume ...` -> dicts."""
    out = []
    for part in (text or "").split(";"):
        words = part.split()
        if not words:
            continue
        receipt = {"source": words[0], "commit": "", "chars": None, "tokens": None, "cut": None}
        for w in words[1:]:
            key, eq, val = w.partition("=")
            if eq and key in ("chars", "tokens", "cut"):
                receipt[key] = int(val) if val.isdigit() else _cut(val, 40)
            elif not eq and not receipt["commit"]:
                receipt["commit"] = _cut(w, 40)
        out.append(receipt)
    return out[:20]


def _scopes(repo, project: Scope | None) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """(branch, name) of the scopes in the report: every one, or global plus one project.
    A project is named as people know it (`alpha`, `github.com/me/repo`), never by the
    absolute path of its folder (cogit/report_story.py `unique_names`)."""
    names = [(git.MAIN, "global")]
    if project is None or not project.is_global:
        for b in git.branches(repo):
            if is_project(b) and (project is None or b == project.branch):
                names.append((b, project_name(repo, b)))
    shown = story_of.unique_names([n for _, n in names])
    # A folder-named project's path, wherever a commit message names it, becomes its name.
    places = {n: d for (_, n), d in zip(names, shown) if n != d and len(n) > 1}
    return list(zip([b for b, _ in names], shown)), places


def _unplaced(text: str, places: dict[str, str]) -> str:
    for full, name in places.items():
        if full in text:
            text = text.replace(full, name)
    return text


def _effects(home: Home, rules: list[dict]) -> dict:
    """rule id -> its measured effect, from the one function `cogit rules show` uses
    (cogit/learn/effect.py): the page shows the same numbers, never one that was not measured."""
    from cogit.learn.effect import rule_effects

    ids = [r["id"] for r in rules if r.get("id")]
    return rule_effects(home, ids) if ids else {}


def _period(home: Home, since: str | None, cutoff: int | None) -> tuple[float | None, str, set[str]]:
    """Where the story at the top starts: --since, else the last report made on this machine
    (and the commits of its last second it told already).

    Floored to the second: commit times are whole seconds, and every part of the story
    (its rows and the reflection proposals read for them) must cut the period alike."""
    if since:
        return float(cutoff), "since", set()
    last, told = story_of.last_report(home.runtime)
    return (float(math.floor(last)), "last report", told) if last is not None else (None, "all", set())


def _home_label(root: Path) -> str:
    """The memory home as the page names it: under the user's home as `~/...`."""
    try:
        return "~/" + str(root.resolve().relative_to(Path.home().resolve()))
    except (ValueError, RuntimeError, OSError):
        return str(root)


def build(home: Home, *, since: str | None = None, project: Scope | None = None,
          max_commits: int = MAX_COMMITS, now: float | None = None, use_git: bool = True) -> dict:
    """Everything the page shows, as plain JSON-able data. `use_git=False`: the commits are
    walked by dulwich (the fallback, and the reference the git path is tested against)."""
    from cogit.domain import ledger
    from cogit.learn.rule_listing import _row as rule_row
    from cogit.learn.rule_listing import entries_of

    if max_commits < 1:
        raise UsageError("--max-commits must be at least 1", hint="Give how many of the newest commits to show, e.g. --max-commits 400.")
    now = time.time() if now is None else now
    cutoff = parse_since(since) if since else None
    repo = open_existing(home)
    try:
        if project is not None and not project.is_global and git.head(repo, project.branch) is None:
            from cogit.errors import ItemNotFound

            raise ItemNotFound(f"project {project.name!r} has no memory yet (no branch {project.branch})",
                               hint="`cogit project list` lists projects.")
        scopes, places = _scopes(repo, project)
        config = main_config(repo)

        # The newest commits of every scope, in the page's order (cogit/report_commits.py).
        listing = report_commits.read(repo, str(home.memory / ".git"), scopes, cutoff, max_commits, use_git=use_git)
        total, shown, scope_of = listing.total, listing.shown, listing.scope_of

        commits = []
        for info in shown:
            summary, body, trailers = parse(info.message)
            try:
                changes = commit_changes(repo, info.sha)
            except Exception as e:  # a commit whose state cannot be read still shows its provenance
                changes, error = [], f"semantic diff unavailable: {type(e).__name__}"
            else:
                error = ""
            commits.append({
                "sha": info.sha,
                "time": _iso(info.time),
                "t": info.time,
                "day": time.strftime("%Y-%m-%d", time.gmtime(info.time)),
                "scopes": scope_of[info.sha],
                "summary": _cut(_unplaced(summary, places), 300),
                "body": _cut(_unplaced(body, places)),
                "author": _cut(info.author, 200),
                "parents": info.parents,
                "trailers": _trailers(trailers, places),
                "source": source_class(trailers),
                "changes": [_change(c) for c in changes[:MAX_CHANGES]],
                "changes_more": max(0, len(changes) - MAX_CHANGES),
                "diff_error": error,
            })

        # Provenance of items: the newest commit that added each one, and every commit that changed it.
        added: dict[tuple[str, str], str] = {}
        touched: dict[tuple[str, str], list[str]] = {}
        for c in reversed(commits):  # oldest first
            for ch in c["changes"]:
                if ch["section"] in ITEM_SECTIONS:
                    for scope in c["scopes"]:
                        key = (scope, ch["id"])
                        touched.setdefault(key, []).append(c["sha"])
                        # A merge "adds" what the other machine added: that commit is the provenance.
                        if ch["op"] == "+" and not (len(c["parents"]) > 1 and key in added):
                            added[key] = c["sha"]

        shown_at = listing.shown_at  # every receipt that held a rule
        items, tools, rules = [], [], []
        books: dict = {}  # branch -> its ledger, read once
        for branch, name in scopes:
            sha = git.head(repo, branch)
            state = yamlio.plain(dict(load_state(repo, sha)))
            sections = {}
            for section in ITEM_SECTIONS:
                rows = []
                for item in (state.get(section) or {}).get("items") or []:
                    iid = str(item.get("id"))
                    rows.append({
                        "id": _cut(iid, 40),
                        "text": _cut(item.get("text")),
                        "created_at": _cut(item.get("created_at"), 40),
                        "source": _cut(item.get("source") or "", 40),
                        "category": _cut(item.get("category") or item.get("kind") or item.get("detector") or "", 60),
                        "added_by": added.get((name, iid), ""),
                        "changed_in": touched.get((name, iid), [])[-20:],
                    })
                sections[section] = rows
            focus = state.get("focus") or {}
            items.append({"scope": name, "branch": branch, "head": sha, "sections": sections,
                          "focus": {"current": _cut(focus.get("current") or ""),
                                    "priorities": [_cut(p, 300) for p in (focus.get("priorities") or [])[:20]]}})
            tools.append(_tools(name, state.get("tools") or {}, state.get("engagement") or {}))
            rule_items = (state.get("rules") or {}).get("items") or []
            for rule in rule_items:
                entries = entries_of(repo, rule.get("id"), branch, books)  # a global rule's evidence in every scope
                row = rule_row(rule, entries, branch, now, config)
                points = ledger.history(entries, ledger.parse_time(rule.get("created_at")), now, config)
                seen = dict(shown_at.get(row["id"], {}))
                for e in entries:  # evidence of a session that was shown the rule (also from before Cogit-Shown)
                    if e.injected and e.session not in seen:
                        seen[e.session] = e.time
                rules.append({
                    "id": _cut(row["id"], 40), "text": _cut(row["text"]), "detector": _cut(row["detector"], 80),
                    "scope": name, "confidence": row["confidence"], "detections": row["detections"],
                    "suppressions": row["suppressions"], "sessions_injected": row["sessions_injected"],
                    "sessions_shown": len(seen), "shown_at": {_cut(k, 80): t for k, t in list(seen.items())[-500:]},
                    "source": _cut(row["source"] or "", 40),
                    "over_time": [{"time": _iso(t), "confidence": c} for t, c in points[-200:]],
                    "sparkline": ledger.sparkline([c for _, c in points[-60:]]),
                    "ledger": [{"kind": e.kind, "session": _cut(e.session, 80), "commit": e.sha, "time": _iso(e.time),
                                "t": e.time, "injected": e.injected} for e in entries[-100:]],
                })
        rules.sort(key=lambda r: (-r["confidence"], r["id"]))
        effects = _effects(home, rules)
        for r in rules:
            r["effect"] = story_of.effect_view(effects.get(r["id"]))
        sessions = _sessions(commits)
        start, how, told = _period(home, since, cutoff)
        proposed = _proposed(repo, [c for c in commits if c["source"] == "reflection" and (start is None or c["t"] >= start)], scopes)

        return {
            "version": __version__,
            "generated_at": _iso(now),
            "home": _home_label(home.root),
            "scopes": [{"name": n, "branch": b} for b, n in scopes],
            "since": since or "",
            "total_commits": total,
            "before_since": total - listing.in_range,
            "left_out": listing.in_range - len(shown),
            "max_commits": max_commits,
            "source_classes": list(SOURCE_CLASSES),
            "commits": commits,
            "items": items,
            "rules": rules,
            "tools": tools,
            "sessions": sessions,
            "story": story_of.story(commits, start, how, rules=rules, items=items, sessions=sessions,
                                    proposed=proposed, left_out=listing.in_range - len(shown), told=told),
            "generated_t": now,
        }
    finally:
        repo.close()


def _trailers(trailers: dict, places: dict[str, str]) -> dict:
    """A commit's trailers as the page shows them: bounded, a project named, not placed."""
    out = {_cut(k, 60): _cut(_unplaced(v, places), 400) for k, v in list(trailers.items())[:30]}
    if "Cogit-Project" in out:
        out["Cogit-Project"] = display_name(out["Cogit-Project"])
    return out


def _change(c) -> dict:
    return {
        "op": c.op,
        "section": c.section,
        "id": _cut(c.key, 80),
        "text": _cut(c.text),
        "line": _cut(c.render()),
        "fields": [{"field": _cut(f, 120), "old": _value(o), "new": _value(n)} for f, o, n in c.fields[:40]],
    }


def _tools(scope: str, doc: dict, engagement: dict) -> dict:
    rows = []
    for name, s in (doc.get("tools") or {}).items():
        if not isinstance(s, dict):
            continue
        calls, fails, timed = int(s.get("calls", 0) or 0), int(s.get("failures", 0) or 0), int(s.get("timed_calls", 0) or 0)
        rows.append({"name": _cut(name, 80), "calls": calls, "failures": fails,
                     "mean_ms": round(int(s.get("duration_ms_total", 0) or 0) / timed) if timed else None})
    rows.sort(key=lambda r: (-r["calls"], r["name"]))
    seqs = sorted(((k, int(v or 0)) for k, v in (doc.get("sequences") or {}).items()), key=lambda kv: (-kv[1], kv[0]))
    return {"scope": scope, "sessions": int(doc.get("sessions", 0) or 0), "tools": rows[:40],
            "sequences": [{"sequence": _cut(k, 200), "count": n} for k, n in seqs[:15]],
            "engagement": {"meaningful": int(engagement.get("meaningful_interactions", 0) or 0),
                           "total": int(engagement.get("total_interactions", 0) or 0)}}


def _proposed(repo, reflections: list[dict], scopes) -> dict[str, list[dict]]:
    """sha -> the review proposals each reflection commit added, and whether each still
    waits for review (read from the commit and its parent: a few commits of the period)."""
    def proposals(sha):
        return (yamlio.plain(dict(load_state(repo, sha))).get("reflections") or {}).get("proposals") or []

    if not reflections:
        return {}
    waiting = {}
    for branch, name in scopes:
        waiting[name] = {p.get("id") for p in proposals(git.head(repo, branch))}
    out = {}
    for c in reflections[:50]:
        before = {p.get("id") for p in proposals(c["parents"][0])} if c["parents"] else set()
        added = [p for p in proposals(c["sha"]) if p.get("id") not in before]
        if added:
            out[c["sha"]] = [{"id": _cut(p.get("id"), 40), "section": _cut(p.get("section"), 40), "text": _cut(p.get("text")),
                              "waiting": any(p.get("id") in waiting.get(s, ()) for s in c["scopes"])} for p in added[:20]]
    return out


def _sessions(commits: list[dict]) -> list[dict]:
    """Agent sessions seen in the report's commits: what each was shown and what it changed."""
    found: dict[str, dict] = {}
    for c in commits:  # newest first
        sid = c["trailers"].get("Cogit-Session", "-")
        if not sid or sid == "-":
            continue
        s = found.setdefault(sid, {"id": sid, "agent": c["trailers"].get("Cogit-Agent", ""), "scopes": [], "title": "",
                                   "first": c["time"], "last": c["time"], "last_t": c["t"], "commits": [], "receipts": [],
                                   "rules_shown": [], "learned": []})
        s["first"] = c["time"]
        # Titled by its first prompt: the oldest commit's Cogit-Title wins (commits come newest first).
        s["title"] = _cut(c["trailers"].get("Cogit-Title") or s["title"], 120)
        s["commits"].append(c["sha"])
        for scope in c["scopes"]:
            if scope not in s["scopes"]:
                s["scopes"].append(scope)
        digest = c["trailers"].get("Cogit-Digest")
        if digest:
            s["receipts"] += parse_receipts(digest)
        rule = c["trailers"].get("Cogit-Rule")
        if rule and c["trailers"].get("Cogit-Injected") == "yes" and rule not in s["rules_shown"]:
            s["rules_shown"].append(rule)
        for rule in parse_shown(c["trailers"].get("Cogit-Shown")):
            if rule not in s["rules_shown"]:
                s["rules_shown"].append(rule)
        for ch in c["changes"]:
            if ch["op"] == "+" and ch["section"] in ITEM_SECTIONS:
                s["learned"].append({"section": ch["section"], "id": ch["id"], "text": ch["text"], "commit": c["sha"]})
    return list(found.values())[:200]


def embed_json(data) -> str:
    """JSON that is safe inside <script type="application/json">: no `<`, `>` or `&` at all
    (so no `</script>` or `<!--`), and no U+2028/2029."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _template(name: str) -> str:
    return resources.files("cogit.templates").joinpath("report", name).read_text("utf-8")


def render(data: dict) -> str:
    """The whole page: template + inline CSS + inline JS (allowed by its hash) + data."""
    script, style = _template("report.js"), _template("report.css")

    def sha(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"

    csp = f"default-src 'none'; script-src {sha(script)}; style-src {sha(style)}; img-src data:; base-uri 'none'; form-action 'none'"
    page = _template("report.html")
    # Substituted in one pass, so no replacement text is ever searched for another marker.
    parts = {"@@CSP@@": csp, "@@CSS@@": style, "@@JS@@": script, "@@DATA@@": embed_json(data)}
    out, rest = [], page
    while True:
        at = [(rest.find(k), k) for k in parts if rest.find(k) >= 0]
        if not at:
            out.append(rest)
            break
        pos, key = min(at)
        out.append(rest[:pos])
        out.append(parts[key])
        rest = rest[pos + len(key):]
    return "".join(out)


def write_report(home: Home, out: Path, *, since: str | None = None, project: Scope | None = None,
                 max_commits: int = MAX_COMMITS) -> dict:
    """Build the report and write it to `out`; returns a short summary for the CLI."""
    data = build(home, since=since, project=project, max_commits=max_commits)
    page = render(data)
    out = Path(out)
    if out.is_dir():
        raise UsageError(f"{out} is a folder", hint="Give a file name, e.g. --out cogit-report.html.")
    out.parent.mkdir(parents=True, exist_ok=True)
    git.write_atomic(out, page.encode("utf-8"), durable=False)
    story_of.remember_report(home.runtime, data["generated_t"], data["commits"])  # the next report tells what happened since
    return {"path": str(out.resolve()), "bytes": len(page.encode("utf-8")), "commits": len(data["commits"]),
            "left_out": data["left_out"], "before_since": data["before_since"], "scopes": [s["name"] for s in data["scopes"]],
            "rules": len(data["rules"]), "sessions": len(data["sessions"]),
            "story": {"how": data["story"]["how"], "start": data["story"]["start"], "commits": data["story"]["commits"]}}
