"""The recorded scenario traces again, this time through the real hook entrypoint.

tests/senses/test_traces.py replays them in-process with a trace clock; here every
payload goes to `python -m cogit hook claude EVENT` as a subprocess, as Claude Code
sends it, and we assert the exact stdout: nothing when silent, else one JSON object
whose additionalContext carries the expected senses in order; and, silent or not, that the
step is in the session's state (its tool call or prompt counted). The one trace whose
expectations depend on wall-clock minutes (Chronos by time) is left to the in-process
replay, which can inject time.
"""

from __future__ import annotations

import glob
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "senses"))
from test_traces import load, make_repo, substitute  # noqa: E402

from cogit import senses  # noqa: E402
from cogit.paths import safe_name  # noqa: E402
from cogit.senses import import_index  # noqa: E402

TRACES = sorted(glob.glob(os.path.join(HERE, "senses", "traces", "*.json")))
CLOCKED = {"long_run_without_user.json"}


@pytest.mark.parametrize("path", [p for p in TRACES if os.path.basename(p) not in CLOCKED], ids=os.path.basename)
def test_trace_through_the_hook_entrypoint(initialized, tmp_path, path):
    c = initialized
    trace = load(path)
    if trace.get("config"):
        cfg = c.home / "memory" / "config.yaml"
        cfg.write_text(cfg.read_text().replace("senses: {}", "senses: " + json.dumps(trace["config"])))
        c.run("commit", "-m", "Trace config")
    repo = make_repo(trace.get("setup"), tmp_path)
    if repo:  # the Spatial sense reads the import index the detached builder makes; made here first
        cache = str(c.home / "runtime" / "cache")
        import_index.build(repo, cache)
        import_index.mark_started(cache, repo)
    seen: dict = {}  # session id -> [tool calls, prompts] sent so far
    told: dict = {}  # session id -> the interrupt level the person was told of
    for index, step in enumerate(trace["steps"]):
        payload = substitute(step["payload"], repo)
        event = payload["hook_event_name"]
        proc = c.hook(event, payload)
        assert proc.returncode == 0 and proc.err == "", (index, proc.err)
        # every step, silent or not, is recorded in its session's state
        counts = seen.setdefault(payload["session_id"], [0, 0])
        counts[0] += event.startswith("PostToolUse")
        counts[1] += event == "UserPromptSubmit"
        state = json.loads((c.home / "runtime" / "sessions" / safe_name(payload["session_id"]) / "state.json").read_text())
        assert [state["n_calls"], state["agg"]["prompts"]] == counts, f"step {index}: {event} not recorded"
        expect = step.get("expect") or []
        if event == "SessionStart" and not expect:  # the digest, not a sense: empty memory says so in one line
            assert "cogit memory is active and empty so far" in json.loads(proc.out)["hookSpecificOutput"]["additionalContext"]
            continue
        if not expect:
            assert proc.out == "", f"step {index}: expected silence, got {proc.out}"
            continue
        out = json.loads(proc.out)
        assert list(out)[0] == "hookSpecificOutput" and set(out["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
        assert out["hookSpecificOutput"]["hookEventName"] == event
        text = out["hookSpecificOutput"]["additionalContext"]
        # The person is told only when the interrupt first reaches its last level (tests/test_interrupt_notice.py).
        assert set(out) <= {"hookSpecificOutput", "systemMessage"}
        assert ("systemMessage" in out) == (text.count("Level 3 of 3") == 1 and "Level 3 of 3" not in told.get(payload["session_id"], "")), index
        if "systemMessage" in out:
            told[payload["session_id"]] = "Level 3 of 3"
        assert senses.fired(text) == expect, f"step {index}: {text}"
        for fragment in step.get("contains") or []:
            assert fragment in text, (index, fragment)
    log = c.home / "runtime" / "logs" / "hooks.log"
    assert not log.exists() or "Traceback" not in log.read_text()
