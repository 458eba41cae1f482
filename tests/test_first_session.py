"""Memory that makes itself: the first agent session on a machine with no `cogit init`."""

from __future__ import annotations

import json
import time

SID = "0f1e2d3c-first-4b5a-8c7d-6e5f4a3b2c1d"


def test_a_lesson_noted_before_any_init_is_stored(cogit):
    c = cogit
    assert not c.home.exists()
    base = {"session_id": SID, "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp"}
    assert c.hook("SessionStart", dict(base, hook_event_name="SessionStart", source="startup")).returncode == 0
    said = c.hook("UserPromptSubmit", dict(base, hook_event_name="UserPromptSubmit", permission_mode="default",
                                           prompt="Remember this: the first lesson on a new machine"))
    assert "noted" in said.out
    c.hook("SessionEnd", dict(base, hook_event_name="SessionEnd", reason="other"))
    deadline, texts = time.monotonic() + 30, []
    while time.monotonic() < deadline:
        shown = c.run("show", "learnings", "--json", check=False)
        texts = [i["text"] for i in json.loads(shown.out)["learnings"]] if shown.returncode == 0 else []
        if texts and not any((c.home / "runtime" / "sessions").iterdir()):
            break
        time.sleep(0.2)
    assert texts == ["the first lesson on a new machine"]
    log = (c.home / "runtime" / "logs" / "store.log").read_text()
    assert "created memory" in log and "at the first agent session" in log
    c.assert_healthy()
    # The next session is told what memory holds.
    start = c.hook("SessionStart", dict(base, session_id=SID + "-2", hook_event_name="SessionStart", source="startup"))
    assert "the first lesson on a new machine" in start.out
