"""`cogit install cursor`: cogit's hooks in Cursor's hooks.json (~/.cursor/hooks.json, or
DIR/.cursor/hooks.json): `{"version": 1, "hooks": {event: [{"command": ...}]}}`.

Cursor reloads the file on save; a new chat picks the hooks up. Cursor documents no
timeout field we rely on, so its own default applies.
"""

from __future__ import annotations

from pathlib import Path

from cogit.install import hookfile

NAME = "Cursor"
EVENTS = ("sessionStart", "beforeSubmitPrompt", "preToolUse", "postToolUse", "postToolUseFailure",
          "stop", "subagentStop", "preCompact", "sessionEnd")
NEXT_STEP = "Open a new chat in Cursor: hooks load when a conversation starts."


def config_dir(project: str | None) -> Path:
    return (Path(project).expanduser().absolute() if project else Path.home()) / ".cursor"


def settings_path(project: str | None) -> Path:
    return config_dir(project) / "hooks.json"


def found() -> bool:
    import shutil

    return config_dir(None).is_dir() or any(shutil.which(b) for b in ("cursor", "cursor-agent"))


def with_ours(data: dict, home: str | None) -> dict:
    data = hookfile.without_ours_flat(data)
    data.setdefault("version", 1)
    hooks = data.setdefault("hooks", {})
    for event in EVENTS:
        if not isinstance(hooks.get(event, []), list):
            from cogit.errors import InstallError

            raise InstallError(f"`hooks.{event}` is not a list; nothing was written", hint="Fix the file by hand and run the command again.")
        hooks.setdefault(event, []).append({"command": hookfile.command("cursor", event, home)})
    return data


def install(project: str | None = None, home: str | None = None, dry_run: bool = False) -> dict:
    return hookfile.apply(settings_path(project), lambda d: with_ours(d, home), dry_run)


def uninstall(project: str | None = None, dry_run: bool = False) -> dict:
    # A file cogit created holds `"version": 1` besides the hooks: with them gone it is empty.
    return hookfile.apply(settings_path(project), hookfile.without_ours_flat, dry_run, undo=hookfile.without_ours_flat,
                          empty=({}, {"version": 1}))
