"""What a reflection reads, gathered from memory and its history (split from reflect.py).

Sessions fold into `main` (tool statistics and engagement are global), each fold commit
naming its project (`Cogit-Project`). So a project's reflection reads the project's
sessions from main's history, by that trailer, and its rules and items from its branch
with the global ones beneath; a project session's fold carries its meaningful
interactions (`Cogit-Meaningful`), which is what the automatic trigger counts for the
project (cogit/learn/trigger.py).
"""

from __future__ import annotations

import time

from cogit.paths import Home
from cogit.store.git import repo as git
from cogit.store.git.provenance import parse
from cogit.store.write.transact import load_state

RECENT_SESSIONS = 10  # in the prompt
TREND_SESSIONS = 5  # the built-in analysis compares the last five sessions with everything before
HISTORY_WALK = 3000  # commits read at most to find recent sessions
FOLDS = ("session.end", "session.fold")


def branch_of_project(name: str) -> str:
    """The branch a Cogit-Project trailer's project lives on (cogit/scope.py names it so)."""
    from cogit.scope import slugify

    return f"project/{slugify(name)}" if name and name != "global" else git.MAIN


def _line(info, summary: str, body: str) -> str:
    extra = " ".join(body.split())[:200]
    return f"{time.strftime('%Y-%m-%d', time.gmtime(info.time))} {summary}" + (f" ({extra})" if extra else "")


def project_folds(repo, branch: str, since: float | None = None, limit: int = HISTORY_WALK):
    """(info, summary, body, trailers) of main's fold commits of the project on `branch`,
    newest first, down to `since` (a time) and at most `limit` commits read."""
    for n, info in enumerate(git.walk(repo, git.head(repo, git.MAIN))):
        if n >= limit or (since is not None and info.time < since):
            return
        if "Cogit-Event: session." not in info.message:
            continue
        summary, body, trailers = parse(info.message)
        if trailers.get("Cogit-Event") in FOLDS and branch_of_project(trailers.get("Cogit-Project", "")) == branch:
            yield info, summary, body, trailers


def meaningful_since(home: Home, branch: str, since: float | None) -> int:
    """The meaningful interactions of a project's sessions folded since `since`."""
    repo = git.open_repo(home.memory)
    try:
        total = 0
        for _info, _s, _b, trailers in project_folds(repo, branch, since):
            value = trailers.get("Cogit-Meaningful", "")
            total += int(value) if value.isdigit() else 0
        return total
    finally:
        repo.close()


def gather(home: Home, branch: str = git.MAIN) -> dict:
    """What a reflection reads: the state, recent sessions, the tools of TREND_SESSIONS
    sessions ago, the rule ledger."""
    from cogit.learn import ledger_history
    from cogit.store.state import yamlio
    from cogit.store.git.repo import open_existing

    repo = open_existing(home)
    try:
        head = git.head(repo, branch)
        state = yamlio.plain(dict(load_state(repo, head)))
        main_state = state if branch == git.MAIN else yamlio.plain(dict(load_state(repo, git.head(repo, git.MAIN))))
        sessions, session_shas = [], []
        for n, info in enumerate(git.walk(repo, git.head(repo, git.MAIN))):
            if n >= HISTORY_WALK or len(session_shas) > TREND_SESSIONS and len(sessions) >= RECENT_SESSIONS:
                break
            if "Cogit-Event: session." not in info.message:
                continue
            summary, body, trailers = parse(info.message)
            if trailers.get("Cogit-Event") not in FOLDS:
                continue
            session_shas.append(info)
            if len(sessions) < RECENT_SESSIONS:
                sessions.append(_line(info, summary, body))
        if branch != git.MAIN:
            # In a project, its own sessions are the ones to read: main's fold commits that
            # name it; the tool statistics and their trend stay main's (tools are global).
            sessions = []
            for info, summary, body, _t in project_folds(repo, branch):
                sessions.append(_line(info, summary, body))
                if len(sessions) >= RECENT_SESSIONS:
                    break
        past_tools = None
        if len(session_shas) >= 2:
            pivot = session_shas[min(TREND_SESSIONS, len(session_shas)) - 1]
            if pivot.parents:
                past_tools = yamlio.plain(dict(load_state(repo, pivot.parents[0]))).get("tools")
        evidence = ledger_history.read(repo, branch)
        if branch != git.MAIN:
            # The project's rules and the global ones shown there: both are the project's concern.
            for rid, entries in ledger_history.read(repo, git.MAIN).items():
                evidence[rid] = sorted(evidence.get(rid, []) + entries, key=lambda e: e.time)
            own = {r.get("id") for r in (state.get("rules") or {}).get("items") or []}
            state.setdefault("rules", {"items": []})
            state["rules"]["items"] = list(state["rules"].get("items") or []) + [
                r for r in (main_state.get("rules") or {}).get("items") or [] if r.get("id") not in own]
        from cogit import machine_settings

        # The settings in effect here: the reflector, its triggers and review.auto_accept are
        # this machine's own, never what a synced config.yaml says (machine_settings.py).
        config = machine_settings.effective(home, main_state.get("config"))
        return {"state": state, "config": config, "waiting": machine_settings.pending(home, main_state.get("config")),
                "sessions": sessions,
                "past_tools": past_tools, "evidence": evidence, "tools_state": main_state}
    finally:
        repo.close()
