"""`cogit import nox|metacog|claude-memory PATH`: bring in what another memory tool learned."""

from __future__ import annotations

import click

from cogit.cli import cli, emit_json
from cogit.cli.project import project_option, scope_of


@cli.command("import")
@click.argument("kind", type=click.Choice(["nox", "metacog", "claude-memory"]))
@click.argument("path", type=click.Path(dir_okay=True, file_okay=True, path_type=str))
@click.option("--json", "as_json", is_flag=True, help="Print what was imported and refused as JSON.")
@project_option
@click.pass_obj
def import_cmd(obj, kind: str, path: str, as_json: bool, project: str | None) -> None:
    """Import nox-cognitive's state.json, Metacog's learnings JSONL, or Claude Code memory files.

    \b
    One commit (Cogit-Source: import); the same file twice changes nothing; malformed
    entries are reported with their line numbers and the rest is imported.
      cogit import nox ~/nox/cognitive/state.json
      cogit import metacog ~/.claude/metacog-learnings.jsonl
      cogit import claude-memory ./CLAUDE.md
      cogit import claude-memory ~/.claude/projects/<project>/memory/ --project .
    """
    from cogit.imports import run
    from cogit.store.git.repo import open_existing

    open_existing(obj.home).close()  # no memory yet: say `cogit init`, before reading anything
    scope = scope_of(obj, project)
    result, report = run(obj.home, kind, path, scope)
    if as_json:
        out = report.as_json()
        out["commit"] = result.sha if result else None
        out["redacted"] = result.redacted if result else 0
        out["pruned"] = [{"section": s, "id": i.get("id"), "text": i.get("text")} for s, i in (result.pruned if result else [])]
        emit_json(out)
        return
    for line in report.problems:
        click.echo(f"problem: {line}", err=True)
    if report.dropped_problems:
        click.echo(f"... and {report.dropped_problems} more problems", err=True)
    for note in report.all_notes():
        click.echo(f"note: {note}")
    if result is None:
        click.echo("Nothing new to import; no commit made.")
        return
    click.echo(f"[{result.sha[:10]}] {result.summary}")
    for section, item in result.pruned:
        click.echo(f"  pruned by cap: {section} {item.get('id')} {item.get('text', '')!r}")
    if result.redacted:
        click.echo(f"  redacted {result.redacted} secret(s) before storing")
