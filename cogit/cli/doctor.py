"""`cogit doctor`: findings a person should act on (see cogit/doctor.py)."""

from __future__ import annotations

import click

from cogit.cli import cli, emit_json
from cogit.errors import CogitError


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def doctor(ctx, as_json: bool) -> None:
    """Report what cogit could not store by itself; exits 1 when there is something to fix."""
    from cogit.doctor import check, excerpt

    report = check(ctx.obj.home)
    if as_json:
        emit_json(report)
    else:
        for r in report["unstored"]:
            click.echo(f"A queued {r.get('kind', 'item')} could not be stored ({r.get('fold', '?')}): {r.get('reason')}")
            click.echo(f"  text: \"{excerpt(r.get('text'))}\" ({len(str(r.get('text') or ''))} characters)")
            click.echo(f"  Add a fixed version with `cogit add learning TEXT`, then delete {r['file']}.")
        if report["unsaved_sessions"]:
            click.echo(f"{report['unsaved_sessions']} session(s) have records not yet in memory; "
                       "they are folded when they end or go silent (`cogit finalize` folds ended ones now).")
        if report["ok"]:
            click.echo("No problems found.")
    if not report["ok"]:
        raise CogitError(f"{len(report['unstored'])} queued item(s) could not be stored (listed above)",
                         hint="Fix and add each by hand as shown, then run `cogit doctor` again.")
