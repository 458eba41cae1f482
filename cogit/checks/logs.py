"""Errors written to cogit's logs since the last `cogit doctor`.

hooks.log holds only failures (hooks fail open: the cause goes there), crash.log only
bugs (exit 3), reflect.log only failed reflections. Each is read from where the last
check stopped (runtime/doctor.json), so every entry is reported once.
"""

from __future__ import annotations

import os
import re

from cogit.checks import Finding

MAX_READ = 1 << 20  # the newest MiB of a log is plenty to count and quote
ENTRY = re.compile(r"^(?:--- )?\d{4}-\d\d-\d\dT\d\d:\d\d")

# (log file, finding name, status, what an entry is, what to do)
LOGS = (
    ("hooks.log", "hook-log", "warn", "hook error(s)",
     "Hooks fail open, so the agent went on; the entries say what failed. `cogit doctor` again shows only new ones."),
    ("crash.log", "crash-log", "fail", "crash(es) of cogit (a bug)",
     "Please report it with the entry from {path} (versions and traceback); `cogit doctor` again shows only new ones."),
    ("reflect.log", "reflect-log", "warn", "failed reflection(s)",
     "Check `reflect.endpoint` / `reflect.model` in this machine's machine-settings.json (or run `cogit reflect` to see the error)."),
)


def check_logs(home, last: dict) -> tuple[list, dict]:
    """Findings, and the offsets to remember as this check's end."""
    seen = last.get("logs") if isinstance(last.get("logs"), dict) else {}
    out, offsets = [], {}
    for name, check, status, what, hint in LOGS:
        path = os.path.join(str(home.logs), name)
        entries, offsets[name] = new_entries(path, seen.get(name))
        if entries:
            newest = "; ".join(summary(e) for e in entries[-3:])
            since = "since the last check" if last.get("time") else "in the log (first check)"
            out.append(Finding(check, status, f"{len(entries)} {what} {since}; newest: {newest}",
                               hint.format(path=path), extra={"log": path, "entries": len(entries)}))
        else:
            out.append(Finding(check, "ok", f"no new entries in {name}"))
    return out, offsets


def new_entries(path: str, seen) -> tuple[list[str], list[int]]:
    try:
        st = os.stat(path)
    except OSError:
        return [], [0, 0]
    start = 0
    if isinstance(seen, list) and len(seen) == 2 and seen[0] == st.st_ino and 0 <= seen[1] <= st.st_size:
        start = seen[1]
    start = max(start, st.st_size - MAX_READ)
    try:
        with open(path, "rb") as f:
            f.seek(start)
            data = f.read(st.st_size - start)
    except OSError:
        return [], [0, 0]
    entries: list[str] = []
    for line in data.decode("utf-8", "replace").splitlines():
        if ENTRY.match(line):
            entries.append(line)
        elif entries:
            entries[-1] += "\n" + line
    return entries, [st.st_ino, st.st_size]


def summary(entry: str) -> str:
    """An entry's first line, and for a traceback its last (the exception), cut short."""
    lines = [ln for ln in entry.splitlines() if ln.strip()]
    if len(lines) == 1:
        return lines[0][:200]
    return f"{lines[0][:60]} … {lines[-1].strip()[:140]}"
