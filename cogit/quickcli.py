"""The commands people run most, answered without importing click.

`import click` alone costs about 3.5x `python -c pass` (it imports inspect, typing, enum,
uuid, ...), more than a cold `status` or `show` needs for all its own work. So entry.py
asks `run(args)` first. It answers only a few exact argument shapes (below, in SHAPES'
parsers: no option before the command, no `--help`, no option it does not list) and
returns None for everything else, which click then parses as it always did. The click
commands (cogit/cli/state.py, history.py, rules.py) call the same functions here to print, so
both paths print the same text: tests/test_cli_quick.py runs every shape both ways (the plain
`diff` and `rules` against click's full path after each kind of change).

Standard library only at the top: each command imports its core when it runs.
"""

from __future__ import annotations

import os
import sys

from cogit.errors import CogitError
from cogit.paths import Home

KINDS = ("learning", "heuristic", "avoidance", "rule")
_ANSI = "\x1b"


def echo(text: str = "", err: bool = False) -> None:
    """What click.echo does for the text cogit prints: a line, flushed; ANSI escape
    sequences stripped when the stream is not a terminal."""
    stream = sys.stderr if err else sys.stdout
    if _ANSI in text and not stream.isatty():
        import re

        text = re.sub(r"\033\[[0-?]*[ -/]*[@-~]", "", text)  # click's own pattern (click/_compat.py)
    stream.write(text + "\n")
    stream.flush()


def emit_json(value, out=echo) -> None:
    import json  # here: a command that prints no JSON does not pay for it (cold `show` / `status`)

    out(json.dumps(value, indent=2, ensure_ascii=False, default=str))


def finalize_waiting(home: Home, out=echo) -> None:
    """Fold what ended (or killed) agent sessions left, so every command sees it.

    A look at the runtime folder first (strings, not Paths: a cold `show` need not import
    pathlib): with no session records there, nothing of the fold is imported."""
    try:
        if not any(os.scandir(os.path.join(home.top, "runtime", "sessions"))):
            return
    except OSError:
        return  # no sessions folder (or not a folder): nothing to fold
    if not os.path.exists(os.path.join(home.top, "memory", ".git")):
        return
    from cogit.learn.drain import finalize, stale_minutes

    try:
        finalize(home, None, stale_minutes(home))
    except CogitError as e:
        out(f"Warning: could not finalize agent sessions: {e.message}", err=True)


# --------------------------------------------------------------------------- status, show


def status(home: Home, as_json: bool, out=echo) -> None:
    from cogit.doctor import attention
    from cogit.store.cache import snapshot

    info = snapshot.status_info(home, os.getcwd(), attention)  # nothing changed since the last write or read: no store
    if info is None:
        from cogit.store import scoped
        from cogit.status import status as get_status

        info = get_status(home)
        here = scoped.folder_project(home, os.getcwd())  # in a project's folder: its memory too
        info["project"] = scoped.summary(home, here) if here else None
        snapshot.keep(home, [snapshot.MAIN] + ([here.branch] if here else []))
    if as_json:
        emit_json(info, out)
        return
    out(f"home:    {info['home']}")
    out(f"branch:  {info['branch']} at {info['head'][:10]}  ({info['commits']} commits)")
    out("items:   " + ", ".join(f"{k} {v}" for k, v in info["counts"].items()) + "  [global]")
    if info["project"]:
        p = info["project"]
        out(f"project: {p['name']} ({p['branch']} at {p['head'][:10]}); an agent here sees it and global")
        out("items:   " + ", ".join(f"{k} {v}" for k, v in p["counts"].items()) + f"  [{p['name']}]")
    if info["digest"]:
        d = info["digest"]
        out(f"digest:  {d['chars']} chars (~{d['tokens']} tokens) of {d['budget']}; cut: {d['cut'] or 'nothing'}")
    if info["hand_edits"]:
        out("hand edits not committed: " + ", ".join(info["hand_edits"]) + " (run `cogit commit`)")
    if info["sessions"]:
        out(f"sessions with unsaved records: {info['sessions']}")
    if info["attention"]:
        out("attention: " + "; ".join(info["attention"]) + " (run `cogit doctor`)")
    if info.get("review"):
        out(f"proposals waiting for review: {info['review']} (run `cogit review`)")


