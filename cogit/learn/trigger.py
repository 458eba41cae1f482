"""When reflection runs by itself: after a session ends, in the detached `cogit finalize`
(never in a hook), when config `reflect.auto` is on and, since the last reflection, at
least `reflect.min_interactions` meaningful interactions and `reflect.min_hours` hours have
passed. One at a time: a second finalize that finds runtime/reflect.lock held skips it.

It reflects on the scope where the session ran. A session outside any project: main, with
main's count (engagement.yaml, counted by the prompt hook). A session in a project: that
project (its rules and items, the global ones beneath), with the project's own count (the
`Cogit-Meaningful` of its sessions' fold commits since its last reflection,
cogit/learn/reflect_gather.py) and its own last reflection.

The last attempt is remembered in runtime/reflect.json (`at`, and the meaningful count
then; a project's under `projects`, by branch), success or failure alike, so a model that
is down is not asked again at every session end; failures go to runtime/logs/reflect.log
(and `cogit doctor`).
"""

from __future__ import annotations

import json
import time

from cogit.errors import CogitError
from cogit.learn import reflect as engine
from cogit.learn import reflect_log
from cogit.locking import LockTimeout, file_lock
from cogit.paths import Home
from cogit.store.git import repo as git


def marker_path(home: Home):
    return home.runtime / "reflect.json"


def lock_path(home: Home):
    return home.runtime / "reflect.lock"


def _marker(home: Home) -> dict:
    try:
        data = json.loads(marker_path(home).read_text("utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _last(state: dict, marked) -> float | None:
    from cogit.domain.ledger import parse_time

    times = [parse_time(i.get("created_at")) for i in (state.get("reflections") or {}).get("items") or []
             if i.get("source") == "reflection"]
    times = [t for t in times if t] + ([float(marked)] if isinstance(marked, (int, float)) and not isinstance(marked, bool) else [])
    return max(times) if times else None


def due(home: Home, state: dict, now: float | None = None, branch: str = git.MAIN, scope_state: dict | None = None) -> tuple[bool, str]:
    """(due, why) from main's state (the settings), the scope's state and the marker."""
    now = time.time() if now is None else now
    from cogit import machine_settings

    # When reflection runs is this machine's decision: its own file, never a synced config.yaml.
    s = engine.settings(machine_settings.effective(home, state.get("config")))
    if not s["auto"]:
        return False, "reflect.auto is off"
    marker = _marker(home)
    if branch == git.MAIN:
        meaningful = int((state.get("engagement") or {}).get("meaningful_interactions") or 0)
        base = marker.get("meaningful") if isinstance(marker.get("meaningful"), int) else 0
        since = meaningful - base if meaningful >= base else meaningful
        last = _last(state, marker.get("at"))
    else:
        from cogit.learn.reflect_gather import meaningful_since

        mine = (marker.get("projects") or {}).get(branch) if isinstance(marker.get("projects"), dict) else None
        last = _last(scope_state or {}, (mine or {}).get("at") if isinstance(mine, dict) else None)
        since = meaningful_since(home, branch, last)
    if since < int(s["min_interactions"]):
        return False, f"{since} meaningful interactions since the last reflection (reflect.min_interactions: {s['min_interactions']})"
    if last is not None and now - last < float(s["min_hours"]) * 3600:
        return False, f"{(now - last) / 3600:.1f} hours since the last reflection (reflect.min_hours: {s['min_hours']})"
    return True, f"{since} meaningful interactions and " + ("no reflection yet" if last is None else f"{(now - last) / 3600:.1f} hours")


def after_session(home: Home, branch: str = git.MAIN, project: str = "global") -> dict | None:
    """Reflect on the session's scope if due; never raises (a detached process has only the log to tell)."""
    from cogit.store.memory import read

    try:
        with file_lock(lock_path(home), 0):
            _, state = read(home, branch=git.MAIN)
            scope_state = state
            if branch != git.MAIN:
                sha, scope_state = read(home, branch=branch)
                if sha is None:
                    return None  # the project has no memory yet: nothing of its own to reflect on
            ok, why = due(home, state, branch=branch, scope_state=scope_state)
            if not ok:
                return None
            meaningful = int((state.get("engagement") or {}).get("meaningful_interactions") or 0)
            try:
                return engine.reflect(home, trigger="auto", by_hand=False, branch=branch, project=project)
            except CogitError:
                return None  # reflect() logged it
            finally:
                home.runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
                marker = _marker(home)
                if branch == git.MAIN:
                    marker.update(at=time.time(), meaningful=meaningful)
                else:
                    projects = marker.get("projects") if isinstance(marker.get("projects"), dict) else {}
                    projects[branch] = {"at": time.time()}
                    marker["projects"] = projects
                git.write_atomic(marker_path(home), json.dumps(marker).encode(), durable=False)
    except LockTimeout:
        return None  # another reflection runs: one at a time
    except Exception as e:  # noqa: BLE001 - logged, never raised into finalize
        reflect_log.log(home, f"reflection (auto) crashed: {type(e).__name__}: {e}")
        return None
