"""The repository is a Claude Code marketplace: `claude plugin marketplace add <repo>` and
`claude plugin install cogit@cogit` with the real claude binary, then a headless run whose
first model request carries cogit's digest (the plugin's hooks ran `cogit` from PATH)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .conftest import REPO, claude_env, claude_result
from .test_claude_code import cogit, hooks_log  # noqa: F401  (fixture)

LESSON = "the marketplace plugin reads memory through cogit on PATH"


def test_the_repository_is_a_marketplace_claude_installs_cogit_from(tmp_path, claude_bin, fake_anthropic, run_claude,
                                                                    cogit):  # noqa: F811
    manifest = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text())
    (plugin,) = manifest["plugins"]
    assert (REPO / plugin["source"] / ".claude-plugin" / "plugin.json").is_file()
    env = claude_env(cogit.home, fake_anthropic.url)

    def claude(*args):
        proc = subprocess.run([claude_bin, *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, f"claude {' '.join(args)}: {proc.stdout}\n{proc.stderr}"
        return proc.stdout

    assert "Successfully added marketplace: cogit" in claude("plugin", "marketplace", "add", str(REPO))
    assert "Successfully installed plugin: cogit@cogit" in claude("plugin", "install", "cogit@cogit")
    listed = claude("plugin", "list")
    assert "cogit@cogit" in listed, listed
    # The plugin's hooks run `cogit` from PATH: this interpreter's.
    cogit("init")
    cogit("add", "learning", LESSON)
    fake_anthropic.script = ["Done."]
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    proc = run_claude("hello", cogit.home, env_extra={"COGIT_HOME": str(cogit.cogit_home), "PATH": path})
    diag = f"{hooks_log(cogit.cogit_home)}\nclaude stderr: {proc.stderr[-2000:]}"
    assert claude_result(proc)["result"] == "Done.", diag
    assert LESSON in json.dumps(fake_anthropic.main_requests[0].body), diag
