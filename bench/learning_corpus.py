"""Two corpora of sessions for the learning loop's detectors, as Claude Code hook payloads.

- ORDINARY: healthy work. No detector may make a rule from any of it.
- REAL: the patterns worth a rule, each labelled with the detector that must find it.

Each workflow is a function of a `Session` builder; `Session.events()` gives the
(hook event, payload) pairs that `cogit hook claude EVENT` receives, in order: SessionStart,
the prompt, the tool calls (PostToolUse / PostToolUseFailure, shaped as Claude Code sends
them), SessionEnd. Paths are under the session's project folder (`cwd`), which
`make_project` creates (a git repo with src/, tests/ and docs/, so "tests exist").

Used by tests/test_learning_corpus.py (every session through the real hook entrypoints) and
by bench/detectors.py (precision and recall per detector). Standard library only; it imports
nothing of cogit, so the bench measures the installed cogit.
"""

from __future__ import annotations

import os
import subprocess


def make_project(root: str) -> str:
    """A small project with code, tests and docs (the files the workflows touch exist)."""
    for rel in ("src/app.py", "src/store.py", "src/calc.py", "src/config.py", "src/auth.py", "src/big.py",
                "tests/test_calc.py", "tests/test_store.py", "README.md", "docs/guide.md", "pyproject.toml"):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write("# %s\n" % rel)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", "init", "-q", root], check=True, env=env)
    return root


class Session:
    def __init__(self, sid: str, cwd: str, prompt: str = "Please fix the failing check in the app"):
        self.sid, self.cwd, self.prompt = sid, cwd, prompt
        self.calls: list[tuple[str, dict]] = []
        self.prompts: list[str] = []

    def _p(self, event, **fields):
        p = {"session_id": self.sid, "transcript_path": "/tmp/%s.jsonl" % self.sid, "cwd": self.cwd,
             "hook_event_name": event, "permission_mode": "default"}
        p.update(fields)
        return p

    def _path(self, rel):
        return os.path.join(self.cwd, rel)

    def _tool(self, name, ti, response=None, error=None):
        n = len(self.calls)
        if error is None:
            self.calls.append(("PostToolUse", self._p("PostToolUse", tool_name=name, tool_input=ti, tool_response=response,
                                                      tool_use_id="toolu_%s_%d" % (self.sid, n), duration_ms=20)))
        else:
            self.calls.append(("PostToolUseFailure", self._p("PostToolUseFailure", tool_name=name, tool_input=ti, error=error,
                                                             is_interrupt=False, tool_use_id="toolu_%s_%d" % (self.sid, n), duration_ms=20)))
        return self

    # --- tools ---
    def read(self, rel, offset=None, limit=None, lines=40):
        ti = {"file_path": self._path(rel)}
        if offset is not None:
            ti["offset"] = offset
        if limit is not None:
            ti["limit"] = limit
        content = "\n".join("line %d of %s" % (i, rel) for i in range(lines))
        return self._tool("Read", ti, {"type": "text", "file": {"filePath": ti["file_path"], "content": content,
                                                                "numLines": lines, "startLine": offset or 1, "totalLines": 2000}})

    def edit(self, rel, old="old", new="new"):
        path = self._path(rel)
        return self._tool("Edit", {"file_path": path, "old_string": old, "new_string": new, "replace_all": False},
                          {"filePath": path, "oldString": old, "newString": new, "originalFile": "x",
                           "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1,
                                                "lines": ["-" + old, "+" + new]}], "userModified": False})

    def write(self, rel, content="x = 1\n", create=True):
        path = self._path(rel)
        return self._tool("Write", {"file_path": path, "content": content},
                          {"type": "create" if create else "update", "filePath": path, "content": content, "structuredPatch": []})

    def bash(self, cmd, stdout="ok"):
        return self._tool("Bash", {"command": cmd, "description": cmd[:40]},
                          {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False})

    def fail(self, cmd, output, code=1):
        return self._tool("Bash", {"command": cmd, "description": cmd[:40]}, error="Exit code %d\n%s" % (code, output))

    def grep(self, pattern, rel=".", found=()):
        names = [self._path(x) for x in found]
        ti = {"pattern": pattern, "path": self._path(rel), "output_mode": "files_with_matches"}
        return self._tool("Grep", ti, {"mode": "files_with_matches", "filenames": names, "numFiles": len(names)})

    def glob(self, pattern, found=()):
        names = [self._path(x) for x in found]
        return self._tool("Glob", {"pattern": pattern, "path": self.cwd},
                          {"filenames": names, "durationMs": 5, "numFiles": len(names), "truncated": False})

    def user(self, text):
        self.calls.append(("UserPromptSubmit", self._p("UserPromptSubmit", prompt=text)))
        return self

    def events(self):
        yield "SessionStart", self._p("SessionStart", source="startup")
        yield "UserPromptSubmit", self._p("UserPromptSubmit", prompt=self.prompt)
        yield from self.calls
        yield "SessionEnd", self._p("SessionEnd", reason="prompt_input_exit")


