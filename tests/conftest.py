"""Shared fixtures: every test gets its own HOME and COGIT_HOME in a temp dir.

Tests never touch the real home directory: HOME, XDG_* and COGIT_HOME point into
tmp_path, and GIT_* variables are cleared so no test can reach another repository.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import settings

# The real-local-model test needs ~730 MB of node-llama-cpp and a GGUF, and minutes of CPU:
# it is opt-in (COGIT_REAL_MODEL=1), never collected-and-skipped in the default run.
collect_ignore = [] if os.environ.get("COGIT_REAL_MODEL") == "1" else ["test_reflect_real_model.py"]
# No test meets a withholding draw it did not ask for (cogit/hooks/withhold.py), also in
# module-scoped fixtures, which run before the per-test environment below is set.
os.environ.setdefault("COGIT_WITHHOLD_SEED", "off")

# CI replays the same examples every run (a red CI must be reproducible); a developer's
# run draws new ones, which is how the property tests keep finding bugs.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

REPO_ROOT = Path(__file__).resolve().parent.parent


# The temp folders of every test, for the provenance walk at the end of the session.
TEST_DIRS: list[Path] = []


@pytest.fixture(autouse=True)
def isolated_env(tmp_path, monkeypatch):
    TEST_DIRS.append(tmp_path)
    home = tmp_path / "userhome"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("COGIT_HOME", str(tmp_path / "cogit-home"))
    monkeypatch.setenv("COGIT_AUTHOR", "Test Person <test@example.com>")
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    for key in ("CODEX_HOME", "GEMINI_CLI_HOME", "OPENCLAW_STATE_DIR"):  # other agents' config homes
        monkeypatch.delenv(key, raising=False)
    monkeypatch.delenv("COGIT_IN_HOOK", raising=False)
    # No test meets a withholding draw it did not ask for (cogit/hooks/withhold.py); the
    # tests of withholding set their own seed.
    monkeypatch.setenv("COGIT_WITHHOLD_SEED", "off")
    for key in [k for k in os.environ if k.startswith("GIT_")]:
        monkeypatch.delenv(key)
    yield


@pytest.fixture
def cogit_home(tmp_path) -> Path:
    return tmp_path / "cogit-home"


class Cogit:
    """Runs the real `python -m cogit` in a subprocess, with the test's environment."""

    def __init__(self, home: Path):
        self.home = home

    def run(self, *args, input: str | bytes | None = None, check: bool = True, env: dict | None = None, timeout: float = 60,
            cwd=None):
        full_env = dict(os.environ, COGIT_HOME=str(self.home), **(env or {}))
        proc = subprocess.run(
            [sys.executable, "-m", "cogit", *args],
            input=input.encode() if isinstance(input, str) else input,
            capture_output=True,
            env=full_env,
            timeout=timeout,
            cwd=str(cwd or self.home.parent),
        )
        proc.out = proc.stdout.decode("utf-8", "replace")
        proc.err = proc.stderr.decode("utf-8", "replace")
        if check and proc.returncode != 0:
            raise AssertionError(f"cogit {' '.join(args)} exited {proc.returncode}\n{proc.out}\n{proc.err}")
        return proc

    def json(self, *args):
        return json.loads(self.run(*args, "--json").out)

    def hook(self, event: str, payload, env: dict | None = None):
        data = payload if isinstance(payload, (str, bytes)) else json.dumps(payload)
        return self.run("hook", "claude", event, input=data, check=False, env=env)

    def git(self, *args) -> str:
        return git(self.home / "memory", *args)

    def confirm_waiting(self) -> list[str]:
        """What a person does after setting, in config.yaml, a setting that acts (reflect.command,
        sync.auto, ...): run each `cogit confirm` command that waits. Returns the keys."""
        waiting = self.json("confirm")
        for p in waiting:
            self.run(*p["command"].split()[1:])
        return [p["key"] for p in waiting]

    def assert_healthy(self) -> None:
        """The invariants after every command: fsck clean, tree clean, trailers there."""
        self.git("fsck", "--strict")
        assert self.git("status", "--porcelain") == ""
        for block in self.git("log", "--format=%(trailers)%x00").split("\0"):
            if block.strip():
                assert "Cogit-Event:" in block and "Cogit-Source:" in block, block


