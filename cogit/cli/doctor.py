"""`cogit doctor`: check this machine's cogit and mend what is safe to mend."""

from __future__ import annotations

import click

from cogit.cli import cli, emit_json
from cogit.errors import CogitError

MARK = {"ok": "ok     ", "fixed": "fixed  ", "problem": "PROBLEM"}


@cli.command()
@click.option("--project", "project", type=click.Path(file_okay=False),
              help="Also check DIR/.claude/settings.json (hooks installed with `install --project`).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def doctor(obj, project: str | None, as_json: bool) -> None:
    """Check memory and the installed hooks; upgrade hook commands of older versions.

    Exits 1 when a problem remains (each says what to do).
    """
    from cogit.doctor import doctor as run

    findings = run(obj.home, project)
    if as_json:
        emit_json([f.to_json() for f in findings])
    else:
        for f in findings:
            click.echo(f"{MARK[f.status]} {f.check}: {f.message}")
            if f.hint:
                click.echo(f"        {f.hint}")
    problems = [f for f in findings if f.status == "problem"]
    if problems:
        raise CogitError(f"{len(problems)} problem(s) found", hint="See above; each says what to do.")
