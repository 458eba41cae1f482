"""What each agent's hooks really delivered on this machine, kept for `cogit doctor`.

`cogit finalize` adds one record per folded session part: its shell calls, its failed
calls, and how it ended (`ended`: the agent's hooks said so; `gone`: its process is gone;
`silent`: it was folded after hooks.session_stale_minutes without a word). Only the last
KEEP records of each agent are kept, each with the cogit version that folded it, so
evidence from hooks an upgrade replaced stops counting. The file is runtime state of
this machine (runtime/agents.json), never synced: it is about the hooks installed here.
"""

from __future__ import annotations

import json
import os
import time

from cogit.locking import LockTimeout, file_lock

KEEP = 20
FILE = "agents.json"


def path_of(runtime: str) -> str:
    return os.path.join(runtime, FILE)


def read(runtime: str) -> dict:
    """{agent: [record, ...]} (oldest first); {} when missing or unreadable."""
    try:
        with open(path_of(runtime), encoding="utf-8") as f:
            data = json.loads(f.read(1 << 20))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: [r for r in v if isinstance(r, dict)] for k, v in data.items() if isinstance(k, str) and isinstance(v, list)}


def record(runtime: str, agent: str, fold_id: str, agg: dict, end: str) -> None:
    """Add the record of one folded part (once per fold id); never raises."""
    from cogit import __version__

    tools = (agg or {}).get("tools") or {}
    shell = tools.get("Bash") or {}
    entry = {"id": fold_id, "t": round(time.time()), "v": __version__, "end": end,
             "calls": sum(int(t.get("calls", 0)) for t in tools.values() if isinstance(t, dict)),
             "shell": int(shell.get("calls", 0)) if isinstance(shell, dict) else 0,
             "failures": sum(int(t.get("failures", 0)) for t in tools.values() if isinstance(t, dict))}
    try:
        os.makedirs(runtime, mode=0o700, exist_ok=True)
        with file_lock(path_of(runtime) + ".lock", 5):
            data = read(runtime)
            mine = [r for r in data.get(agent, []) if r.get("id") != fold_id]
            data[agent] = (mine + [entry])[-KEEP:]
            tmp = f"{path_of(runtime)}.{os.getpid()}.tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(json.dumps(data, indent=1))
            os.replace(tmp, path_of(runtime))
    except (OSError, LockTimeout, TypeError, ValueError):
        pass  # evidence for the doctor; a session's memory never waits on it