def show_now(home: Home, section: str | None, as_json: bool, out=echo) -> None:
    """`show` of memory now, without --project: global, and in a project's folder that project too."""
    from cogit.state_render import render_labelled, render_state, state_json, state_json_labelled
    from cogit.domain.sections import SECTIONS, section_name
    from cogit.store.cache import snapshot

    sections = [section_name(section)] if section else list(SECTIONS)
    views = snapshot.show_views(home, os.getcwd())  # nothing changed since the last write or read: no store
    if views is None:
        from cogit.store import memory, scoped

        here = scoped.folder_project(home, os.getcwd())
        views = [(s, *memory.read(home, branch=s.branch)) for s in ((here,) if here else ()) + (scoped.GLOBAL,)]
        snapshot.keep(home, [s.branch for s, _, _ in views])
    if len(views) > 1:  # in a project's folder: what an agent there sees, each item labelled
        if as_json:
            emit_json(state_json_labelled(views, sections), out)
        else:
            out(render_labelled(views, sections))
        return
    _, sha, state = views[0]
    if as_json:
        emit_json(state_json(state, sections), out)
    else:
        out(render_state(state, sections, sha))


# --------------------------------------------------------------------------- log, why


def _from_index(query, home, *args, **kwargs):
    """The answer of a history-index query, or None when the index cannot give it."""
    from cogit.store.history import index as history_index

    try:
        return query(str(home.root), str(home.runtime / "cache"), *args, **kwargs)
    except history_index.Stale:
        return None


def when(t: int) -> str:
    import time

    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t))


def trailer_line(trailers: dict) -> str:
    keys = ("Cogit-Event", "Cogit-Source", "Cogit-Agent", "Cogit-Session", "Cogit-Trigger")
    return "  ".join(f"{k[6:].lower()}={trailers[k]}" for k in keys if trailers.get(k) and trailers[k] != "-")


def _fit(text: str, width: int) -> str:
    return text.ljust(width) if len(text) <= width else "…" + text[-(width - 1):]


def log_every_scope(home: Home, filters: dict) -> list:
    """(scope label, branch, entry) of every scope, newest first: the index, else the full walk."""
    from cogit.store.history import index as history_index

    found = _from_index(history_index.log, home, **filters)
    if found is None:
        from cogit.store.history import log as history
        from cogit.store import scoped

        found = [(scoped.label(s), s.branch, e) for s, e in scoped.log(home, scoped.every_scope(home), **filters)]
        if not filters.get("item"):
            history.refresh_recent(home)  # the next `log -n N` reads one small file per branch
    return found


def print_log(found: list, as_json: bool, out=echo) -> None:
    if as_json:
        emit_json([{**e.to_json(), "scope": label, "branch": branch} for label, branch, e in found], out)
        return
    width = min(24, max((len(label) for label, _, _ in found), default=6))
    for label, _, e in found:
        out(f"{e.sha[:10]} {when(e.time)}  {_fit(label, width)}  {e.summary}")
        out(f"           {e.author}  {trailer_line(e.trailers)}")


def why_every_scope(home: Home, item_id: str) -> list:
    """(scope label, entry, changes) of every commit of any scope that touched the item."""
    from cogit.store.history import index as history_index

    found = _from_index(history_index.why, home, item_id)
    if found is None:
        from cogit.store.history import log as history
        from cogit.store import scoped

        found = [(scoped.label(s), e, ch) for s in scoped.every_scope(home) for e, ch in history.why(home, item_id, branch=s.branch)]
    return found


