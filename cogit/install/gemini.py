"""`cogit install gemini`: cogit's hooks in the `hooks` object of Gemini CLI's settings.json
(~/.gemini/settings.json, or DIR/.gemini/settings.json). Timeouts are in milliseconds.
Gemini CLI reads settings.json as JSON with comments; so does cogit, and the comments stay.

Gemini CLI fingerprints project hooks and asks again when a hook's name or command
changes; the names are stable (`cogit-<event>`).
"""

from __future__ import annotations

import os
from pathlib import Path

from cogit.install import hookfile

NAME = "Gemini CLI"
# (event, timeout in milliseconds)
HOOKS = (
    ("SessionStart", 10000),
    ("BeforeAgent", 10000),
    ("BeforeTool", 5000),
    ("AfterTool", 5000),
    ("AfterAgent", 5000),
    ("PreCompress", 5000),
    ("SessionEnd", 5000),
)
NEXT_STEP = None


def config_dir(project: str | None) -> Path:
    if project:
        return Path(project).expanduser().absolute() / ".gemini"
    base = os.environ.get("GEMINI_CLI_HOME")
    return (Path(base).expanduser() if base else Path.home()) / ".gemini"


def settings_path(project: str | None) -> Path:
    return config_dir(project) / "settings.json"


def found() -> bool:
    import shutil

    return config_dir(None).is_dir() or shutil.which("gemini") is not None


def load(path: Path) -> dict:
    """settings.json as Gemini CLI reads it (comments allowed): for `cogit doctor` too."""
    return hookfile.load(path, comments=True)


def groups(home: str | None) -> list[tuple[str, dict]]:
    return [(event, {"hooks": [{"name": f"cogit-{event}", "type": "command",
                                "command": hookfile.command("gemini", event, home), "timeout": timeout}]})
            for event, timeout in HOOKS]


def install(project: str | None = None, home: str | None = None, dry_run: bool = False) -> dict:
    return hookfile.apply(settings_path(project), lambda d: hookfile.with_ours_grouped(d, groups(home)), dry_run, comments=True)


def uninstall(project: str | None = None, dry_run: bool = False) -> dict:
    return hookfile.apply(settings_path(project), hookfile.without_ours_grouped, dry_run, comments=True,
                          undo=lambda d: _without_mcp(hookfile.without_ours_grouped(d)))


def _without_mcp(data: dict) -> dict:
    """The file without cogit's MCP server too (it shares settings.json with the hooks), so a
    backup taken before `install --mcp` still matches after the hooks alone are out."""
    from cogit.install import mcp

    return mcp.without_server(data, ("mcpServers",))
