"""Agent sessions as they really run, for bench/storage.py: every event through cogit's real
hook entry (`cogit.hooks.run`, the function `cogit hook claude EVENT` calls) and every piece of
detached work a hook starts (`cogit finalize --quiet --session ID`, the import-index builder)
through cogit's real entry (`cogit.entry.main`), in this process and in order.

The quickest faithful way to 1,000 sessions: the same code, the same files, the same
commits, without paying Python's start-up twice per event. What differs from an agent:
the detached work runs right after the hook that starts it (an agent's next event would
race it), and the background pull of auto-sync is not run (no remote).

Each session: SessionStart in one of a few real git projects (an origin remote; one
session in five in a folder of no project), three prompts (one "remember this" every third
session, a praise every fifth), each followed by tool calls (Read, Edit, Bash; every fourth
session a test command that fails, then passes after an edit), a Stop per prompt, and
SessionEnd. Standard library and cogit only.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

PROJECTS = 4


def make_projects(root: Path, git_env: dict) -> list[Path]:
    out = []
    for p in range(PROJECTS):
        top = root / f"proj{p}"
        (top / "src").mkdir(parents=True)
        for m in range(12):
            (top / "src" / f"mod{m}.py").write_text(f"import os\nfrom src import mod{(m + 1) % 12}\n\nVALUE = {m}\n")
        (top / "src" / "__init__.py").write_text("")
        (top / "tests").mkdir()
        (top / "tests" / "test_mod.py").write_text("def test_value():\n    assert True\n")
        for args in (["init", "-q", "-b", "main"], ["remote", "add", "origin", f"git@github.com:acme/proj{p}.git"],
                     ["add", "-A"], ["-c", "user.name=b", "-c", "user.email=b@x", "commit", "-q", "-m", "start"]):
            subprocess.run(["git", "-C", str(top), *args], check=True, env=git_env, capture_output=True)
        out.append(top)
    (root / "scratch").mkdir()
    return out


class Runner:
    """Runs hooks and their detached work in this process, with COGIT_HOME = `home`."""

    def __init__(self, home: Path):
        self.home = str(home)
        self.queue: list[list[str]] = []
        self.hooks = self.background = 0

    def __enter__(self):
        from cogit.hooks import spawn as spawn_mod

        self._saved_env = dict(os.environ)
        for k in [k for k in os.environ if k.startswith(("COGIT_", "GIT_"))]:
            del os.environ[k]
        os.environ["COGIT_HOME"] = self.home
        self._spawn_mod, self._spawn = spawn_mod, spawn_mod.spawn
        spawn_mod.spawn = self._queue
        self._cwd = os.getcwd()
        return self

    def __exit__(self, *exc):
        self._spawn_mod.spawn = self._spawn
        os.environ.clear()
        os.environ.update(self._saved_env)
        os.chdir(self._cwd)

    def _queue(self, home_root, args, log_name, cwd=None):
        self.queue.append(list(args))

    def hook(self, event: str, body: dict) -> str:
        from cogit.hooks import run

        old_in, old_out = sys.stdin, sys.stdout
        sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps(dict(body, hook_event_name=event)).encode()))
        out = io.StringIO()
        sys.stdout = out
        try:
            os.chdir(body.get("cwd") or self.home)
            run(["claude", event])
        finally:
            sys.stdin, sys.stdout = old_in, old_out
        self.hooks += 1
        self.drain()
        return out.getvalue()

    def drain(self) -> None:
        """The detached work the hooks asked for, as `cogit.launch.background_argv` runs it:
        from COGIT_HOME, with COGIT_IN_HOOK=1. The pull of auto-sync is skipped (no remote)."""
        from cogit.entry import main

        while self.queue:
            args = self.queue.pop(0)
            if args[:1] == ["pull"]:
                continue
            os.chdir(self.home)
            os.environ["COGIT_IN_HOOK"] = "1"
            old_out, old_err = sys.stdout, sys.stderr
            sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
            try:
                main(args)
            except SystemExit:
                pass
            finally:
                sys.stdout, sys.stderr = old_out, old_err
                os.environ.pop("COGIT_IN_HOOK", None)
            self.background += 1


def session(runner: Runner, n: int, projects: list[Path], scratch: Path) -> None:
    """Session number `n`: the events one agent session sends (see the module's docstring)."""
    sid = f"{n:08x}-5e55-4b7e-9d0a-{n:012x}"
    cwd = scratch if n % 5 == 4 else projects[n % len(projects)]
    base = {"session_id": sid, "cwd": str(cwd), "transcript_path": str(scratch / f"{sid}.jsonl")}
    runner.hook("SessionStart", dict(base, source="startup", model="claude-sonnet-4"))
    call = 0

    def tool(name, tool_input, response=None, error=None):
        nonlocal call
        call += 1
        tid = f"toolu_{n:06x}{call:04x}"
        runner.hook("PreToolUse", dict(base, tool_name=name, tool_input=tool_input, tool_use_id=tid))
        if error is None:
            runner.hook("PostToolUse", dict(base, tool_name=name, tool_input=tool_input, tool_use_id=tid,
                                            tool_response=response or {}, duration_ms=20))
        else:
            runner.hook("PostToolUseFailure", dict(base, tool_name=name, tool_input=tool_input, tool_use_id=tid,
                                                   error=error, duration_ms=400))

    mod = f"{cwd}/src/mod{n % 12}.py"
    prompts = [f"Please look at module {n % 12} and tell me why the value handling in session {n} is off by one.",
               f"Now change the function in module {n % 12} so that it handles empty input, and run the tests.",
               "Thanks, that works. Commit it with a short message please, and summarise what changed."]
    if n % 3 == 0:
        prompts[1] = f"Remember this: in this project run `make gen` before the tests (noted in session {n})."
    if n % 5 == 0:
        prompts[2] = "Perfect, exactly what I wanted, great work. Now please write the commit message for it."
    for i, prompt in enumerate(prompts):
        runner.hook("UserPromptSubmit", dict(base, prompt=prompt))
        if i == 0:
            tool("Read", {"file_path": mod}, {"type": "text", "file": {"filePath": mod, "content": "VALUE = 1\n"}})
            tool("Bash", {"command": "git status --short"}, {"stdout": " M src/x.py\n", "stderr": "", "interrupted": False})
        elif i == 1:
            tool("Edit", {"file_path": mod, "old_string": "VALUE", "new_string": "VALUE2"},
                 {"filePath": mod, "oldString": "VALUE", "newString": "VALUE2", "structuredPatch": []})
            if n % 4 == 1:
                tool("Bash", {"command": "python -m pytest -q tests"}, error=(
                    f"Exit code 1\nFAILED tests/test_mod.py::test_value - AssertionError: assert {n} == 0\n1 failed in 0.03s"))
                tool("Edit", {"file_path": mod, "old_string": "VALUE2", "new_string": "VALUE"},
                     {"filePath": mod, "oldString": "VALUE2", "newString": "VALUE", "structuredPatch": []})
            tool("Bash", {"command": "python -m pytest -q tests"},
                 {"stdout": "1 passed in 0.02s\n", "stderr": "", "interrupted": False})
        else:
            tool("Bash", {"command": f"git commit -am 'session {n}'"},
                 {"stdout": "[main abc1234] x\n 1 file changed\n", "stderr": "", "interrupted": False})
        runner.hook("Stop", dict(base, stop_hook_active=False))
    runner.hook("SessionEnd", dict(base, reason="exit"))