def print_why(found: list, as_json: bool, none: str, out=echo) -> None:
    if as_json:
        emit_json([{**e.to_json(), "scope": label, "changes": [c.to_json() for c in ch]} for label, e, ch in found], out)
        return
    if not found:
        out(none)
    for label, e, changes in found:
        out(f"{e.sha[:10]} {when(e.time)}  {label}  {e.summary}")
        out(f"           {e.author}  {trailer_line(e.trailers)}")
        for key in ("Cogit-Evidence", "Cogit-Model"):
            if e.trailers.get(key):
                out(f"           {key[6:].lower()}: {e.trailers[key]}")
        for c in changes:
            out(f"           {c.render()}")


# --------------------------------------------------------------------------- diff, rules


def last_changes(home: Home):
    """Plain `diff` (no REV, no --project, not --raw): [(scope, changes)] of each scope's
    last commit against its first parent, the scopes as store.scoped.view lists them, from
    the history index (the records the full path wrote with the same commit_changes), or
    None when it cannot say exactly: no fresh main snapshot (the folder's project is read
    from it, as `show` does), a head not in the index, a root commit, an unreadable record."""
    from cogit.heads import ref_head
    from cogit.store.cache import snapshot
    from cogit.store.history import index as history_index
    from cogit.store.history.change import ItemChange

    view = snapshot.cold_view(home, os.getcwd())
    if view is None:
        return None
    main, here = view
    scopes = [here[0], snapshot.GLOBAL] if here else [snapshot.GLOBAL]
    index = history_index.Index(os.path.join(home.top, "runtime", "cache"))
    try:
        found = []
        for scope in scopes:
            head = ref_head(home.top, scope.branch)
            row = index.rows.get(head) if head else None
            if row is None or not row[1]:
                return None  # not indexed yet, or a root commit (its diff is against nothing)
            rec = index.record(head)
            found.append((scope, [ItemChange(op, section, key, text, [tuple(f) for f in fields])
                                  for op, section, key, text, fields in rec["changes"]]))
        return found
    except (history_index.Stale, KeyError, TypeError, ValueError):
        return None
    finally:
        index.close()


def print_diff(results: list, labelled: bool, as_json: bool, out=echo) -> None:
    """`diff`'s item changes per scope (`results`: [(scope, changes)])."""
    label = lambda s: "global" if s.is_global else s.name  # noqa: E731 - = store.scoped.label
    if as_json:
        emit_json([{**c.to_json(), **({"scope": label(s)} if labelled else {})} for s, changes in results for c in changes], out)
        return
    for s, changes in results:
        if labelled:
            out(f"[{label(s)}]")
        for change in changes:
            out(change.render())


def diff_last(home: Home, as_json: bool, out=echo) -> None:
    found = last_changes(home)
    if found is None:
        from cogit.store import scoped
        from cogit.store.history import log as history

        scopes = scoped.view(home, None, os.getcwd())
        found = [(s, history.diff(home, branch=s.branch)) for s in scopes]
        history.index_heads(home, [s.branch for s in scopes])  # the next plain `diff` reads the index
    print_diff(found, len(found) > 1 or not found[0][0].is_global, as_json, out)


NO_RULES = "No rules yet. They grow from detected failure patterns, or `cogit add rule TEXT --detector NAME`."


def no_rules(home: Home) -> bool:
    """Plain `rules` (no --project): True when no scope it lists holds a rule, read from the
    snapshots (each checked against its branch's head in the ref files); False when a rule
    exists or a snapshot cannot tell (the full path then reads every ledger from history)."""
    from cogit.store.cache import snapshot
    from cogit.store.history import index as history_index

    view = snapshot.cold_view(home, os.getcwd())
    if view is None:
        return False
    main, here = view
    try:
        heads = history_index.branches(home.top)  # every branch, as the full path lists them
    except history_index.Stale:
        return False
    if here:
        branches = [here[0].branch, snapshot.MAIN]
    else:
        branches = [b for b in heads if b == snapshot.MAIN or b.startswith(snapshot.PROJECT_PREFIX)]
    for branch in branches:
        if not heads.get(branch):
            return False  # (the full path skips a branch with no commit; so does nothing here)
        snap = main if branch == snapshot.MAIN else snapshot.fresh(home, branch)
        if snap is None:
            return False
        rules = snap["state"].get("rules")
        if not isinstance(rules, dict) or not isinstance(rules.get("items") or [], list) or rules.get("items"):
            return False
    return True


