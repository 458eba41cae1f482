"""`cogit install openclaw`: cogit's OpenClaw plugin (templates/openclaw/) in the OpenClaw
state folder (~/.openclaw, $OPENCLAW_STATE_DIR, or DIR/.openclaw with --project) and its
entry in openclaw.json.

- The plugin goes to `<state>/extensions/cogit/` (where OpenClaw finds user plugins);
  an existing folder there is replaced only when its manifest says it is cogit's.
- `plugins.entries.cogit` gets `enabled`, `hooks.allowConversationAccess` (agent_end
  reaches non-bundled plugins only with it) and `config.command`, the argv of
  `cogit hook openclaw` built like every hook command (cogit/launch.py), plus
  `config.home` for a non-default memory home. Every other key is kept.
- openclaw.json may be JSON5; cogit writes only plain JSON, so a file that is not plain
  JSON is refused with nothing written (then `openclaw plugins install <folder>`,
  which `--dry-run` names, does it by hand).
"""

from __future__ import annotations

import json
import os
import shutil
from importlib import resources
from pathlib import Path

from cogit.errors import InstallError
from cogit.install import hookfile
from cogit.launch import hook_argv

NAME = "OpenClaw"
PLUGIN_ID = "cogit"
FILES = ("openclaw.plugin.json", "package.json", "index.js")
NEXT_STEP = "Restart the OpenClaw gateway (`openclaw gateway restart`) so it loads the plugin; `openclaw plugins info cogit` shows it."


def state_dir(project: str | None) -> Path:
    if project:
        return Path(project).expanduser().absolute() / ".openclaw"
    base = os.environ.get("OPENCLAW_STATE_DIR")
    return Path(base).expanduser() if base else Path.home() / ".openclaw"


def settings_path(project: str | None) -> Path:
    return state_dir(project) / "openclaw.json"


def plugin_dir(project: str | None) -> Path:
    return state_dir(project) / "extensions" / PLUGIN_ID


def found() -> bool:
    return state_dir(None).is_dir() or shutil.which("openclaw") is not None


def template_files() -> dict[str, str]:
    root = resources.files("cogit.templates").joinpath("openclaw")
    return {name: root.joinpath(name).read_text("utf-8") for name in FILES}


def load(path: Path) -> dict:
    if not path.exists() or not path.read_text("utf-8").strip():
        return {}
    try:
        data = json.loads(path.read_text("utf-8"))
    except json.JSONDecodeError as e:
        raise InstallError(
            f"{path} is not plain JSON (line {e.lineno}, column {e.colno}: {e.msg}; JSON5 comments or trailing commas?); nothing was written",
            hint=f"Run `openclaw plugins install {plugin_dir(None)}` after `cogit install openclaw --dry-run`, or make the file plain JSON.",
        ) from None
    plugins = data.get("plugins", {}) if isinstance(data, dict) else None
    if not isinstance(plugins, dict) or not isinstance(plugins.get("entries", {}), dict):
        raise InstallError(f"{path} does not hold an object with a `plugins.entries` object; nothing was written",
                           hint="Fix the file by hand and run the command again.")
    return data


def entry(home: str | None) -> dict:
    config = {"command": hook_argv("openclaw", "")[:-1]}
    if home:
        config["home"] = home
    return {"enabled": True, "hooks": {"allowConversationAccess": True}, "config": config}


def with_ours(data: dict, home: str | None) -> dict:
    data = json.loads(json.dumps(data))
    entries = data.setdefault("plugins", {}).setdefault("entries", {})
    old = entries.get(PLUGIN_ID) if isinstance(entries.get(PLUGIN_ID), dict) else {}
    new = entry(home)
    # Keep what the user set on the entry (a timeout, other hook flags); ours win on our keys.
    merged = {**old, **new, "hooks": {**(old.get("hooks") or {}), **new["hooks"]},
              "config": {**{k: v for k, v in (old.get("config") or {}).items() if k not in ("command", "home")}, **new["config"]}}
    entries[PLUGIN_ID] = merged
    return data


def without_ours(data: dict) -> dict:
    data = json.loads(json.dumps(data))
    plugins = data.get("plugins")
    if isinstance(plugins, dict) and isinstance(plugins.get("entries"), dict):
        plugins["entries"].pop(PLUGIN_ID, None)
        if not plugins["entries"]:
            del plugins["entries"]
        if not plugins:
            del data["plugins"]
    return data


def _plugin_is_ours(folder: Path) -> bool:
    try:
        return json.loads((folder / "openclaw.plugin.json").read_text("utf-8")).get("id") == PLUGIN_ID
    except (OSError, ValueError, AttributeError):
        return False


def _plugin_current(folder: Path, files: dict[str, str]) -> bool:
    try:
        return all((folder / name).read_text("utf-8") == text for name, text in files.items())
    except OSError:
        return False


def install(project: str | None = None, home: str | None = None, dry_run: bool = False) -> dict:
    path, folder = settings_path(project), plugin_dir(project)
    files = template_files()
    if folder.exists() and not _plugin_is_ours(folder):
        raise InstallError(f"{folder} exists and is not cogit's plugin; nothing was written",
                           hint="Move that folder away and run the command again.")
    current = load(path)
    new = with_ours(current, home)
    plugin_changed = not _plugin_current(folder, files)
    changed = new != current or plugin_changed
    backup = None
    if not dry_run:
        if plugin_changed:
            tmp = folder.with_name(f".{PLUGIN_ID}.{os.getpid()}.tmp")
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir(parents=True)
            for name, text in files.items():
                (tmp / name).write_text(text, "utf-8")
            if folder.exists():
                shutil.rmtree(folder)
            os.replace(tmp, folder)
        if new != current:
            backup = hookfile.write(path, path.read_text("utf-8") if path.exists() else None, new)
    return {"path": str(path), "plugin": str(folder), "changed": changed, "backup": str(backup) if backup else None, "settings": new}


def uninstall(project: str | None = None, dry_run: bool = False) -> dict:
    path, folder = settings_path(project), plugin_dir(project)
    current = load(path)
    new = without_ours(current)
    ours = folder.exists() and _plugin_is_ours(folder)
    changed = new != current or ours
    backup = restored = None
    if not dry_run:
        if ours:
            shutil.rmtree(folder)
            try:
                folder.parent.rmdir()  # `extensions/`, when cogit's plugin was all it held
            except OSError:
                pass
        if new != current:
            from cogit.install import mcp

            done = hookfile.remove(path, path.read_text("utf-8"), new,
                                   lambda d: mcp.without_server(without_ours(d), ("mcp", "servers")))
            backup, restored = done["backup"], done["restored"]
    return {"path": str(path), "plugin": str(folder), "changed": changed, "backup": str(backup) if backup else None,
            "restored": restored, "settings": new}
