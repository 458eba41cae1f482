"""Commands that wire cogit into agents: install, uninstall."""

from __future__ import annotations

import json
import os

import click

from cogit.cli import cli
from cogit.paths import Home


@cli.command()
@click.argument("agent", type=click.Choice(["claude"]))
@click.option("--project", "project", type=click.Path(file_okay=False), help="Write DIR/.claude/settings.json instead of ~/.claude/settings.json.")
@click.option("--dry-run", is_flag=True, help="Print the settings that would be written; write nothing.")
@click.pass_obj
def install(obj, agent: str, project: str | None, dry_run: bool) -> None:
    """Add cogit's hooks to an agent's settings (kept beside the hooks already there)."""
    from cogit.install import claude

    # A non-default home is written into the hook command, so the agent finds it.
    default = Home.resolve(os.path.expanduser("~/.cogit"))
    home = None if obj.home == default else str(obj.home.root)
    result = claude.install(project, home=home, dry_run=dry_run)
    _report(result, dry_run, "Installed cogit's Claude Code hooks in", "cogit's hooks are already installed in")


@cli.command()
@click.argument("agent", type=click.Choice(["claude"]))
@click.option("--project", "project", type=click.Path(file_okay=False))
@click.option("--dry-run", is_flag=True)
def uninstall(agent: str, project: str | None, dry_run: bool) -> None:
    """Remove exactly cogit's own hook entries from an agent's settings."""
    from cogit.install import claude

    result = claude.uninstall(project, dry_run=dry_run)
    _report(result, dry_run, "Removed cogit's hooks from", "No cogit hooks in")


def _report(result: dict, dry_run: bool, done: str, nothing: str) -> None:
    if dry_run:
        click.echo(f"# {result['path']} would be{'' if result['changed'] else ' unchanged'}:")
        click.echo(json.dumps(result["settings"], indent=2))
        return
    if not result["changed"]:
        click.echo(f"{nothing} {result['path']}; nothing changed.")
        return
    click.echo(f"{done} {result['path']}")
    if result["backup"]:
        click.echo(f"  backup of the previous file: {result['backup']}")
