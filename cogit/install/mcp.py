"""Registering `cogit mcp` in an agent's MCP configuration (`install ... --mcp`).

The agents keep MCP servers in a JSON object `mcpServers` (Claude Code: `~/.claude.json`
for the user, `.mcp.json` in a project). We merge one entry, `cogit`, and keep every other
server and key as it was; a second run changes nothing; a file that cannot be parsed is
refused with nothing written; a backup is kept before any change; uninstall removes only
an entry whose command is ours (a server the user named `cogit` themselves stays).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from cogit.errors import InstallError
from cogit.launch import SAFE_FLAGS

NAME = "cogit"
# `python -E -P -c`: only the installed cogit runs, whatever the agent's folder (see launch.py).
CODE = "import sys; from cogit.entry import main; sys.exit(main(['mcp']))"


def server_entry(home: str | None, python: str | None = None) -> dict:
    import sys

    entry = {"type": "stdio", "command": python or sys.executable, "args": [*SAFE_FLAGS, "-c", CODE]}
    if home:
        entry["env"] = {"COGIT_HOME": home}
    return entry


def is_ours(entry) -> bool:
    return isinstance(entry, dict) and any(CODE == a or "cogit mcp" in str(a) for a in [entry.get("command"), *(entry.get("args") or [])])


def claude_path(project: str | None) -> Path:
    """Claude Code: a project's `.mcp.json`, else the user's `.claude.json` (in
    $CLAUDE_CONFIG_DIR when that is set, as Claude Code itself does)."""
    if project:
        return Path(project).expanduser().absolute() / ".mcp.json"
    base = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(base).expanduser() if base else Path.home()) / ".claude.json"


def _load(path: Path) -> tuple[dict, str | None]:
    if not path.exists():
        return {}, None
    text = path.read_text("utf-8")
    if not text.strip():
        return {}, text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InstallError(f"{path} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); nothing was written",
                           hint="Fix the file by hand (or move it away) and run the command again.") from None
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers", {}), dict):
        raise InstallError(f"{path} does not hold an object with an `mcpServers` object; nothing was written",
                           hint="Fix the file by hand and run the command again.")
    return data, text


def _write(path: Path, old_text: str | None, data: dict) -> str | None:
    path.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    if old_text is not None:
        backup = path.with_name(f"{path.name}.cogit-backup-{time.strftime('%Y%m%dT%H%M%S')}")
        backup.write_text(old_text, "utf-8")
        os.chmod(backup, 0o600)  # ~/.claude.json holds the user's account state
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    if path.exists():
        os.chmod(tmp, path.stat().st_mode & 0o777)
    os.replace(tmp, path)
    return str(backup) if backup else None


def register(path: Path, home: str | None, dry_run: bool = False) -> dict:
    """Add (or update) the `cogit` server in `path`. Returns {"path", "changed", "backup", "entry"}."""
    data, text = _load(path)
    servers = data.get("mcpServers") or {}
    if NAME in servers and not is_ours(servers[NAME]):
        raise InstallError(f"{path} already has an MCP server named {NAME!r} that is not cogit's; nothing was written",
                           hint="Rename or remove that entry by hand, then run the command again.")
    entry = server_entry(home)
    changed = servers.get(NAME) != entry
    if changed and not dry_run:
        new = json.loads(json.dumps(data))
        new.setdefault("mcpServers", {})[NAME] = entry
        backup = _write(path, text, new)
    else:
        backup = None
    return {"path": str(path), "changed": changed, "backup": backup, "entry": entry}


def unregister(path: Path, dry_run: bool = False) -> dict:
    data, text = _load(path)
    servers = data.get("mcpServers") or {}
    changed = is_ours(servers.get(NAME))
    backup = None
    if changed and not dry_run:
        new = json.loads(json.dumps(data))
        del new["mcpServers"][NAME]
        backup = _write(path, text, new)
    return {"path": str(path), "changed": changed, "backup": backup, "entry": None}