def rules(home: Home, as_json: bool, out=echo) -> None:
    from cogit import quickrules  # with rules: their ledgers from the history index, else the store

    print_rules([] if no_rules(home) else quickrules.rows(home, os.getcwd()), as_json, out)


def print_rules(rows: list, as_json: bool, out=echo) -> None:
    if as_json:
        emit_json(rows, out)
        return
    if not rows:
        out(NO_RULES)
        return
    for r in rows:
        out(f"{r['id']}  {r['confidence']:.0%}  {r['detector']:<20} det {r['detections']}  sup {r['suppressions']}  "
            f"injected {r['sessions_injected']}  [{r['scope']}]")
        out(f"    {r['text']}")
        out(f"    last detected {r['last_detected'] or '-'}, last suppressed {r['last_suppressed'] or '-'}")
        if r.get("applied"):
            out(f"    {applied_line(r['applied'])}; effect: {verdict_line(r['effect'])}")


def applied_line(a: dict) -> str:
    return f"applied: relevant in {a['relevant']}, shown then {a['shown']}, followed {a['followed']}"


def verdict_line(e: dict) -> str:
    if e.get("effect") is None or not e.get("enough"):
        return f"not enough data yet ({e['shown']['relevant']} shown, {e['withheld']['relevant']} withheld)"
    return f"{e['effect'] * 100:+.0f} points, {e['verdict']} ({e['shown']['relevant']} shown, {e['withheld']['relevant']} withheld)"


# --------------------------------------------------------------------------- add


def provenance(event: str, scope=None):
    from cogit.store.git.provenance import Provenance

    return Provenance(event=event, source="cli", agent=os.environ.get("COGIT_AGENT", "human"),
                      session=os.environ.get("COGIT_SESSION", "-"), project=scope.name if scope else "global")


def report(result, nothing: str = "Nothing changed; no commit made.", scope=None, out=echo) -> None:
    if result is None:
        out(nothing)
        return
    from cogit.store.scopes import GLOBAL, where

    out(f"[{result.sha[:10]}] {result.summary}")
    out(f"  in {where(scope or GLOBAL)}")
    for section, item in result.pruned:
        out(f"  pruned by cap: {section} {item.get('id')} {item.get('text', '')!r}")
    if result.redacted:
        out(f"  redacted {result.redacted} secret(s) before storing")


def check_add(kind: str, category: str | None, detector: str | None) -> None:
    from cogit.errors import UsageError

    if category and kind != "learning":
        raise UsageError("--category applies to learnings only")
    if (kind == "rule") != bool(detector):
        raise UsageError("--detector is required for rules, and only for rules")


def add(home: Home, scope, kind: str, text: str, category: str | None = None, context: str | None = None,
        detector: str | None = None, force: bool = False, out=echo) -> None:
    """`cogit add`: one item through the write path, or evidence for a near-identical one."""
    from cogit.store import dedupe, memory

    check_add(kind, category, detector)
    section = kind + "s"
    found = dedupe.Found()
    if kind == "rule":  # the learning loop (cogit/learn/rules.py)
        from cogit.learn.rules import add_rule

        config = memory.read(home)[1].get("config")
        apply = add_rule(text, detector, config)
    else:
        apply = memory.add_item(section, text, category=category, context=context)
    if not force:
        apply = dedupe.or_evidence(section, " ".join(text.split()), apply, found)
    result = memory.write(home, provenance(f"{kind}.add", scope), apply, branch=scope.branch)
    report(result, nothing=f"That {kind} is already in memory; no commit made.", scope=scope, out=out)
    if result is not None and found.item is not None:
        how = "the same as" if found.exact else f"nearly the same as (similarity {found.score:.2f} ≥ {dedupe.THRESHOLD})"
        out(f"  not added: it is {how} {kind} {found.item['id']} \"{found.item.get('text', '')}\"; "
            f"that one gained evidence (now {found.item['evidence']}). `--force` adds it anyway.")


