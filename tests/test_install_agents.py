"""`cogit install|uninstall codex|gemini|cursor|openclaw` on files that already hold other
hooks, and `cogit install` with no agent."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from cogit.install import codex, cursor, gemini

GROUPED_FOREIGN = {
    "model": "gpt-5.3-codex",
    "hooks": {
        "PostToolUse": [{"matcher": "^Bash$", "hooks": [{"type": "command", "command": "audit-log", "timeout": 30}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}
CURSOR_FOREIGN = {"version": 1, "hooks": {"afterFileEdit": [{"command": "./format.sh"}],
                                          "stop": [{"command": "notify-send done"}]}}


def user(c):
    return c.home.parent / "userhome"


PATHS = {
    "codex": lambda c: user(c) / ".codex" / "hooks.json",
    "gemini": lambda c: user(c) / ".gemini" / "settings.json",
    "cursor": lambda c: user(c) / ".cursor" / "hooks.json",
}


def ours(data, agent):
    """(event, handler, group) of every cogit handler in a hook file."""
    out = []
    for event, entries in data["hooks"].items():
        for entry in entries:
            handlers = entry.get("hooks", [entry]) if agent != "cursor" else [entry]
            out += [(event, h, entry) for h in handlers if "from cogit.hooks import run" in h["command"]]
    return out


@pytest.mark.parametrize("agent", ["codex", "gemini", "cursor"])
def test_install_merges_keeps_foreign_hooks_backs_up_and_is_idempotent(initialized, agent):
    c = initialized
    path = PATHS[agent](c)
    foreign = CURSOR_FOREIGN if agent == "cursor" else GROUPED_FOREIGN
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(foreign, indent=2))
    out = c.run("install", agent).out
    assert f"hooks in {path}" in out and "backup of the previous file" in out
    data = json.loads(path.read_text())
    for event, entries in foreign["hooks"].items():
        assert data["hooks"][event][0] == entries[0]
    found = ours(data, agent)
    if agent == "codex":
        assert sorted((e, h["timeout"], g.get("matcher") or "") for e, h, g in found) == sorted(
            (e, t, m or "") for e, m, t in codex.HOOKS)
        assert dict((e, h["timeout"]) for e, h, _ in found)["SessionEnd"] == 3  # Codex clamps it to 3 s
        assert "next: Open Codex and run /hooks" in out
    elif agent == "gemini":
        assert sorted((e, h["timeout"], h["name"], h["type"]) for e, h, _ in found) == sorted(
            (e, t, f"cogit-{e}", "command") for e, t in gemini.HOOKS)  # milliseconds
    else:
        assert sorted(e for e, _, _ in found) == sorted(cursor.EVENTS) and data["version"] == 1
        assert all(list(h) == ["command"] for _, h, _ in found)
    for event, handler, _ in found:
        cmd = handler["command"]
        assert " -E -P -S -c " in cmd and cmd.endswith(f" {agent} {event}") and f"COGIT_HOME={c.home}" in cmd
    backups = list(path.parent.glob(f"{path.name}.cogit-backup*"))
    assert len(backups) == 1 and json.loads(backups[0].read_text()) == foreign
    before = path.read_text()
    again = c.run("install", agent).out
    assert "already installed" in again and "nothing changed" in again and "next:" not in again
    assert path.read_text() == before and len(list(path.parent.glob(f"{path.name}.cogit-backup*"))) == 1
    # uninstall removes exactly ours
    assert f"Removed cogit's hooks from {path}" in c.run("uninstall", agent).out
    assert json.loads(path.read_text()) == foreign
    assert "No cogit hooks" in c.run("uninstall", agent).out


@pytest.mark.parametrize("agent", ["codex", "gemini", "cursor", "openclaw"])
def test_install_refuses_an_unparsable_file_and_writes_nothing(initialized, agent):
    c = initialized
    path = PATHS[agent](c) if agent != "openclaw" else user(c) / ".openclaw" / "openclaw.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": {,}  // a comment\n')
    proc = c.run("install", agent, check=False)
    assert proc.returncode == 1 and "nothing was written" in proc.err and str(path) in proc.err
    assert path.read_text() == '{"hooks": {,}  // a comment\n'
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


@pytest.mark.parametrize("agent,rel", [("codex", ".codex/hooks.json"), ("gemini", ".gemini/settings.json"),
                                       ("cursor", ".cursor/hooks.json"), ("openclaw", ".openclaw/openclaw.json")])
def test_project_and_dry_run(initialized, tmp_path, agent, rel):
    c = initialized
    proj = tmp_path / "proj"
    proj.mkdir()
    out = c.run("install", agent, "--project", str(proj), "--dry-run").out
    assert f"# {proj / rel} would be:" in out and not (proj / rel).exists()
    c.run("install", agent, "--project", str(proj))
    assert (proj / rel).exists() and not PATHS.get(agent, lambda c: user(c) / ".openclaw" / "openclaw.json")(c).exists()


@pytest.mark.parametrize("agent,event,payload,expect", [
    ("codex", "SessionStart", {"session_id": "s-c", "cwd": "/tmp", "hook_event_name": "SessionStart", "source": "startup",
                               "model": "gpt-5", "permission_mode": "default", "transcript_path": None}, "hookSpecificOutput"),
    ("gemini", "SessionStart", {"session_id": "s-g", "cwd": "/tmp", "hook_event_name": "SessionStart", "source": "startup",
                                "transcript_path": "/tmp/x", "timestamp": "2026-11-30T10:00:00Z"}, "hookSpecificOutput"),
    ("cursor", "sessionStart", {"conversation_id": "s-u", "generation_id": "g", "hook_event_name": "sessionStart",
                                "workspace_roots": ["/tmp"]}, "additional_context"),
])
def test_installed_command_really_runs_the_hook(initialized, tmp_path, agent, event, payload, expect):
    """The command as the agent runs it (through a shell, in the project folder)."""
    c = initialized
    c.run("add", "learning", "Installed hooks reach the model")
    c.run("install", agent)
    data = json.loads(PATHS[agent](c).read_text())
    cmd = next(h["command"] for e, h, _ in ours(data, agent) if e == event)
    proc = subprocess.run(["sh", "-c", cmd], input=json.dumps(payload).encode(), capture_output=True, cwd=tmp_path,
                          env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    out = json.loads(proc.stdout)
    assert expect in out and "Installed hooks reach the model" in json.dumps(out)


def test_openclaw_install_copies_the_plugin_and_merges_its_entry(initialized):
    c = initialized
    state = user(c) / ".openclaw"
    state.mkdir(parents=True)
    foreign = {"gateway": {"port": 18789}, "plugins": {"entries": {"voice": {"enabled": True}, "cogit": {"hooks": {"timeoutMs": 9000}}}}}
    (state / "openclaw.json").write_text(json.dumps(foreign))
    out = c.run("install", "openclaw").out
    assert "Installed cogit's OpenClaw hooks in" in out and "next: Restart the OpenClaw gateway" in out
    plugin = state / "extensions" / "cogit"
    assert sorted(p.name for p in plugin.iterdir()) == ["index.js", "openclaw.plugin.json", "package.json"]
    assert json.loads((plugin / "openclaw.plugin.json").read_text())["id"] == "cogit"
    data = json.loads((state / "openclaw.json").read_text())
    assert data["gateway"] == foreign["gateway"] and data["plugins"]["entries"]["voice"] == {"enabled": True}
    entry = data["plugins"]["entries"]["cogit"]
    assert entry["enabled"] is True and entry["hooks"] == {"timeoutMs": 9000, "allowConversationAccess": True}
    assert entry["config"]["command"][1:5] == ["-E", "-P", "-S", "-c"] and entry["config"]["command"][-1] == "openclaw"
    assert entry["config"]["home"] == str(c.home)
    before = (state / "openclaw.json").read_text()
    assert "already installed" in c.run("install", "openclaw").out
    assert (state / "openclaw.json").read_text() == before
    c.run("uninstall", "openclaw")
    assert not plugin.exists()
    assert json.loads((state / "openclaw.json").read_text()) == {"gateway": {"port": 18789}, "plugins": {"entries": {"voice": {"enabled": True}}}}


def test_openclaw_install_never_replaces_a_foreign_plugin_folder(initialized):
    c = initialized
    folder = user(c) / ".openclaw" / "extensions" / "cogit"
    folder.mkdir(parents=True)
    (folder / "openclaw.plugin.json").write_text('{"id": "someone-else"}')
    proc = c.run("install", "openclaw", check=False)
    assert proc.returncode == 1 and "is not cogit's plugin" in proc.err
    assert (folder / "openclaw.plugin.json").read_text() == '{"id": "someone-else"}'


def test_install_without_agent_installs_into_every_agent_found(initialized, tmp_path):
    c = initialized
    empty_path = tmp_path / "bin"
    empty_path.mkdir()
    env = {"PATH": str(empty_path)}
    proc = c.run("install", check=False, env=env)
    assert proc.returncode == 1 and "no agent found" in proc.err
    (user(c) / ".codex").mkdir(parents=True)
    (user(c) / ".gemini").mkdir(parents=True)
    out = c.run("install", env=env).out
    assert "Agents found: Codex, Gemini CLI" in out
    assert PATHS["codex"](c).exists() and PATHS["gemini"](c).exists()
    assert not PATHS["cursor"](c).exists() and not (user(c) / ".claude").exists()
