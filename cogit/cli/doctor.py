"""`cogit doctor`: check this machine's cogit and mend what is safe to mend."""

from __future__ import annotations

import click

from cogit.cli import cli, emit_json
from cogit.errors import CogitError

MARK = {"ok": "ok   ", "warn": "warn ", "fail": "FAIL ", "fixed": "fixed", "skipped": "skip "}


@cli.command()
@click.option("--project", "project", type=click.Path(file_okay=False),
              help="Also check DIR/.claude/settings.json (hooks installed with `install --project`).")
@click.option("--fix", is_flag=True, help="Make the safe repairs (see docs/doctor.md) and say what was done.")
@click.option("--offline", is_flag=True, help="Do not contact remotes or the reflection endpoint.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def doctor(obj, project: str | None, fix: bool, offline: bool, as_json: bool) -> None:
    """Check memory, the machine, the installed hooks, remotes and the model endpoint;
    --fix makes the safe repairs.

    Exits 1 when a check fails (each says what to do).
    """
    from cogit.doctor import doctor as run

    findings = run(obj.home, project, fix, offline)
    if as_json:
        emit_json([f.to_json() for f in findings])
    else:
        for f in findings:
            click.echo(f"{MARK[f.status]} {f.name}: {f.detail}")
            if f.hint:
                click.echo(f"      {f.hint}")
    failed = [f for f in findings if f.status == "fail"]
    if failed:
        raise CogitError(f"{len(failed)} check(s) failed", hint="See above; each says what to do.")
