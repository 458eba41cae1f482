"""`cogit mcp`: serve memory to an agent over the Model Context Protocol (stdio)."""

from __future__ import annotations

import os

import click

from cogit.cli import cli
from cogit.errors import UsageError


@cli.command()
@click.option("--folder", type=click.Path(file_okay=False), help="The agent's project folder (default: $CLAUDE_PROJECT_DIR, else the current folder).")
@click.pass_obj
def mcp(obj, folder: str | None) -> None:
    """Run cogit's MCP server on stdio (tools: search, show, why, rules, remember, forget).

    Agents start it themselves: `cogit install claude --mcp` registers it. Needs the
    optional SDK: pip install 'cogit[mcp]'.
    """
    try:
        from cogit.mcpserver import serve
        import mcp.server.mcpserver  # noqa: F401
    except ImportError:
        raise UsageError("the MCP server needs the optional `mcp` package",
                         hint="Install it with: pip install 'cogit[mcp]'") from None
    from cogit.store.git.repo import open_existing

    open_existing(obj.home).close()  # no memory: say so before the client connects
    serve(obj.home, folder or os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd())