def _pytest_fail(test, line):
    return ("============================= test session starts ==============================\n"
            "tests/test_calc.py F\n=================================== FAILURES ===================================\n"
            "____ %s ____\n    def %s():\n>       assert add(1, 2) == 3\nE       %s\n\ntests/test_calc.py:4: %s\n"
            "=========================== short test summary info ============================\n"
            "FAILED tests/test_calc.py::%s - %s\n1 failed in 0.03s" % (test, test, line, line.split(":")[0], test, line))


# --- ordinary, healthy work: no rule may come of any of it ---

def read_edit_verify(s: Session):
    """Re-reading a file after editing it is how an agent avoids editing a stale copy."""
    s.read("src/store.py")
    for i in range(4):
        s.edit("src/store.py", "v%d" % i, "v%d" % (i + 1)).read("src/store.py")
    s.bash(".venv/bin/python -m pytest -q tests/test_store.py", "1 passed")


def long_file_in_parts(s: Session):
    for i in range(6):
        s.read("src/big.py", offset=1 + 400 * i, limit=400, lines=400)
    s.edit("src/big.py").read("src/big.py", offset=1, limit=400, lines=400)
    s.bash("python -m pytest -q", "12 passed")


def rename_with_leftover_greps(s: Session):
    files = ["src/app.py", "src/store.py", "src/calc.py", "src/config.py", "tests/test_store.py"]
    s.grep("load_items", "src", files)
    for f in files:
        s.edit(f, "load_items", "fetch_items")
    s.grep("load_items", "src", files[:2])
    for f in files[:2]:
        s.edit(f, "load_items(", "fetch_items(")
    s.grep("load_items", "src").grep("load_items", "tests").grep("load_items", "docs")
    s.bash("python -m pytest -q", "14 passed")


def docs_only_edits(s: Session):
    s.read("README.md")
    for i in range(9):
        s.edit("README.md" if i % 2 else "docs/guide.md", "teh %d" % i, "the %d" % i)
    s.edit("pyproject.toml", 'version = "1.0"', 'version = "1.1"')


def red_green_tdd(s: Session):
    s.write("tests/test_calc.py", "def test_add():\n    assert add(1, 2) == 3\n")
    s.fail("python -m pytest -q tests/test_calc.py", _pytest_fail("test_add", "NameError: name 'add' is not defined"))
    s.edit("src/calc.py", "pass", "def add(a, b): return 0")
    s.fail("python -m pytest -q tests/test_calc.py", _pytest_fail("test_add", "assert 0 == 3"))
    s.edit("src/calc.py", "return 0", "return a")
    s.fail("python -m pytest -q tests/test_calc.py", _pytest_fail("test_add", "assert 1 == 3"))
    s.edit("src/calc.py", "return a", "return a * b")
    s.fail("python -m pytest -q tests/test_calc.py", _pytest_fail("test_add", "assert 2 == 3"))
    s.edit("src/calc.py", "return a * b", "return a + b")
    s.bash("python -m pytest -q tests/test_calc.py", "1 passed")
    s.bash("python -m pytest -q", "15 passed")


def retried_network_error(s: Session):
    err = "npm ERR! code ECONNRESET\nnpm ERR! network request to https://registry.npmjs.org/left-pad failed, reason: socket hang up"
    for _ in range(3):
        s.fail("npm install", err).bash("sleep 5", "")
    s.bash("npm install", "added 12 packages in 3s").bash("npm test", "ok 4 tests")


def migration_user_asked_for(s: Session):
    s.prompt = "Migrate every storage module from JSON files to SQLite, all of them, and run the tests at the end"
    mods = ["src/store.py", "src/app.py", "src/config.py", "src/calc.py", "src/auth.py", "src/big.py"]
    for round_ in range(2):
        for m in mods:
            s.read(m, offset=1 + 200 * round_, limit=200, lines=200)
            s.edit(m, "json.load(%d)" % round_, "sqlite3.connect(%d)" % round_)
    s.write("src/schema.sql", "create table items (id integer primary key);\n")
    for m in mods:
        s.grep("json.load", m)
    for m in mods:
        s.read(m, offset=1, limit=200, lines=200)
    s.bash("python -m pytest -q", "40 passed")
    for m in mods:
        s.edit(m, "# TODO", "# done")
    s.bash("python -m pytest -q", "40 passed")
    s.bash("git diff --stat", " 7 files changed")


