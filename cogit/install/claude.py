"""`cogit install claude`: add cogit's hooks to a Claude Code settings file.

Merges with the hooks already there and keeps them; a second run changes nothing;
a settings file that cannot be parsed is refused with nothing written; a backup is
kept before any change. `uninstall` removes exactly cogit's own entries, which are
recognised by their command (see MARKERS).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from cogit.launch import hook_argv

# Older versions wrote `python -c '<same code>'` without -E -P: recognised by the code,
# so install (and doctor) replace them with the current command.
MARKERS = ("from cogit.hooks import run", "-m cogit hook claude ", "cogit hook claude ")
# (event, matcher or None, timeout in seconds)
HOOKS = (
    ("SessionStart", None, 10),
    ("UserPromptSubmit", None, 10),
    ("PreToolUse", "*", 5),
    ("PostToolUse", "*", 5),
    ("PostToolUseFailure", "*", 5),
    ("Stop", None, 5),
    ("SubagentStop", None, 5),
    ("PreCompact", None, 5),
    ("SessionEnd", None, 5),
)


def settings_path(project: str | None) -> Path:
    if project:
        return Path(project).expanduser().absolute() / ".claude" / "settings.json"
    base = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(base).expanduser() if base else Path.home() / ".claude") / "settings.json"


def command(event: str, home: str | None) -> str:
    prefix = f"COGIT_HOME={shlex.quote(home)} " if home else ""
    return prefix + " ".join(shlex.quote(a) for a in hook_argv("claude", event))


def is_ours(handler) -> bool:
    text = str(handler.get("command", "")) if isinstance(handler, dict) else ""
    return any(marker in text for marker in MARKERS)


def our_commands(data: dict) -> list[tuple[str, str]]:
    """(event, command) of every cogit handler in a settings object."""
    out = []
    for event, groups in (data.get("hooks") or {}).items():
        for group in groups if isinstance(groups, list) else []:
            for handler in (group.get("hooks") or []) if isinstance(group, dict) else []:
                if is_ours(handler):
                    out.append((event, str(handler.get("command"))))
    return sorted(out)


def home_of(commands: list[tuple[str, str]]) -> str | None:
    """The memory home an installed command names (`COGIT_HOME=… python …`), if any."""
    for _, cmd in commands:
        try:
            first = shlex.split(cmd)[:1]
        except ValueError:
            continue
        if first and first[0].startswith("COGIT_HOME="):
            return first[0][len("COGIT_HOME="):]
    return None


def load(path: Path) -> dict:
    from cogit.install import hookfile

    return hookfile.load(path)


def without_ours(data: dict) -> dict:
    from cogit.install import hookfile

    return hookfile.without_ours_grouped(data)


def with_ours(data: dict, home: str | None) -> dict:
    from cogit.install import hookfile

    groups = []
    for event, matcher, timeout in HOOKS:
        group = {"hooks": [{"type": "command", "command": command(event, home), "timeout": timeout}]}
        groups.append((event, {"matcher": matcher, **group} if matcher else group))
    return hookfile.with_ours_grouped(data, groups)


def _write(path: Path, old_text: str | None, data: dict) -> Path | None:
    from cogit.install import hookfile

    return hookfile.write(path, old_text, data)


def install(project: str | None = None, home: str | None = None, dry_run: bool = False) -> dict:
    """Returns {"path", "changed", "backup", "settings"}."""
    path = settings_path(project)
    current = load(path)
    new = with_ours(current, home)
    changed = new != current
    backup = None
    if changed and not dry_run:
        backup = _write(path, path.read_text("utf-8") if path.exists() else None, new)
    return {"path": str(path), "changed": changed, "backup": str(backup) if backup else None, "settings": new}


def uninstall(project: str | None = None, dry_run: bool = False) -> dict:
    from cogit.install import hookfile

    return hookfile.apply(settings_path(project), without_ours, dry_run, undo=without_ours)


NAME = "Claude Code"
NEXT_STEP = None


def found() -> bool:
    import shutil

    return settings_path(None).parent.is_dir() or shutil.which("claude") is not None
