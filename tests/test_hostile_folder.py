"""A project folder is data: nothing cogit runs may import from the agent's working folder.

Claude Code runs hook commands in the agent's folder. A repository holding a `cogit/`
package (or a `sitecustomize.py`, with `PYTHONPATH=.` set as direnv users do) must not
get its code run by the hooks or by the background work they start.
"""

from __future__ import annotations

import json
import os
import subprocess
import time

SID = "5f0c1d2e-hostile-4a1b-9c8d-7e6f5a4b3c2d"


def plant(folder, marker) -> None:
    """A `cogit/` package and site hooks that write `marker` when imported."""
    code = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    for rel in ("cogit/__init__.py", "cogit/__main__.py", "cogit/entry.py", "cogit/launch.py",
                "cogit/hooks/__init__.py", "cogit/hooks/claude.py", "sitecustomize.py", "usercustomize.py"):
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)


def installed_commands(c) -> dict[str, str]:
    c.run("install", "claude")
    settings = json.loads((c.home.parent / "userhome" / ".claude" / "settings.json").read_text())
    return {event: groups[-1]["hooks"][0]["command"] for event, groups in settings["hooks"].items()}


def test_a_folder_with_a_cogit_package_runs_none_of_its_code(initialized, tmp_path):
    c = initialized
    project = tmp_path / "project"
    marker = tmp_path / "marker"
    plant(project, marker)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    commands = installed_commands(c)
    env = dict(os.environ, PYTHONPATH=str(project), PYTHONSTARTUP=str(project / "cogit" / "__init__.py"))
    base = {"session_id": SID, "transcript_path": f"{project}/t.jsonl", "cwd": str(project)}
    session = [
        ("SessionStart", {"source": "startup"}),
        ("UserPromptSubmit", {"prompt": "Remember this: the hostile folder lesson", "permission_mode": "default"}),
        ("PreToolUse", {"tool_name": "Read", "tool_input": {"file_path": f"{project}/cogit/__init__.py"}, "tool_use_id": "t1"}),
        ("PostToolUse", {"tool_name": "Read", "tool_input": {"file_path": f"{project}/cogit/__init__.py"},
                         "tool_response": {"type": "text"}, "tool_use_id": "t1"}),
        ("PostToolUseFailure", {"tool_name": "Bash", "tool_input": {"command": "python -m cogit"},
                                "error": "Exit code 1", "tool_use_id": "t2"}),
        ("Stop", {}),
        ("SessionEnd", {"reason": "other"}),
    ]
    for event, fields in session:
        payload = dict(base, hook_event_name=event, **fields)
        proc = subprocess.run(["sh", "-c", commands[event]], cwd=project, env=env, capture_output=True,
                              input=json.dumps(payload).encode(), timeout=30)
        assert proc.returncode == 0 and proc.stderr == b"", (event, proc.stderr)
        if event == "UserPromptSubmit":
            assert b"the hostile folder lesson" in proc.stdout  # the real hook ran, not the planted one
    # The hooks started `cogit finalize` in the background: wait for its commit.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        shown = c.run("show", "learnings", "--project", str(project), "--json", check=False)
        texts = [i["text"] for i in json.loads(shown.out)["learnings"]] if shown.returncode == 0 else []
        if "the hostile folder lesson" in texts and not list((c.home / "runtime" / "sessions").iterdir()):
            break
        time.sleep(0.2)
    assert "the hostile folder lesson" in texts
    assert not marker.exists(), marker.read_text()


def test_install_upgrades_hook_commands_of_older_versions(initialized):
    c = initialized
    path = c.home.parent / "userhome" / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    old = "python3 -c 'import sys; from cogit.hooks import run; sys.exit(run(sys.argv[1:]))' claude PostToolUse"
    path.write_text(json.dumps({"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": old}]}]}}))
    commands = installed_commands(c)
    data = json.loads(path.read_text())
    assert len(data["hooks"]["PostToolUse"]) == 1
    assert " -E -P -S -c " in commands["PostToolUse"] and old not in path.read_text()


def test_doctor_upgrades_old_hook_commands_and_clears_what_a_kill_left(initialized):
    c = initialized
    path = c.home.parent / "userhome" / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    old = f"COGIT_HOME={c.home} python3 -c 'import sys; from cogit.hooks import run; sys.exit(run(sys.argv[1:]))' claude Stop"
    path.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": old}]}]}}))
    (c.home / "memory" / ".git" / "refs" / "heads" / "main.lock").write_text("")
    report = c.run("doctor", check=False)
    assert report.returncode == 1, report.out
    assert "warn  memory: a killed cogit process left refs/heads/main.lock" in report.out, report.out
    assert "FAIL  hooks: cogit's hook commands in" in report.out and "doctor --fix" in report.out
    assert old in path.read_text()  # only --fix changes anything
    out = c.run("doctor", "--fix").out
    assert "fixed memory: cleared what a killed cogit process left: refs/heads/main.lock" in out, out
    assert "fixed hooks: upgraded cogit's hook commands" in out, out
    data = json.loads(path.read_text())
    command = data["hooks"]["Stop"][0]["hooks"][0]["command"]
    assert " -E -P -S -c " in command and command.startswith(f"COGIT_HOME={c.home} ")
    again = c.json("doctor")
    assert {f["status"] for f in again} == {"ok"}, again
    c.run("add", "learning", "writes work")
    c.assert_healthy()


def test_doctor_without_memory_says_what_to_do(cogit):
    proc = cogit.run("doctor", check=False)
    assert proc.returncode == 1 and "cogit init" in proc.out


def test_the_plugin_template_command_ignores_the_folder_too(initialized, tmp_path):
    """The plugin calls the console script on PATH: its own folder leads sys.path, and
    `env -u PYTHONPATH` keeps a direnv-style `PYTHONPATH=.` from putting the project first."""
    import sys
    from importlib import resources

    c = initialized
    project = tmp_path / "project"
    marker = tmp_path / "marker"
    plant(project, marker)
    hooks = json.loads(resources.files("cogit.templates").joinpath("claude-plugin", "hooks", "hooks.json").read_text())
    command = hooks["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    env = dict(os.environ, PYTHONPATH=".", COGIT_HOME=str(c.home),
               PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    payload = {"session_id": SID, "transcript_path": "/tmp/t.jsonl", "cwd": str(project), "hook_event_name": "UserPromptSubmit",
               "prompt": "Remember this: plugins are safe too", "permission_mode": "default"}
    proc = subprocess.run(["sh", "-c", command], cwd=project, env=env, input=json.dumps(payload).encode(), capture_output=True, timeout=30)
    assert proc.returncode == 0 and b"plugins are safe too" in proc.stdout, proc.stderr
    assert not marker.exists()
