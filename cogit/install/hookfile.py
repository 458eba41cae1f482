"""A JSON hook file that other tools share with us: read it or refuse, merge our entries,
keep a backup, write atomically. One implementation for the agents whose hooks live in
a JSON file (Codex, Gemini CLI, Cursor; Claude Code's own module predates it).

The guarantees, for every agent: foreign entries are kept as they are, and so is the
rest of the text (layout, key order, comments where the agent allows them, non-ASCII
text: see jsonc.py); a second install changes nothing; a file that is not valid JSON (or
not an object with a `hooks` object) is refused with nothing written; one backup
`<name>.cogit-backup` (the file before cogit first changed it) is written before the
first change and never overwritten; uninstall removes exactly our entries, recognised by
their command, and gives the file back byte for byte when nothing else changed since the
backup (then the backup goes), or removes the file when cogit created it and nothing but
cogit's entries was ever in it.
"""

from __future__ import annotations

import json
import os
import shlex
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


def read_json(path: Path, comments: bool = False) -> tuple[dict | None, str | None]:
    """(data, text) of an agent's JSON settings file: ({}, None) when it does not exist.
    A file that is not JSON (JSON with comments, for an agent that reads them) is
    refused: we never write over what we cannot read."""
    if not path.exists():
        return {}, None
    text = path.read_text("utf-8")
    if not text.strip():
        return {}, text
    if comments:
        from cogit.install import jsonc

        try:
            return jsonc.loads(text), text
        except jsonc.JsoncError as e:
            raise InstallError(
                f"{path} is not valid JSON with comments (line {e.lineno}, column {e.colno}: {e.msg}); nothing was written",
                hint="Fix the file by hand (or move it away) and run the command again.",
            ) from None
    try:
        return json.loads(text), text
    except json.JSONDecodeError as e:
        raise InstallError(
            f"{path} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); nothing was written",
            hint="Fix the file by hand (or move it away) and run the command again.",
        ) from None


def load(path: Path, comments: bool = False) -> dict:
    data, _ = read_json(path, comments)
    if not isinstance(data, dict) or not isinstance(data.get("hooks", {}), dict):
        raise InstallError(f"{path} does not hold a settings object with a `hooks` object; nothing was written",
                           hint="Fix the file by hand and run the command again.")
    return data


def backup_path(path: Path) -> Path:
    return path.with_name(f"{path.name}.cogit-backup")


def _replace(path: Path, new_text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as f:  # the bytes as given: no newline translation
        f.write(new_text)
    if path.exists():
        os.chmod(tmp, path.stat().st_mode & 0o777)
    os.replace(tmp, path)


def write_text(path: Path, old_text: str | None, new_text: str) -> Path | None:
    """Replace an agent's settings file atomically, keeping its permissions. Before cogit
    first changes an existing file, its text is kept in `<name>.cogit-backup` (owner only:
    ~/.claude.json holds account state); later runs keep that one backup as it is."""
    backup = None
    if old_text is not None:
        backup = backup_path(path)
        if not backup.exists():
            with open(backup, "w", encoding="utf-8", newline="") as f:
                f.write(old_text)
            os.chmod(backup, 0o600)
    _replace(path, new_text)
    return backup


def write(path: Path, old_text: str | None, data: dict) -> Path | None:
    from cogit.install import jsonc

    return write_text(path, old_text, jsonc.patch(old_text, data))


def restore(path: Path, new_text: str, undo, empty=({},)) -> tuple[str, Path | None] | None:
    """After our entries came out of `path` (giving `new_text`): give the user's file back
    as it was. When the backup, with our entries taken out the same way (`undo`), is the
    same data and holds the same comments, nothing but cogit changed the file since: the
    backup's bytes are written back and the backup goes ("restored"). When no backup
    says otherwise and nothing is left but an empty object (a file cogit created), the
    file goes ("removed"). None: neither; the caller writes `new_text`."""
    from cogit.install import jsonc

    backup = backup_path(path)
    new = jsonc.loads(new_text)
    left_empty = any(jsonc.same(new, e) for e in empty) and not jsonc.comments_of(new_text)
    if backup.exists():
        old = backup.read_text("utf-8")
        try:
            before = jsonc.loads(old) if old.strip() else {}
        except jsonc.JsoncError:
            before = None
        if not isinstance(before, dict):
            return None
        # A backup that holds cogit entries itself (written by an older cogit, or of a file
        # cogit created) is no original: then only an empty remainder is recognised.
        if jsonc.same(undo(before), before):
            if jsonc.same(before, new) and jsonc.comments_of(old) == jsonc.comments_of(new_text):
                _replace(path, old)
                backup.unlink()
                return "restored", None
            return None
        if not (left_empty and jsonc.same(undo(before), new)):
            return None
        backup.unlink()
    elif not left_empty:
        return None
    path.unlink()
    if path.parent.name.startswith("."):  # an agent's folder (.cursor), never a project's or the home
        try:
            path.parent.rmdir()  # when cogit's file was all it held
        except OSError:
            pass
    return "removed", None


def remove(path: Path, old_text: str, data: dict, undo, empty=({},)) -> dict:
    """Write `data` (the file without our entries), restoring or removing as `restore` says.
    Returns {"backup", "restored"}."""
    from cogit.install import jsonc

    new_text = jsonc.patch(old_text, data)
    done = restore(path, new_text, undo, empty)
    if done:
        return {"backup": None, "restored": done[0]}
    backup = write_text(path, old_text, new_text)
    return {"backup": str(backup) if backup else None, "restored": None}


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


def apply(path: Path, change, dry_run: bool, comments: bool = False, undo=None, empty=({},)) -> dict:
    """Read (or refuse), change, write with a backup when something changed; with `undo`
    (the change is an uninstall), restore or remove the file as `restore` says.
    Returns {"path", "changed", "backup", "restored", "settings"}."""
    current = load(path, comments)
    new = change(current)
    changed = new != current
    backup = restored = None
    if changed and not dry_run:
        text = path.read_text("utf-8") if path.exists() else None
        if undo is not None and text is not None:
            done = remove(path, text, new, undo, empty)
            backup, restored = done["backup"], done["restored"]
        else:
            backup = write(path, text, new)
    return {"path": str(path), "changed": changed, "backup": str(backup) if backup else None, "restored": restored,
            "settings": new}
