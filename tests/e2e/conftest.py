"""Fixtures for driving the real Claude Code CLI against a scripted model.

- `claude_bin`: the native binary, installed once per session by .ci/install-claude.
  An install failure FAILS the tests that need it: a skipped e2e test would hide
  exactly the breakage these tests exist to catch.
- `fake_anthropic`: a started stand-in for the Messages API; set `.script`.
- `run_claude(prompt, home, env_extra=None, cwd=None)`: one headless run of
  `claude -p` pointed at the stand-in, returning the CompletedProcess.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from .fake_anthropic import FakeAnthropic

REPO = Path(__file__).resolve().parents[2]
INSTALL = REPO / ".ci" / "install-claude"
CLAUDE_TIMEOUT = 90  # seconds; a run against the stand-in normally takes ~1 s

# Variables that would make the run depend on the developer's machine: real
# credentials or endpoints, Claude Code's own settings, being nested inside a
# Claude Code session, or a cogit home the test did not choose.
_LEAKY_PREFIXES = ("ANTHROPIC_", "CLAUDE", "COGIT_", "OTEL_")


@pytest.fixture(scope="session")
def claude_bin() -> str:
    # COGIT_CLAUDE_BIN lets CI point at a binary it already has.
    explicit = os.environ.get("COGIT_CLAUDE_BIN")
    if explicit:
        return explicit
    proc = subprocess.run(
        [str(INSTALL)], capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL
    )
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        pytest.fail(
            f".ci/install-claude failed (exit {proc.returncode}):\n{proc.stderr}\n{proc.stdout}",
            pytrace=False,
        )
    return lines[-1]


@pytest.fixture
def fake_anthropic():
    with FakeAnthropic() as fake:
        yield fake


def claude_env(home: Path, base_url: str, env_extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(_LEAKY_PREFIXES)}
    env["COGIT_WITHHOLD_SEED"] = "off"  # no withholding draw in these loops (cogit/hooks/withhold.py)
    env.update(
        HOME=str(home),
        ANTHROPIC_BASE_URL=base_url,
        ANTHROPIC_API_KEY="dummy",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
    )
    env.update(env_extra or {})
    return env


@pytest.fixture
def run_claude(claude_bin, fake_anthropic, tmp_path):
    def run(prompt: str, home: Path, env_extra: dict[str, str] | None = None,
            cwd: Path | None = None, extra_args: list[str] = (), allowed: str = "Bash") -> subprocess.CompletedProcess:
        if cwd is None:
            cwd = tmp_path / "work"
            cwd.mkdir(exist_ok=True)
        args = [claude_bin, "-p", prompt, *extra_args, "--allowedTools", allowed, "--output-format", "json"]
        # stdin must not be inherited: with a non-tty stdin that never closes,
        # `claude -p` waits forever for more prompt text.
        # A new session lets a timeout kill the hook processes too, not just claude.
        proc = subprocess.Popen(
            args, cwd=cwd, env=claude_env(home, fake_anthropic.url, env_extra),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, start_new_session=True,
        )
        try:
            out, err = proc.communicate(timeout=CLAUDE_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            pytest.fail(
                f"claude -p timed out after {CLAUDE_TIMEOUT}s; "
                f"{len(fake_anthropic.requests)} requests reached the stand-in\n"
                f"stdout: {out[-2000:]}\nstderr: {err[-2000:]}",
                pytrace=False,
            )
        return subprocess.CompletedProcess(args, proc.returncode, out, err)

    return run


def claude_result(proc: subprocess.CompletedProcess) -> dict:
    """The `--output-format json` result object, with a useful message if the run failed."""
    assert proc.returncode == 0, f"claude exited {proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr}"
    result = json.loads(proc.stdout)
    assert not result.get("is_error"), result
    return result