def wait_for(check, timeout=20.0):
    """Poll `check` until it is true (detached work such as a fold finishes a moment later)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return check()


def git(cwd: Path, *args) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    proc = subprocess.run(["git", *args], cwd=str(cwd), capture_output=True, text=True, env=env)
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc.stdout


@pytest.fixture
def cogit(cogit_home) -> Cogit:
    return Cogit(cogit_home)


@pytest.fixture
def initialized(cogit) -> Cogit:
    cogit.run("init")
    return cogit


# --------------------------------------------------------------------------- provenance walk
# At the end of the session, every memory repository the tests created is walked and each
# commit cogit made is checked against its diff (tests/provenance_walk.py). It reads at most
# WALK_COMMITS commits per branch (the newest) and stops after WALK_SECONDS (sampling the
# homes evenly when there is not time for all); the summary line says how much it covered.
WALK_COMMITS = int(os.environ.get("COGIT_WALK_COMMITS", "300"))
WALK_SECONDS = float(os.environ.get("COGIT_WALK_SECONDS", "60"))


def memory_repos(dirs) -> list[Path]:
    found = []
    for d in dirs:
        for pattern in ("*/memory", "*/*/memory", "*/*/*/memory"):
            found += [p for p in sorted(d.glob(pattern)) if (p / ".git" / "HEAD").is_file()]
    return found


def _walk_dir(config) -> Path:
    # Under pytest-xdist each worker walks the homes its own tests made and leaves its
    # summary here (the controller's basetemp, the parent of every worker's); the
    # controller, which ran no test, prints them and fails the run on a problem.
    base = config._tmp_path_factory.getbasetemp()
    return base.parent if hasattr(config, "workerinput") else base


def pytest_sessionfinish(session, exitstatus):
    if os.environ.get("COGIT_PROVENANCE_WALK", "1") == "0":
        return
    worker = getattr(session.config, "workerinput", {}).get("workerid")
    if not TEST_DIRS:
        if worker is None and session.config.pluginmanager.hasplugin("xdist"):
            _report_walks(session)
        return
    import random
    import time

    sys.path.insert(0, str(Path(__file__).parent))
    from provenance_walk import check_memory

    repos = memory_repos(TEST_DIRS)
    random.Random(0).shuffle(repos)  # a cut-off by time still samples every kind of test
    start, checked, commits, problems, slowest = time.monotonic(), 0, 0, [], (0.0, "")
    for path in repos:
        if time.monotonic() - start > WALK_SECONDS:
            break
        began = time.monotonic()
        try:
            n, found = check_memory(path, WALK_COMMITS, deadline=start + WALK_SECONDS)
        except Exception as e:  # a repository a test broke on purpose
            n, found = 0, [f"cannot walk: {type(e).__name__}: {e}"] if "cogit" in str(e) else []
        slowest = max(slowest, (time.monotonic() - began, str(path)))
        checked, commits = checked + 1, commits + n
        problems += [f"{path}: {p}" for p in found]
    line = (f"provenance walk{f' ({worker})' if worker else ''}: {commits} commits in {checked} of {len(repos)} "
            f"memory repositories ({time.monotonic() - start:.1f}s; slowest {slowest[0]:.1f}s: {slowest[1]}), "
            f"{len(problems)} problem(s)")
    if worker is not None:
        (_walk_dir(session.config) / f"provenance-walk-{worker}.json").write_text(json.dumps([line, problems]))
        return
    _print_walk(session, line, problems)


def _print_walk(session, line: str, problems: list[str]) -> None:
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.ensure_newline()
        reporter.write_line(line)
        for p in problems[:50]:
            reporter.write_line("  " + p)
    if problems and session.exitstatus == 0:
        session.exitstatus = 1


def _report_walks(session) -> None:
    for path in sorted(_walk_dir(session.config).glob("provenance-walk-*.json")):
        line, problems = json.loads(path.read_text())
        _print_walk(session, line, problems)
