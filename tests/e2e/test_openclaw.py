"""The real OpenClaw (from the npm registry via .ci/install-openclaw) accepts cogit's plugin
as `cogit install openclaw` installs it: `openclaw plugins inspect cogit --runtime` loads
the entry and every hook registers (agent_end and before_prompt_build only with the
allowConversationAccess the installer sets)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INSTALL = REPO / ".ci" / "install-openclaw"


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


def inspect(openclaw_bin, state: Path, home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENCLAW_", "COGIT_"))}
    env.update(HOME=str(home), OPENCLAW_STATE_DIR=str(state))
    proc = subprocess.run([openclaw_bin, "plugins", "inspect", "cogit", "--json", "--runtime"], capture_output=True,
                          text=True, env=env, timeout=300, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(proc.stdout[proc.stdout.index("{"):])


def test_openclaw_loads_the_installed_plugin_with_every_hook(initialized, openclaw_bin, tmp_path):
    c = initialized
    state = tmp_path / "openclaw-state"
    c.run("install", "openclaw", env={"OPENCLAW_STATE_DIR": str(state)})
    report = inspect(openclaw_bin, state, c.home.parent / "userhome")
    plugin = report["plugin"]
    assert plugin["id"] == "cogit" and plugin["status"] == "loaded" and plugin["enabled"] is True
    assert sorted(h["name"] for h in report["typedHooks"]) == sorted(
        ["session_start", "before_prompt_build", "after_tool_call", "agent_end", "before_compaction", "session_end"])
    # The only diagnostic allowed: OpenClaw cannot verify where a copied plugin came from.
    assert [d for d in report["diagnostics"] if "can't verify where this plugin came from" not in d["message"]] == []
