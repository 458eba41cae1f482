"""The real OpenClaw for tests/e2e/test_openclaw.py and test_reflex_openclaw.py: the binary
(.ci/install-openclaw), and one set-up of `openclaw agent --local` with cogit's plugin as
`cogit install openclaw` installs it, pointed at a scripted Responses API on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INSTALL = REPO / ".ci" / "install-openclaw"
# Variables that would make a run depend on the developer's machine (or on a home the test did not choose).
LEAKY = ("OPENCLAW_", "COGIT_", "OPENAI_")


@pytest.fixture(scope="session")
def openclaw_bin() -> str:
    explicit = os.environ.get("COGIT_OPENCLAW_BIN")
    if explicit:
        return explicit
    proc = subprocess.run([str(INSTALL)], capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        pytest.fail(f".ci/install-openclaw failed (exit {proc.returncode}):\n{proc.stderr}\n{proc.stdout}", pytrace=False)
    return lines[-1]


def clean_env(state: Path, home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(LEAKY)}
    env["COGIT_WITHHOLD_SEED"] = "off"  # no withholding draw in these loops (cogit/hooks/withhold.py)
    env.update(HOME=str(home), OPENCLAW_STATE_DIR=str(state))
    return env


class OpenClaw:
    """cogit's plugin installed in a fresh OpenClaw state folder, the model a started FakeOpenAI
    (`.fake`; stop it with `.stop()`), the workspace `work`. `c`: the `initialized` fixture."""

    def __init__(self, c, tmp_path: Path, work: Path, script):
        from .fake_openai import FakeOpenAI

        self.c, self.work = c, work
        self.state, self.home = tmp_path / "openclaw-state", c.home.parent / "userhome"
        c.run("install", "openclaw", env={"OPENCLAW_STATE_DIR": str(self.state)})
        self.env = clean_env(self.state, self.home)
        self.fake = FakeOpenAI(script=script).start()
        try:
            cfg = self.config()
            cfg["models"] = {"providers": {"fake": {"baseUrl": self.fake.base_url, "apiKey": "dummy", "api": "openai-responses",
                                                    "models": [{"id": "m1", "name": "m1", "contextWindow": 128000,
                                                                "maxTokens": 4096}]}}}
            cfg["agents"] = {"defaults": {"model": {"primary": "fake/m1"}, "workspace": str(work)}}
            self.write_config(cfg)
        except BaseException:
            self.fake.stop()
            raise

    def config(self) -> dict:
        return json.loads((self.state / "openclaw.json").read_text())

    def write_config(self, cfg: dict) -> None:
        (self.state / "openclaw.json").write_text(json.dumps(cfg, indent=2))

    def stop(self) -> None:
        self.fake.stop()

    def agent(self, session_id: str, prompt: str) -> subprocess.CompletedProcess:
        """One `openclaw agent --local` turn; it must exit 0."""
        proc = subprocess.run([self.bin, "agent", "--local", "--session-id", session_id, "-m", prompt, "--json",
                               "--timeout", "120"], cwd=self.work, env=self.env, capture_output=True, text=True,
                              timeout=400, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        return proc

    def ended(self) -> list[dict]:
        """The sessions of OpenClaw folded into memory, newest first."""
        return [e for e in self.c.json("log", "--event", "session") if e["trailers"].get("Cogit-Agent") == "openclaw"]

    def wait_ended(self, n: int, timeout: float = 30) -> list[dict]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and len(self.ended()) < n:
            time.sleep(0.5)
        return self.ended()

    def rules(self) -> list[dict]:
        """OpenClaw makes its workspace a repository: a rule it learns lives in that project's scope."""
        c = self.c
        return c.json("rules", "--project", str(self.work)) if (self.work / ".git").exists() else c.json("rules")

    def spawn_log(self, tmp_path: Path):
        """Put a wrapper before the plugin's cogit command that notes each hook it is run for (the
        plugin appends the hook's name last): the proof of which hooks spawn a cogit process.
        Returns a function that gives the hooks run so far, in order."""
        log, wrapper = tmp_path / "spawned.log", tmp_path / "note-hook.sh"
        wrapper.write_text(f'#!/bin/sh\nfor last; do :; done\necho "$last" >> {log}\nexec "$@"\n')
        wrapper.chmod(0o755)
        cfg = self.config()
        entry = cfg["plugins"]["entries"]["cogit"]["config"]
        entry["command"] = [str(wrapper), *entry["command"]]
        self.write_config(cfg)
        return lambda: log.read_text().split() if log.exists() else []


@pytest.fixture
def openclaw(initialized, openclaw_bin, tmp_path):
    """Make an OpenClaw set-up: `openclaw(work, script)`; its fake model is stopped at the end."""
    made = []

    def make(work: Path, script) -> OpenClaw:
        oc = OpenClaw(initialized, tmp_path, work, script)
        oc.bin = openclaw_bin
        made.append(oc)
        return oc

    yield make
    for oc in made:
        oc.stop()
