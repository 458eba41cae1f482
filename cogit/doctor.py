"""`cogit doctor`: what cogit could not do by itself and a person should look at.

Minimal for now: queued items the store refused (invalid, over a limit), kept in
runtime/unstored/ by `cogit finalize` instead of being dropped, and sessions whose
records are not in memory yet. Each finding says what to do next.
"""

from __future__ import annotations

import json

from cogit.paths import Home


def check(home: Home) -> dict:
    from cogit.learn.drain import unstored_dir
    from cogit.store.status import unsaved_sessions

    unstored = []
    folder = unstored_dir(home)
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            record = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError) as e:
            record = {"reason": f"unreadable record: {e}"}
        record["file"] = str(path)
        unstored.append(record)
    return {"unstored": unstored, "unsaved_sessions": unsaved_sessions(home), "ok": not unstored}


def excerpt(text, limit: int = 80) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
