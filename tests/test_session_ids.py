"""Session ids are the agent's (hostile payload text): each one gets runtime state of its own,
under a bounded file name that is safe whatever the id holds."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from cogit.paths import safe_name

BASE = "s" * 80


def test_ids_that_share_their_first_80_characters_get_separate_names():
    a, b = BASE + "-one", BASE + "-two"
    assert safe_name(a) != safe_name(b)
    assert len(safe_name(a)) <= 80 and len(safe_name(b)) <= 80


def test_ids_that_differ_only_in_unsafe_characters_get_separate_names():
    names = {safe_name(x) for x in ("a/b", "a_b", "a\\b", "a b", "a\x00b", "a\u00e9b", ".ab", "ab.", "ab")}
    assert len(names) == 9
    for name in names:
        assert name and name not in (".", "..") and "/" not in name and "\x00" not in name
        assert all(c.isascii() and (c.isalnum() or c in "-_.") for c in name), name
        assert not name.startswith(".")


def test_plain_ids_keep_their_names():
    """A usual id (a UUID) is its own file name: runtime folders of live sessions stay where they are."""
    sid = "5f0c1d2e-1111-4a4a-9b9b-0123456789ab"
    assert safe_name(sid) == sid
    assert safe_name("project--main") == "project--main"


def _hook(home, folder, event, sid, **fields):
    body = {"session_id": sid, "cwd": str(folder), "hook_event_name": event, **fields}
    env = dict(os.environ, COGIT_HOME=str(home))
    proc = subprocess.run([sys.executable, "-m", "cogit", "hook", "claude", event], input=json.dumps(body).encode(),
                          capture_output=True, env=env, cwd=str(folder), timeout=30)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr


def test_two_long_ids_with_one_prefix_do_not_share_runtime_state(initialized, tmp_path):
    c = initialized
    folder = tmp_path / "proj"
    folder.mkdir()
    a, b = BASE + "-aaaa", BASE + "-bbbb"
    for sid in (a, b):
        _hook(c.home, folder, "SessionStart", sid, source="startup")
    for n in range(3):
        _hook(c.home, folder, "PostToolUse", a, tool_name="Read", tool_input={"file_path": f"{folder}/f{n}.py"},
              tool_response={"type": "text"}, tool_use_id=f"ta{n}", duration_ms=3)
    _hook(c.home, folder, "PostToolUse", b, tool_name="Read", tool_input={"file_path": f"{folder}/g.py"},
          tool_response={"type": "text"}, tool_use_id="tb0", duration_ms=3)
    sessions = c.home / "runtime" / "sessions"
    states = {}
    for d in sessions.iterdir():
        state = json.loads((d / "state.json").read_text())
        states[state["session_id"]] = state
        assert len(d.name) <= 80
    assert set(states) == {a, b}
    assert states[a]["n_calls"] == 3 and states[b]["n_calls"] == 1
