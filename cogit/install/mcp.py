"""Registering `cogit mcp` in an agent's MCP configuration (`install ... --mcp`).

Claude Code, Gemini CLI and Cursor keep MCP servers in a JSON object `mcpServers`
(Claude Code: `~/.claude.json` for the user, `.mcp.json` in a project; Gemini CLI: its
`settings.json`; Cursor: `.cursor/mcp.json`), OpenClaw in `mcp.servers` of
`openclaw.json`; Codex in TOML tables `[mcp_servers.NAME]` of `config.toml` (see
`register_toml`). We merge one entry, `cogit`, and keep every other
server and key as it was; a second run changes nothing; a file that cannot be parsed is
refused with nothing written; a backup is kept before any change; uninstall removes only
an entry whose command is ours (a server the user named `cogit` themselves stays).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from cogit.errors import InstallError
from cogit.launch import SAFE_FLAGS

NAME = "cogit"
# `python -E -P -c`: only the installed cogit runs, whatever the agent's folder (see launch.py).
CODE = "import sys; from cogit.entry import main; sys.exit(main(['mcp']))"


def server_entry(home: str | None, python: str | None = None, typed: bool = True) -> dict:
    import sys

    entry = {"type": "stdio"} if typed else {}  # only Claude Code's format has (and wants) a type
    entry.update(command=python or sys.executable, args=[*SAFE_FLAGS, "-c", CODE])
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


def path_for(agent: str, project: str | None) -> Path:
    """The file holding `agent`'s MCP servers (user-wide, or the project's with `project`)."""
    if agent == "claude":
        return claude_path(project)
    from cogit.install import module

    mod = module(agent)
    if agent == "gemini":
        return mod.settings_path(project)  # hooks and mcpServers share settings.json
    if agent == "cursor":
        return mod.config_dir(project) / "mcp.json"
    if agent == "codex":
        return mod.config_dir(project) / "config.toml"
    if agent == "openclaw":
        return mod.settings_path(project)  # openclaw.json: mcp.servers beside the plugin entry
    raise InstallError(f"cogit cannot register its MCP server with {mod.NAME} yet",
                       hint="Add `cogit mcp` to that agent's MCP settings by hand (see docs/mcp.md, \"Installing\").")


def register_for(agent: str, project: str | None, home: str | None, dry_run: bool = False) -> dict:
    path = path_for(agent, project)
    if agent == "codex":
        return register_toml(path, home, dry_run)
    if agent == "openclaw":  # its schema: mcp.servers.NAME {command, args, env, transport}
        return register(path, home, dry_run, typed=False, keys=("mcp", "servers"), extra={"transport": "stdio"})
    return register(path, home, dry_run, typed=agent == "claude", comments=agent == "gemini")


def unregister_for(agent: str, project: str | None, dry_run: bool = False) -> dict:
    try:
        path = path_for(agent, project)
    except InstallError:
        return {"path": "", "changed": False, "backup": None, "entry": None}
    if agent == "codex":
        return unregister_toml(path, dry_run)
    if agent == "openclaw":
        from cogit.install import openclaw

        return unregister(path, dry_run, keys=("mcp", "servers"), also=openclaw.without_ours)
    if agent == "gemini":
        from cogit.install import hookfile

        return unregister(path, dry_run, comments=True, also=hookfile.without_ours_grouped)
    return unregister(path, dry_run)


def _load(path: Path, keys: tuple = ("mcpServers",), comments: bool = False) -> tuple[dict, str | None]:
    from cogit.install import hookfile

    data, text = hookfile.read_json(path, comments)
    node = data
    for key in keys:
        if not isinstance(node, dict) or not isinstance(node.get(key, {}), dict):
            raise InstallError(f"{path} does not hold an object with a `{'.'.join(keys)}` object; nothing was written",
                               hint="Fix the file by hand and run the command again.")
        node = node.get(key, {})
    return data, text


def _servers(data: dict, keys: tuple, create: bool = False) -> dict:
    node = data
    for key in keys:
        node = node.setdefault(key, {}) if create else (node.get(key) or {})
    return node


def _write(path: Path, old_text: str | None, data: dict) -> str | None:
    from cogit.install import hookfile

    backup = hookfile.write(path, old_text, data)
    return str(backup) if backup else None


def register(path: Path, home: str | None, dry_run: bool = False, typed: bool = True, keys: tuple = ("mcpServers",),
             extra: dict | None = None, comments: bool = False) -> dict:
    """Add (or update) the `cogit` server in `path` (under `keys`). Returns {"path", "changed", "backup", "entry"}."""
    data, text = _load(path, keys, comments)
    servers = _servers(data, keys)
    if NAME in servers and not is_ours(servers[NAME]):
        raise InstallError(f"{path} already has an MCP server named {NAME!r} that is not cogit's; nothing was written",
                           hint="Rename or remove that entry by hand, then run the command again.")
    entry = {**server_entry(home, typed=typed), **(extra or {})}
    changed = servers.get(NAME) != entry
    if changed and not dry_run:
        new = json.loads(json.dumps(data))
        _servers(new, keys, create=True)[NAME] = entry
        backup = _write(path, text, new)
    else:
        backup = None
    return {"path": str(path), "changed": changed, "backup": backup, "entry": entry}


def without_server(data: dict, keys: tuple) -> dict:
    """`data` without cogit's server, and without the containers only it was in."""
    data = json.loads(json.dumps(data))
    nodes = [data]
    for key in keys:
        node = nodes[-1].get(key) if isinstance(nodes[-1], dict) else None
        if not isinstance(node, dict):
            return data
        nodes.append(node)
    if not is_ours(nodes[-1].get(NAME)):
        return data
    del nodes[-1][NAME]
    for parent, key, node in reversed(list(zip(nodes, keys, nodes[1:]))):
        if node:
            break
        del parent[key]  # emptied by us: `{"mcpServers": {}}` was not there before cogit
    return data


