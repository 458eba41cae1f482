"""`cogit install codex`: cogit's hooks in Codex's hooks.json (~/.codex, $CODEX_HOME, or DIR/.codex).

Codex makes the user review and trust every new or changed command hook in `/hooks`
before it runs (trust is keyed to a hash of the hook, timeouts included), so install
says so. Timeouts are in seconds; SessionEnd is clamped to 3 s by Codex, so we ask for
3 (more would print a clamping warning on every start).
"""

from __future__ import annotations

import os
from pathlib import Path

from cogit.install import hookfile

NAME = "Codex"
# (event, matcher or None, timeout in seconds)
HOOKS = (
    ("SessionStart", "startup|resume|clear|compact", 10),
    ("UserPromptSubmit", None, 10),
    ("PreToolUse", None, 5),
    ("PostToolUse", None, 5),
    ("Stop", None, 5),
    ("SubagentStop", None, 5),
    ("PreCompact", None, 5),
    ("SessionEnd", None, 3),
)
NEXT_STEP = "Open Codex and run /hooks to review and trust cogit's hooks: Codex runs no new or changed hook before that."


def config_dir(project: str | None) -> Path:
    if project:
        return Path(project).expanduser().absolute() / ".codex"
    base = os.environ.get("CODEX_HOME")
    return Path(base).expanduser() if base else Path.home() / ".codex"


def settings_path(project: str | None) -> Path:
    return config_dir(project) / "hooks.json"


def found() -> bool:
    import shutil

    return config_dir(None).is_dir() or shutil.which("codex") is not None


def groups(home: str | None) -> list[tuple[str, dict]]:
    out = []
    for event, matcher, timeout in HOOKS:
        group = {"hooks": [{"type": "command", "command": hookfile.command("codex", event, home), "timeout": timeout}]}
        out.append((event, {"matcher": matcher, **group} if matcher else group))
    return out


def install(project: str | None = None, home: str | None = None, dry_run: bool = False) -> dict:
    return hookfile.apply(settings_path(project), lambda d: hookfile.with_ours_grouped(d, groups(home)), dry_run)


def uninstall(project: str | None = None, dry_run: bool = False) -> dict:
    return hookfile.apply(settings_path(project), hookfile.without_ours_grouped, dry_run, undo=hookfile.without_ours_grouped)
