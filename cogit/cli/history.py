"""Commands that read and undo history: log, diff, why, revert."""

from __future__ import annotations

import time

import click

from cogit.cli import cli, emit_json
from cogit.cli.project import project_option, scope_of
from cogit.store import history
from cogit.store.provenance import Provenance


def _when(t: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t))


def _trailer_line(trailers: dict) -> str:
    keys = ("Cogit-Event", "Cogit-Source", "Cogit-Agent", "Cogit-Session", "Cogit-Trigger")
    return "  ".join(f"{k[6:].lower()}={trailers[k]}" for k in keys if trailers.get(k) and trailers[k] != "-")


@cli.command()
@click.option("-n", "limit", type=click.IntRange(min=1), help="At most N commits.")
@click.option("--event", help="Only this Cogit-Event (a prefix like `learning` matches learning.*).")
@click.option("--source", type=click.Choice(["cli", "hook", "reflection", "human", "sync", "import", "agent"]))
@click.option("--session", help="Only commits of this agent session.")
@click.option("--since", help="Only since a date: YYYY-MM-DD, ISO time, or 3d / 12h.")
@click.option("--item", "item", help="Only commits that created or changed this item id.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of commits.")
@project_option
@click.pass_obj
def log(obj, limit, event, source, session, since, item, as_json, project) -> None:
    """History of memory, newest first, with provenance."""
    branch = scope_of(obj, project, must_exist=True).branch
    entries = history.log(obj.home, branch=branch, limit=limit, event=event, source=source, session=session, since=since, item=item)
    if as_json:
        emit_json([e.to_json() for e in entries])
        return
    for e in entries:
        click.echo(f"{e.sha[:10]} {_when(e.time)}  {e.summary}")
        click.echo(f"           {e.author}  {_trailer_line(e.trailers)}")


@cli.command()
@click.argument("revs", nargs=-1)
@click.option("--raw", is_flag=True, help="git's textual diff of the YAML files.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of item changes.")
@project_option
@click.pass_obj
def diff(obj, revs: tuple[str, ...], raw: bool, as_json: bool, project: str | None) -> None:
    """What changed: the last commit (no REV), since REV, or from REV to REV.

    \b
    + learning l-3f2a "…"           added
    ~ heuristic h-9c1a: use_count 3 → 4   changed
    - avoidance a-12ab "…"          removed
    """
    if len(revs) > 2:
        raise click.UsageError("give at most two revisions")
    branch = scope_of(obj, project, must_exist=True).branch
    result = history.diff(obj.home, *(revs + (None, None))[:2], raw=raw, branch=branch)
    if raw:
        click.echo(result, nl=False)
    elif as_json:
        emit_json([c.to_json() for c in result])
    else:
        for change in result:
            click.echo(change.render())


@cli.command()
@click.argument("item_id")
@click.option("--json", "as_json", is_flag=True)
@project_option
@click.pass_obj
def why(obj, item_id: str, as_json: bool, project: str | None) -> None:
    """Every commit that created or changed an item, with its provenance."""
    found = history.why(obj.home, item_id, branch=scope_of(obj, project, must_exist=True).branch)
    if as_json:
        emit_json([{**e.to_json(), "changes": [c.to_json() for c in ch]} for e, ch in found])
        return
    if not found:
        click.echo(f"No commit mentions {item_id}.")
    for e, changes in found:
        click.echo(f"{e.sha[:10]} {_when(e.time)}  {e.summary}")
        click.echo(f"           {e.author}  {_trailer_line(e.trailers)}")
        for key in ("Cogit-Evidence", "Cogit-Model"):
            if e.trailers.get(key):
                click.echo(f"           {key[6:].lower()}: {e.trailers[key]}")
        for c in changes:
            click.echo(f"           {c.render()}")


@cli.command()
@click.argument("rev")
@project_option
@click.pass_obj
def revert(obj, rev: str, project: str | None) -> None:
    """Undo exactly one commit's item changes, as a new commit (later changes stay)."""
    scope = scope_of(obj, project, must_exist=True)
    result = history.revert(obj.home, rev, Provenance(event="revert", source="cli", project=scope.name), branch=scope.branch)
    if result is None:
        click.echo("Nothing to undo: memory already has that state; no commit made.")
    else:
        click.echo(f"[{result.sha[:10]}] {result.summary}")