def unregister(path: Path, dry_run: bool = False, keys: tuple = ("mcpServers",), comments: bool = False,
               also=None) -> dict:
    """Remove cogit's server; give the file back as it was before cogit first changed it when
    nothing else changed since (`also`: how cogit's other entries in the same file, an
    agent's hooks, are taken out, to tell whether the backup holds any)."""
    from cogit.install import hookfile

    data, text = _load(path, keys, comments)
    changed = is_ours(_servers(data, keys).get(NAME))
    backup = restored = None
    if changed and not dry_run:
        new = without_server(data, keys)
        done = hookfile.remove(path, text, new, lambda d: without_server(also(d) if also else d, keys))
        backup, restored = done["backup"], done["restored"]
    return {"path": str(path), "changed": changed, "backup": backup, "restored": restored, "entry": None}


# ---------------------------------------------------------------- Codex: config.toml
# The standard library reads TOML (tomllib) but does not write it. We never re-serialise
# the user's file: we check it parses, then add, replace or remove exactly one table of
# our own, `[mcp_servers.cogit]`, as text, and check the result parses to the same file
# plus (or minus) that table.

HEADER = f"[mcp_servers.{NAME}]"


def _toml_str(value: str) -> str:
    import json as _json

    return _json.dumps(value)  # a JSON string is a valid TOML basic string


def toml_block(home: str | None) -> str:
    entry = server_entry(home, typed=False)
    lines = [HEADER, f"command = {_toml_str(entry['command'])}",
             "args = [" + ", ".join(_toml_str(a) for a in entry["args"]) + "]"]
    if home:
        lines.append(f"env = {{ COGIT_HOME = {_toml_str(home)} }}")
    return "\n".join(lines) + "\n"


def _parse_toml(path: Path, text: str) -> dict:
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InstallError(f"{path} is not valid TOML ({e}); nothing was written",
                           hint="Fix the file by hand (or move it away) and run the command again.") from None


def _split(text: str) -> tuple[str, str | None, str]:
    """(before, our table's text or None, after)."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.strip() == HEADER:
            j = i + 1
            while j < len(lines) and not lines[j].lstrip().startswith("["):
                j += 1
            return "".join(lines[:i]), "".join(lines[i:j]), "".join(lines[j:])
    return text, None, ""


def _ours_in_toml(data: dict) -> dict | None:
    server = (data.get("mcp_servers") or {}).get(NAME)
    return server if isinstance(server, dict) else None


def register_toml(path: Path, home: str | None, dry_run: bool = False) -> dict:
    text = path.read_text("utf-8") if path.exists() else ""
    data = _parse_toml(path, text)
    existing = _ours_in_toml(data)
    before, block, after = _split(text)
    if existing is not None and (block is None or not is_ours(existing)):
        raise InstallError(f"{path} already has an MCP server named {NAME!r} that is not cogit's (or not as a [mcp_servers.{NAME}] table); nothing was written",
                           hint="Rename or remove it by hand, then run the command again.")
    new_block = toml_block(home)
    changed = block != new_block
    backup = None
    if changed and not dry_run:
        sep = "" if not before or before.endswith("\n\n") else ("\n" if before.endswith("\n") else "\n\n")
        new_text = before + sep + new_block + (("\n" + after) if after else "")
        check = _parse_toml(path, new_text)
        assert _ours_in_toml(check) is not None and {k: v for k, v in check.items() if k != "mcp_servers"} == \
            {k: v for k, v in data.items() if k != "mcp_servers"}, "the TOML edit changed more than our table"
        backup = _write_text(path, text if path.exists() else None, new_text)
    return {"path": str(path), "changed": changed, "backup": backup, "entry": new_block}


def unregister_toml(path: Path, dry_run: bool = False) -> dict:
    if not path.exists():
        return {"path": str(path), "changed": False, "backup": None, "entry": None}
    text = path.read_text("utf-8")
    data = _parse_toml(path, text)
    before, block, after = _split(text)
    changed = block is not None and is_ours(_ours_in_toml(data))
    backup = None
    restored = None
    if changed and not dry_run:
        new_text = before.rstrip("\n") + ("\n" if before.strip() else "") + (("\n" + after) if after else "")
        _parse_toml(path, new_text)
        restored = _restore_toml(path, new_text)
        if restored is None:
            backup = _write_text(path, text, new_text)
    return {"path": str(path), "changed": changed, "backup": backup, "restored": restored, "entry": None}


def _restore_toml(path: Path, new_text: str) -> str | None:
    """As hookfile.restore, for config.toml: the backup's bytes when the file, without our
    table, parses to the backup (and the comments are the same); no file when cogit created it."""
    from cogit.install import hookfile

    backup = hookfile.backup_path(path)
    if backup.exists():
        old = backup.read_text("utf-8")
        try:
            same = _parse_toml(path, old) == _parse_toml(path, new_text) and _ours_in_toml(_parse_toml(path, old)) is None
        except InstallError:
            same = False
        comments = lambda t: [line.strip() for line in t.splitlines() if line.strip().startswith("#")]  # noqa: E731
        if same and comments(old) == comments(new_text):
            hookfile._replace(path, old)
            backup.unlink()
            return "restored"
        return None
    if not new_text.strip():
        path.unlink()
        return "removed"
    return None


def _write_text(path: Path, old_text: str | None, new_text: str) -> str | None:
    from cogit.install import hookfile

    backup = hookfile.write_text(path, old_text, new_text)
    return str(backup) if backup else None
