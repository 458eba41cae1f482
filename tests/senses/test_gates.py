"""The gates cogit/senses/__init__.py puts before Spatial and Drift: a sense
skipped (its module not loaded) only where it would have said nothing and changed nothing."""

import copy
import json
import os
import subprocess
import sys

from cogit import senses
from cogit.senses import base, config, drift, spatial

CWD = "/w"
OK = {"stdout": "a\n", "stderr": "", "interrupted": False, "isImage": False}
CALLS = [
    ("Bash", {"command": "ls -la"}, OK, None),
    ("Bash", {"command": "pytest -q tests/test_x.py"}, {"stdout": "", "stderr": "E  boom", "interrupted": False}, "exit 1"),
    ("Read", {"file_path": "/w/pkg/util.py"}, {"type": "text", "file": {"filePath": "/w/pkg/util.py", "content": "x"}}, None),
    ("Read", {"file_path": "/w/missing.py"}, None, "File does not exist."),
    ("Edit", {"file_path": "/w/pkg/core.py", "old_string": "a", "new_string": "b"}, {"filePath": "/w/pkg/core.py"}, None),
    ("Edit", {"file_path": "/w/pkg/core.py", "old_string": "a", "new_string": "b"}, None, "String not found"),
    ("Write", {"file_path": "/w/tests/test_new.py", "content": "def test(): pass\n"}, {"filePath": "/w/tests/test_new.py"}, None),
    ("Grep", {"pattern": "foo", "path": "/w"}, {"filenames": []}, None),
    ("WebFetch", {"url": "https://example.org"}, {"result": "x"}, None),
    ("mcp__x__y", {}, {}, None),
]
SENSES = {"spatial": spatial.sense, "drift": drift.sense}


def _states():
    fresh = base.new_state() if hasattr(base, "new_state") else {}
    base.ensure(fresh)
    prompted = copy.deepcopy(fresh)
    senses.on_prompt(prompted, "Please fix the failing parser test in module core and explain it", 10.0)
    empty = copy.deepcopy(fresh)
    senses.on_prompt(empty, "ok", 10.0)
    return [fresh, prompted, empty]


def _args(name, state, call, cfg, tmp):
    return {"spatial": (state, call, cfg["spatial"], str(tmp)), "drift": (state, call, cfg["drift"], CWD)}[name]


def test_a_closed_gate_means_the_sense_would_say_nothing_and_change_nothing(tmp_path):
    cfg = config.resolve({})
    closed = 0
    for tool, ti, resp, err in CALLS:
        for state in _states():
            call = senses.make_call(tool, ti, resp, err, 5, 20.0, CWD)
            state["n"] += 1
            call["i"] = state["n"]
            state["win"].append(call)
            for name, sense in SENSES.items():
                if senses._GATES[name](state, call):
                    continue
                closed += 1
                s2, c2 = copy.deepcopy(state), copy.deepcopy(call)
                assert sense(*_args(name, s2, c2, cfg, tmp_path)) is None, (name, tool)
                assert (s2, c2) == (state, call), (name, tool)
    assert closed > 15


def test_an_open_gate_lets_each_sense_speak():
    state = _states()[1]
    edit = senses.make_call("Edit", {"file_path": "/w/pkg/core.py"}, {"filePath": "/w/pkg/core.py"}, None, 5, 20.0, CWD)
    assert all(senses._GATES[name](state, edit) for name in SENSES)


def test_a_silent_bash_call_loads_no_gated_sense():
    code = ("import sys, json; from cogit import senses; st = {}; "
            "c = senses.make_call('Bash', {'command': 'ls'}, {'stdout': 'a'}, None, 5, 1.0, '/w'); "
            "senses.observe(st, c, {}, cwd='/w', now=1.0); "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('cogit.senses.'))))")
    env = {k: v for k, v in os.environ.items() if not k.startswith("COGIT_")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    loaded = set(json.loads(out))
    assert "cogit.senses.echo" in loaded  # the sense loop ran
    assert not loaded & {"cogit.senses.spatial", "cogit.senses.drift"}, loaded
