"""A JSON hook file that other tools share with us: read it or refuse, merge our entries,
keep a backup, write atomically. One implementation for the agents whose hooks live in
a JSON file (Codex, Gemini CLI, Cursor; Claude Code's own module predates it).

The guarantees, for every agent: foreign entries are kept as they are; a second install
changes nothing; a file that is not valid JSON (or not an object with a `hooks` object)
is refused with nothing written; a backup `<name>.cogit-backup-<time>` is written before
any change; uninstall removes exactly our entries, recognised by their command.
"""

from __future__ import annotations

import json
import os
import shlex
import time
from pathlib import Path

from cogit.errors import InstallError
from cogit.launch import hook_argv

# Every command cogit writes runs `from cogit.hooks import run` (cogit/launch.py); older
# or hand-written ones call the console script.
MARKERS = ("from cogit.hooks import run", "-m cogit hook ", "cogit hook ")


def command(agent: str, event: str, home: str | None) -> str:
    prefix = f"COGIT_HOME={shlex.quote(home)} " if home else ""
    return prefix + " ".join(shlex.quote(a) for a in hook_argv(agent, event))


def is_ours(handler) -> bool:
    text = str(handler.get("command", "")) if isinstance(handler, dict) else ""
    return any(marker in text for marker in MARKERS)


def read_json(path: Path) -> tuple[dict | None, str | None]:
    """(data, text) of an agent's JSON settings file: ({}, None) when it does not exist.
    A file that is not JSON is refused: we never write over what we cannot read."""
    if not path.exists():
        return {}, None
    text = path.read_text("utf-8")
    if not text.strip():
        return {}, text
    try:
        return json.loads(text), text
    except json.JSONDecodeError as e:
        raise InstallError(
            f"{path} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); nothing was written",
            hint="Fix the file by hand (or move it away) and run the command again.",
        ) from None


def load(path: Path) -> dict:
    data, _ = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("hooks", {}), dict):
        raise InstallError(f"{path} does not hold a settings object with a `hooks` object; nothing was written",
                           hint="Fix the file by hand and run the command again.")
    return data


def write_text(path: Path, old_text: str | None, new_text: str) -> Path | None:
    """Replace an agent's settings file atomically, keeping a backup of the old text (owner
    only: ~/.claude.json holds account state) and the file's permissions."""
    path.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    if old_text is not None:
        backup = path.with_name(f"{path.name}.cogit-backup-{time.strftime('%Y%m%dT%H%M%S')}")
        backup.write_text(old_text, "utf-8")
        os.chmod(backup, 0o600)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(new_text, "utf-8")
    if path.exists():
        os.chmod(tmp, path.stat().st_mode & 0o777)
    os.replace(tmp, path)
    return backup


def write(path: Path, old_text: str | None, data: dict) -> Path | None:
    return write_text(path, old_text, json.dumps(data, indent=2) + "\n")


# --- Claude-style files: {"hooks": {EVENT: [{"matcher"?, "hooks": [handler, ...]}]}} (Codex, Gemini)

def without_ours_grouped(data: dict) -> dict:
    data = json.loads(json.dumps(data))
    hooks = data.get("hooks") or {}
    for event in list(hooks):
        groups = hooks[event] if isinstance(hooks[event], list) else None
        if groups is None:
            continue  # not ours to judge
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                handlers = [h for h in group["hooks"] if not is_ours(h)]
                if not handlers and any(is_ours(h) for h in group["hooks"]):
                    continue
                group["hooks"] = handlers
            kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if "hooks" in data and not hooks:
        del data["hooks"]
    return data


def with_ours_grouped(data: dict, groups: list[tuple[str, dict]]) -> dict:
    data = without_ours_grouped(data)
    hooks = data.setdefault("hooks", {})
    for event, group in groups:
        if not isinstance(hooks.get(event, []), list):
            raise InstallError(f"`hooks.{event}` is not a list; nothing was written", hint="Fix the file by hand and run the command again.")
        hooks.setdefault(event, []).append(group)
    return data


# --- Cursor-style files: {"version": 1, "hooks": {event: [handler, ...]}}

def without_ours_flat(data: dict) -> dict:
    data = json.loads(json.dumps(data))
    hooks = data.get("hooks") or {}
    for event in list(hooks):
        if not isinstance(hooks[event], list):
            continue
        handlers = [h for h in hooks[event] if not is_ours(h)]
        if handlers:
            hooks[event] = handlers
        else:
            del hooks[event]
    if "hooks" in data and not hooks:
        del data["hooks"]
    return data


def apply(path: Path, change, dry_run: bool) -> dict:
    """Read (or refuse), change, write with a backup when something changed.
    Returns {"path", "changed", "backup", "settings"}."""
    current = load(path)
    new = change(current)
    changed = new != current
    backup = None
    if changed and not dry_run:
        backup = write(path, path.read_text("utf-8") if path.exists() else None, new)
    return {"path": str(path), "changed": changed, "backup": str(backup) if backup else None, "settings": new}
