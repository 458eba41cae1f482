"""The OpenClaw plugin's own test (tests/openclaw/plugin.test.mjs) under node's test runner,
against this checkout's cogit. Skipped where node is missing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_openclaw_plugin_under_node_test(tmp_path):
    env = dict(os.environ, COGIT_PYTHON=sys.executable, TMPDIR=str(tmp_path))
    proc = subprocess.run(["node", "--test", str(ROOT / "tests" / "openclaw" / "plugin.test.mjs")],
                          capture_output=True, text=True, env=env, timeout=240, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout and "# pass 9" in proc.stdout, proc.stdout[-3000:]
