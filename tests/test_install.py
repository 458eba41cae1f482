"""`cogit install claude` / `uninstall claude` on settings files that already hold hooks."""

from __future__ import annotations

import json

from cogit.install.claude import HOOKS

FOREIGN = {
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier --write", "timeout": 30}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}


def settings_file(cogit):
    return cogit.home.parent / "userhome" / ".claude" / "settings.json"


def test_install_merges_keeps_foreign_hooks_and_is_idempotent(initialized):
    c = initialized
    path = settings_file(c)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(FOREIGN, indent=2))
    out = c.run("install", "claude").out
    assert f"Installed cogit's Claude Code hooks in {path}" in out and "backup of the previous file" in out
    data = json.loads(path.read_text())
    assert data["permissions"] == FOREIGN["permissions"]
    assert data["hooks"]["PostToolUse"][0] == FOREIGN["hooks"]["PostToolUse"][0]
    assert data["hooks"]["Stop"][0] == FOREIGN["hooks"]["Stop"][0]
    for event, matcher, timeout in HOOKS:
        ours = [g for g in data["hooks"][event] if "from cogit.hooks import run" in g["hooks"][0]["command"]]
        assert len(ours) == 1, event
        assert ours[0].get("matcher") == matcher and ours[0]["hooks"][0]["timeout"] == timeout
        assert ours[0]["hooks"][0]["command"].endswith(f" claude {event}")
        assert f"COGIT_HOME={c.home}" in ours[0]["hooks"][0]["command"]
    backups = list(path.parent.glob("settings.json.cogit-backup*"))
    assert len(backups) == 1 and json.loads(backups[0].read_text()) == FOREIGN
    before = path.read_text()
    again = c.run("install", "claude").out
    assert "already installed" in again and "nothing changed" in again
    assert path.read_text() == before and len(list(path.parent.glob("settings.json.cogit-backup*"))) == 1


def test_uninstall_removes_exactly_ours(initialized):
    c = initialized
    path = settings_file(c)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(FOREIGN))
    c.run("install", "claude")
    out = c.run("uninstall", "claude").out
    assert f"Removed cogit's hooks from {path}" in out
    assert json.loads(path.read_text()) == FOREIGN
    assert "No cogit hooks" in c.run("uninstall", "claude").out


def test_a_foreign_event_value_that_is_not_a_list_survives_install_and_uninstall(initialized):
    """Not ours to judge: an event whose value is not a list (a typo, a newer format) stays."""
    c = initialized
    path = settings_file(c)
    path.parent.mkdir(parents=True)
    odd = {"hooks": {"Notification": {"command": "notify-send hi"}}}
    path.write_text(json.dumps(odd))
    c.run("install", "claude")
    assert json.loads(path.read_text())["hooks"]["Notification"] == odd["hooks"]["Notification"]
    c.run("uninstall", "claude")
    assert json.loads(path.read_text()) == odd


def test_install_refuses_unparsable_settings_and_writes_nothing(initialized):
    c = initialized
    path = settings_file(c)
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": {,}')
    proc = c.run("install", "claude", check=False)
    assert proc.returncode == 1
    assert "is not valid JSON (line 1, column 12" in proc.err and "nothing was written" in proc.err
    assert "Fix the file by hand" in proc.err
    assert path.read_text() == '{"hooks": {,}' and len(list(path.parent.iterdir())) == 1


def test_install_project_and_dry_run(initialized, tmp_path):
    c = initialized
    project = tmp_path / "proj"
    project.mkdir()
    dry = c.run("install", "claude", "--project", str(project), "--dry-run").out
    assert dry.startswith(f"# {project}/.claude/settings.json would be:")
    assert not (project / ".claude").exists()
    c.run("install", "claude", "--project", str(project))
    data = json.loads((project / ".claude" / "settings.json").read_text())
    assert set(data["hooks"]) == {e for e, _, _ in HOOKS}
    assert not settings_file(c).exists()


def test_installed_command_really_runs_the_hook(initialized):
    """The command string written to settings runs through a shell, as Claude Code does."""
    import subprocess

    c = initialized
    c.run("add", "learning", "visible through the installed command")
    c.run("install", "claude")
    data = json.loads(settings_file(c).read_text())
    command = data["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    payload = json.dumps({"session_id": "s-inst", "cwd": "/tmp", "hook_event_name": "SessionStart", "source": "startup"})
    proc = subprocess.run(["sh", "-c", command], input=payload.encode(), capture_output=True)
    assert proc.returncode == 0
    assert "visible through the installed command" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def test_plugin_template_lists_the_same_hooks():
    from importlib import resources

    hooks = json.loads(resources.files("cogit.templates").joinpath("claude-plugin", "hooks", "hooks.json").read_text())["hooks"]
    assert {e: (g[0].get("matcher"), g[0]["hooks"][0]["timeout"]) for e, g in hooks.items()} == {e: (m, t) for e, m, t in HOOKS}
    assert all(g[0]["hooks"][0]["command"] == f"env -u PYTHONPATH -u PYTHONHOME cogit hook claude {e}" for e, g in hooks.items())


def test_the_installed_command_skips_site_and_finds_only_this_cogit(initialized, tmp_path):
    """The hook command runs Python with -S (no site-packages scan, no .pth files: a fifth of
    its start-up on every tool call) and appends the folder of this cogit after the standard
    library, so neither the agent's folder nor anything in it can shadow cogit."""
    import os
    import shlex
    import subprocess

    c = initialized
    path = settings_file(c)
    c.run("install", "claude")
    data = json.loads(path.read_text())
    command = [g for g in data["hooks"]["Stop"] if "from cogit.hooks import run" in g["hooks"][0]["command"]][0]
    argv = shlex.split(command["hooks"][0]["command"])
    env = dict(os.environ, **dict(a.split("=", 1) for a in argv if "=" in a and not a.startswith("-")
                                  and a.split("=", 1)[0].isupper()))
    argv = [a for a in argv if not ("=" in a and a.split("=", 1)[0].isupper() and not a.startswith("-"))]
    assert argv[1:4] == ["-E", "-P", "-S"]
    # a hostile folder: a `cogit` package and a `site.py` of its own
    (tmp_path / "cogit").mkdir()
    (tmp_path / "cogit" / "__init__.py").write_text("raise SystemExit('imported the folder')\n")
    (tmp_path / "site.py").write_text("raise SystemExit('imported site from the folder')\n")
    argv.insert(1, "-X")
    argv.insert(2, "importtime")
    proc = subprocess.run(argv, input=b'{"session_id": "s1", "hook_event_name": "Stop", "stop_hook_active": false}',
                          capture_output=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == b"", proc.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines() if "|" in line}
    assert "cogit.hooks" in imported and "site" not in imported
    assert not (c.home / "runtime" / "logs" / "hooks.log").exists() or \
        "Error" not in (c.home / "runtime" / "logs" / "hooks.log").read_text()
