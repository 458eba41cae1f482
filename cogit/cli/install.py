"""Commands that wire cogit into agents: install, uninstall."""

from __future__ import annotations

import json
import os

import click

from cogit.cli import cli
from cogit.errors import InstallError
from cogit.install import AGENTS, module
from cogit.paths import Home


@cli.command()
@click.argument("agent", type=click.Choice(AGENTS), required=False)
@click.option("--project", "project", type=click.Path(file_okay=False),
              help="Write the agent's project settings in DIR (DIR/.claude/settings.json, DIR/.codex/hooks.json, ...) instead of the user's.")
@click.option("--dry-run", is_flag=True, help="Print the settings that would be written; write nothing.")
@click.option("--mcp", "with_mcp", is_flag=True, help="Also register `cogit mcp` as an MCP server (in each agent's MCP settings; needs pip install 'cogit[mcp]').")
@click.pass_obj
def install(obj, agent: str | None, project: str | None, dry_run: bool, with_mcp: bool) -> None:
    """Add cogit's hooks to an agent's settings (kept beside the hooks already there).

    Without AGENT: into every agent found on this machine."""
    # A non-default home is written into the hook command, so the agent finds it.
    default = Home.resolve(os.path.expanduser("~/.cogit"))
    home = None if obj.home == default else str(obj.home.root)
    agents = [agent] if agent else [a for a in AGENTS if module(a).found()]
    if not agents:
        raise InstallError("no agent found on this machine (looked for " + ", ".join(module(a).NAME for a in AGENTS) + ")",
                           hint=f"Name one: `cogit install {'|'.join(AGENTS)}`.")
    if not agent:
        click.echo("Agents found: " + ", ".join(module(a).NAME for a in agents))
    for name in agents:
        mod = module(name)
        result = mod.install(project, home=home, dry_run=dry_run)
        _report(result, dry_run, f"Installed cogit's {mod.NAME} hooks in", f"cogit's {mod.NAME} hooks are already installed in")
        if result["changed"] and not dry_run and mod.NEXT_STEP:
            click.echo(f"  next: {mod.NEXT_STEP}")
    if with_mcp:
        for name in agents:
            _install_mcp(name, project, home, dry_run)


def _install_mcp(agent: str, project: str | None, home: str | None, dry_run: bool) -> None:
    from importlib.util import find_spec

    from cogit.install import mcp

    result = mcp.register_for(agent, project, home, dry_run=dry_run)
    if dry_run:
        click.echo(f"# {result['path']} would {'get' if result['changed'] else 'keep'} cogit's MCP server:")
        click.echo(result["entry"] if isinstance(result["entry"], str) else json.dumps(result["entry"], indent=2))
    elif result["changed"]:
        click.echo(f"Registered cogit's MCP server in {result['path']}")
        if result["backup"]:
            click.echo(f"  backup of the previous file: {result['backup']}")
    else:
        click.echo(f"cogit's MCP server is already registered in {result['path']}; nothing changed.")
    if agent == "claude" and not dry_run:
        # `claude -p` has no one to ask: a tool that is not allowed is refused, silently for the user.
        click.echo("  headless runs (`claude -p`): allow the memory tools with `--allowedTools mcp__cogit` "
                   "(or add \"mcp__cogit\" to permissions.allow in the settings)")
    if find_spec("mcp") is None:
        click.echo("Note: the MCP server needs the SDK: pip install 'cogit[mcp]'", err=True)


@cli.command()
@click.argument("agent", type=click.Choice(AGENTS), required=False)
@click.option("--project", "project", type=click.Path(file_okay=False))
@click.option("--dry-run", is_flag=True)
def uninstall(agent: str | None, project: str | None, dry_run: bool) -> None:
    """Remove exactly cogit's own hook entries (and its MCP server entry) from an agent's settings.

    Without AGENT: from every agent's settings that hold any. A file is given back byte
    for byte as it was before cogit first changed it, when nothing else changed since."""
    errors = []
    touched = False
    for name in [agent] if agent else AGENTS:
        try:
            touched |= _uninstall_one(name, project, dry_run, quiet=agent is None)
        except InstallError as e:
            if agent:
                raise
            errors.append(e)
            click.echo(f"Error: {e}", err=True)
    if not agent and not touched and not errors:
        click.echo("No cogit hooks or MCP server in any agent's settings (" + ", ".join(module(a).NAME for a in AGENTS)
                   + "); nothing changed.")
    if errors:
        raise InstallError(f"{len(errors)} agent settings file(s) could not be read; the others were done",
                           hint="Fix those files by hand (the errors above name them), then run `cogit uninstall` again.")


def _uninstall_one(agent: str, project: str | None, dry_run: bool, quiet: bool) -> bool:
    result = module(agent).uninstall(project, dry_run=dry_run)
    if result["changed"] or not quiet:
        _report(result, dry_run, "Removed cogit's hooks from", "No cogit hooks in", removal=True)
    from cogit.install import mcp

    gone = mcp.unregister_for(agent, project, dry_run=dry_run)
    if gone["changed"]:
        click.echo(f"{'Would remove' if dry_run else 'Removed'} cogit's MCP server from {gone['path']}")
        _restored(gone)
    return bool(result["changed"] or gone["changed"])


def _restored(result: dict) -> None:
    if result.get("restored") == "restored":
        click.echo(f"  {result['path']} is as it was before cogit changed it (its backup is no longer needed, and gone)")
    elif result.get("restored") == "removed":
        click.echo(f"  {result['path']} held only cogit's entries (cogit created it): removed")
    elif result.get("backup"):
        click.echo(f"  backup of the file before cogit first changed it: {result['backup']}")


def _report(result: dict, dry_run: bool, done: str, nothing: str, removal: bool = False) -> None:
    if dry_run:
        click.echo(f"# {result['path']} would be{'' if result['changed'] else ' unchanged'}:")
        click.echo(json.dumps(result["settings"], indent=2))
        if result.get("plugin"):
            click.echo(f"# plugin folder: {result['plugin']}")
        return
    if not result["changed"]:
        click.echo(f"{nothing} {result['path']}; nothing changed.")
        return
    click.echo(f"{done} {result['path']}")
    if result.get("plugin"):
        click.echo(f"  plugin: {result['plugin']}")
    if removal:
        _restored(result)
    elif result["backup"]:
        click.echo(f"  backup of the previous file: {result['backup']}")
