"""Echo, validation: edits that no test run has checked.

Edits: `edits` successful writes to code files (by extension; docs and config are not
counted) since the last test run, whatever its result. The count restarts when the sense
speaks, so it speaks again after as many more edits.

New test only: since the last full-suite run, source files changed and a new test file was
created (a Write whose response says `"type": "create"`), and the current passing test run is
targeted (it names test files, node ids or -k/-run/-t filters) and names that new file instead
of running the suite. It speaks once per such set of changes. Editing an existing test and
running its file is ordinary iteration and stays silent.
"""

import os

from .base import cool, cooling, section
from .text import clip, display, listing, plural, tag

NAME = "echo"


def _fresh():
    return {"edits": 0, "files": [], "src": [], "new_tests": [], "last_test": None}


def _add(items, value, limit=20):
    if value in items:
        items.remove(value)
    items.append(value)
    del items[:-limit]


def _is_code_file(path):
    from .commands import is_code_file  # here: only a write needs it

    return is_code_file(path)


def sense(state, call, cfg, cwd=None):
    st = section(state, "echo", _fresh)
    text = None
    if call.get("kind") == "write" and call.get("ok") and _is_code_file(call.get("target")):
        st["edits"] += 1
        _add(st["files"], call["target"])
        if not call.get("test_file"):
            _add(st["src"], call["target"])
        elif call.get("created"):
            _add(st.setdefault("new_tests", []), call["target"])
        if cfg["enabled"] and st["edits"] >= cfg["edits"] and not cooling(state, NAME):
            if st["last_test"] is None:
                when = "no test run seen in this session"
            else:
                when = "the last test run was %d calls ago" % (call["i"] - st["last_test"])
            names = [display(f, cwd) for f in reversed(st["files"])]
            text = "%s %s to %s since the last test run (%s): %s. Have these changes been run against the tests?" % (
                tag(NAME), plural(st["edits"], "code edit"), plural(len(st["files"]), "file"), when, listing(names))
            st["edits"], st["files"] = 0, []
            cool(state, NAME, cfg["cooldown"])
    elif call.get("is_test"):
        st["edits"], st["files"] = 0, []
        st["last_test"] = call.get("i")
        new = [f for f in st.get("new_tests") or [] if os.path.basename(f) in (call.get("cmd") or "")]
        if call.get("scope") == "suite":
            st["src"], st["new_tests"] = [], []
        elif call.get("ok") and st["src"] and new and cfg["enabled"] and cfg["targeted"] and not cooling(state, NAME):
            src = [display(f, cwd) for f in reversed(st["src"])]
            text = (
                "%s Since the last full test run, source (%s) changed and a new test (%s) was written; this run "
                "(`%s`) covers only the new test. Regressions elsewhere in the suite would not show here."
                % (tag(NAME), listing(src), listing([os.path.basename(f) for f in new]), clip(call.get("cmd") or "", 100))
            )
            st["src"], st["new_tests"] = [], []
            cool(state, NAME, cfg["cooldown"])
    return text