def default_scope(home: Home):
    """The scope of a command without --project: the current folder's project, else global."""
    from cogit.store import scopes

    return scopes.resolve(home, None, os.getcwd())


# --------------------------------------------------------------------------- the shapes


def _flags(rest: list[str], allowed: set[str]) -> tuple[set[str], list[str]] | None:
    """The flags (each at most once, all in `allowed`) and the other words, or None."""
    flags, words = set(), []
    for token in rest:
        if token.startswith("-"):
            if token not in allowed or token in flags:
                return None
            flags.add(token)
        else:
            words.append(token)
    return flags, words


def _parse(args: list[str]):
    """A function of the home for an argument list of a shape answered here, else None."""
    if not args:
        return None
    name, rest = args[0], args[1:]
    if name == "status":
        if rest in ([], ["--json"]):
            return lambda home: status(home, bool(rest))
    elif name == "show":
        got = _flags(rest, {"--json"})
        if got is not None and len(got[1]) <= 1:
            return lambda home: show_now(home, got[1][0] if got[1] else None, "--json" in got[0])
    elif name == "log":
        limit, event, as_json = None, None, False
        while rest:
            if rest[0] == "-n" and limit is None and len(rest) > 1 and rest[1].isdigit() and rest[1].isascii() \
                    and int(rest[1]) >= 1:
                limit, rest = int(rest[1]), rest[2:]
            elif rest[0] == "--event" and event is None and len(rest) > 1 and not rest[1].startswith("-"):
                event, rest = rest[1], rest[2:]
            elif rest[0] == "--json" and not as_json:
                as_json, rest = True, rest[1:]
            else:
                return None
        filters = dict(limit=limit, event=event, source=None, session=None, since=None, item=None)
        return lambda home: print_log(log_every_scope(home, filters), as_json)
    elif name == "why":
        got = _flags(rest, {"--json"})
        if got is not None and len(got[1]) == 1:
            item_id = got[1][0]
            return lambda home: print_why(why_every_scope(home, item_id), "--json" in got[0],
                                          f"No commit mentions {item_id} in any scope.")
    elif name in ("diff", "rules"):
        if rest in ([], ["--json"]):
            command = diff_last if name == "diff" else rules
            return lambda home: command(home, bool(rest))
    elif name == "add":
        if len(rest) == 2 and rest[0] in KINDS and rest[0] != "rule" and not rest[1].startswith("-"):
            kind, text = rest
            return lambda home: add(home, default_scope(home), kind, text)
    return None


def run(args: list[str]) -> int | None:
    """The exit code of a command answered here, or None: click takes it (nothing was done)."""
    command = _parse(args)
    if command is None:
        return None
    home_dir = os.environ.get("COGIT_HOME") or None  # as click's envvar reads it (an empty value is unset)
    if home_dir is not None and os.path.exists(home_dir) and not os.path.isdir(home_dir):
        return None  # click's usage error says what is wrong
    try:
        home = Home.resolve(home_dir)
        finalize_waiting(home)
        command(home)
        return 0
    except CogitError as e:
        echo(f"Error: {e.message}", err=True)
        if e.hint:
            echo(e.hint, err=True)
        return e.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:
        from cogit.boundary import crashed  # the one boundary for bugs (and busy, and a full disk)

        return crashed(e, args)