def rejected_push_then_pull(s: Session):
    s.bash("git commit -am 'Fix the parser'", "[main 1a2b3c4] Fix the parser")
    s.fail("git push origin main", "To github.com:me/app.git\n ! [rejected]        main -> main (fetch first)\n"
           "error: failed to push some refs to 'github.com:me/app.git'\nhint: Updates were rejected because the remote contains work")
    s.bash("git pull --rebase origin main", "Successfully rebased and updated refs/heads/main.")
    s.bash("python -m pytest -q", "15 passed")
    s.bash("git push origin main", "main -> main")


def exploration(s: Session):
    s.glob("**/*.py", ["src/app.py", "src/store.py", "src/calc.py", "src/config.py", "src/auth.py"])
    for pat, hits in (("def main", ["src/app.py"]), ("class Store", ["src/store.py"]), ("import sqlite3", []),
                      ("sqlite", ["src/store.py"]), ("TODO", ["src/app.py", "src/auth.py"])):
        s.grep(pat, "src", hits)
    for f in ("src/app.py", "src/store.py", "src/config.py", "src/auth.py", "src/calc.py", "README.md", "docs/guide.md",
              "pyproject.toml", "tests/test_store.py"):
        s.read(f, lines=300)
    s.read("src/store.py", offset=100, limit=50, lines=50)
    s.bash("git log --oneline -n 20", "abc first").bash("ls src", "app.py store.py")


ORDINARY = {f.__name__: f for f in (read_edit_verify, long_file_in_parts, rename_with_leftover_greps, docs_only_edits,
                                      red_green_tdd, retried_network_error, migration_user_asked_for,
                                      rejected_push_then_pull, exploration)}


# --- real patterns: each must be found by its detector ---

def same_error_looping(s: Session):
    """The loop PYTHONPATH fixed (issue 22's example): the first session teaches the fix."""
    err = ("Traceback (most recent call last):\n  File \"%s/app.py\", line 1, in <module>\n    import dih_helpers\n"
           "ModuleNotFoundError: No module named 'dih_helpers'" % s._path("src"))
    s.fail("python3 src/app.py", err)
    s.edit("src/app.py", "import dih_helpers", "from . import dih_helpers")
    s.fail("python3 src/app.py", err.replace("import dih_helpers", "from . import dih_helpers"))
    s.edit("src/app.py", "from . import dih_helpers", "import dih_helpers")
    s.fail("python3 src/app.py", err)
    s.bash("ls src", "app.py dih_helpers.py")
    s.bash("PYTHONPATH=src python3 src/app.py", "ready")
    s.bash("PYTHONPATH=src python3 src/app.py --check", "ok")
    s.bash("git status --short", " M src/app.py")


def error_loop_unresolved(s: Session):
    err = "error: linker `cc` not found\n  |\n  = note: No such file or directory (os error 2)"
    for i in range(4):
        s.fail("cargo build", err).edit("Cargo.toml", "opt-level = %d" % i, "opt-level = %d" % (i + 1))


def rereading_unchanged_file(s: Session):
    for other in ("src/app.py", "src/store.py", "src/calc.py", "src/auth.py"):
        s.read("src/config.py").read(other)
    s.bash("python -m pytest -q", "15 passed")


def fruitless_searches(s: Session):
    s.grep("handle_auth", "src").grep("handle_auth", "tests").grep("handle_auth", ".")
    s.read("src/auth.py")


def same_search_again(s: Session):
    for _ in range(3):
        s.grep("retry_policy", "src", ["src/config.py"]).read("src/app.py", offset=1, limit=50)


def many_edits_no_tests(s: Session):
    for i in range(10):
        s.edit(("src/store.py", "src/app.py", "src/calc.py")[i % 3], "a%d" % i, "b%d" % i)
    s.bash("git diff --stat", " 3 files changed")


REAL = {
    "same_error_looping": ("error_loop", same_error_looping),
    "error_loop_unresolved": ("error_loop", error_loop_unresolved),
    "rereading_unchanged_file": ("repeated_read", rereading_unchanged_file),
    "fruitless_searches": ("circular_search", fruitless_searches),
    "same_search_again": ("circular_search", same_search_again),
    "many_edits_no_tests": ("edits_without_tests", many_edits_no_tests),
}


def workload(n: int = 20):
    """n ordinary sessions, cycling through ORDINARY (the 20-session workload)."""
    names = list(ORDINARY)
    return [(names[i % len(names)], ORDINARY[names[i % len(names)]]) for i in range(n)]
