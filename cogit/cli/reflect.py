"""Reflection and the review inbox: reflect, review, accept, reject."""

from __future__ import annotations

import click

from cogit.cli import cli, emit_json
from cogit.cli.project import project_option, scope_of
from cogit.cli.state import _report
from cogit.store import memory
from cogit.store.git.provenance import Provenance


@cli.command()
@click.option("--dry-run", is_flag=True, help="Ask and validate, print the answer, commit nothing.")
@click.option("--endpoint", metavar="URL", help="OpenAI-compatible base URL (default: this machine's reflect.endpoint).")
@click.option("--model", metavar="NAME", help="Model name at the endpoint (default: this machine's reflect.model).")
@click.option("--command", "command", metavar="CMD", help="A command: prompt on stdin, JSON or YAML on stdout.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@project_option
@click.pass_obj
def reflect(obj, dry_run: bool, endpoint: str | None, model: str | None, command: str | None, as_json: bool,
            project: str | None) -> None:
    """Step back and learn from the pattern of many sessions (one commit).

    Uses a local model (reflect.endpoint / --endpoint), a command (reflect.command /
    --command), else the built-in analysis; the settings are this machine's own
    (machine-settings.json; a synced value waits for `cogit confirm`). The built-in
    analysis's insights go to reflections; a model's insights, and every proposed
    heuristic, learning, avoidance, rule and focus, wait for `cogit review`.
    """
    from cogit.learn.reflect import reflect as run

    scope = scope_of(obj, project, must_exist=True)
    report = run(obj.home, endpoint=endpoint, model=model, command=command, dry_run=dry_run,
                 branch=scope.branch, project=scope.name)
    for p in report.get("waiting_settings") or []:
        if p["key"].startswith("reflect."):  # said on stderr: the report on stdout stays as it was
            click.echo(f"Not in effect here: {p['key']} in config.yaml waits for your confirmation ({p['command']})", err=True)
    if as_json:
        emit_json(report)
        return
    answer = report["answer"]
    click.echo(f"Reflector: {report['reflector']} ({report['model']}), prompt {report['prompt_hash']}, {report['seconds']}s")
    for key in ("insights", "patterns", "questions"):
        for text in answer.get(key) or []:
            click.echo(f"  {key[:-1]}: {text}")
    if dry_run:
        props = sum(len(answer.get(k) or []) for k in ("heuristics", "learnings", "avoidances", "rules")) + bool(answer.get("focus"))
        click.echo(f"Dry run: {props} proposal(s) in the answer; nothing committed.")
        return
    if report["commit"]:
        click.echo(f"[{report['commit'][:10]}] {len(report['reflections'])} insight(s) stored; "
                   f"{len(report['pending'])} proposal(s) wait for review (`cogit review`)")
    else:
        click.echo("Nothing new; no commit made.")
    for text in report["dropped"]:
        click.echo(f"  dropped (rejected, forgotten or reverted before): {text}")


@cli.command()
@click.option("--tombstones", is_flag=True, help="List tombstones instead: what was rejected, forgotten or reverted.")
@click.option("--json", "as_json", is_flag=True, help="Print the pending proposals (or tombstones) as JSON.")
@project_option
@click.pass_obj
def review(obj, tombstones: bool, as_json: bool, project: str | None) -> None:
    """List proposals waiting for your yes (`cogit accept ID` / `cogit reject ID`)."""
    from cogit.learn.inbox import pending

    scope = scope_of(obj, project, must_exist=True)
    _, state = memory.read(obj.home, branch=scope.branch)
    if tombstones:
        stones = list((state.get("reflections") or {}).get("tombstones") or [])
        if as_json:
            emit_json(stones)
            return
        for t in stones:
            dropped = f", dropped {t['dropped']} proposal(s) since" if t.get("dropped") else ""
            click.echo(f"{t['id']}  {t['reason']} {t['section']} {t.get('item', '')}: {t['text']}  ({t['created_at']}{dropped})")
        click.echo(f"{len(stones)} tombstone(s)." if stones else "No tombstones.")
        return
    waiting = pending(state)
    if as_json:
        emit_json(waiting)
        return
    if not waiting:
        click.echo("Nothing waits for review.")
        return
    for p in waiting:
        extra = f" --detector {p['detector']}" if p.get("detector") else (f" [{p['category']}]" if p.get("category") else "")
        click.echo(f"{p['id']}  {p['section'][:-1] if p['section'] != 'focus' else 'focus'}{extra}: {p['text']}")
        click.echo(f"    from {p.get('source')}{' (' + p['model'] + ')' if p.get('model') else ''}, {p.get('created_at')}")
    click.echo(f"{len(waiting)} waiting. `cogit accept ID...` adds them to memory; `cogit reject ID...` leaves a tombstone.")


@cli.command()
@click.argument("ids", nargs=-1, required=True)
@project_option
@click.pass_obj
def accept(obj, ids: tuple[str, ...], project: str | None) -> None:
    """Accept pending proposals: they become memory (one commit, human.accept)."""
    from cogit.learn.inbox import accept as apply

    scope = scope_of(obj, project, must_exist=True)
    prov = Provenance(event="human.accept", source="human", project=scope.name)
    _report(memory.write(obj.home, prov, apply(list(ids)), branch=scope.branch))


@cli.command()
@click.argument("ids", nargs=-1, required=True)
@project_option
@click.pass_obj
def reject(obj, ids: tuple[str, ...], project: str | None) -> None:
    """Reject pending proposals: they go, and a tombstone keeps them from coming back (human.reject)."""
    from cogit.learn.inbox import reject as apply

    scope = scope_of(obj, project, must_exist=True)
    prov = Provenance(event="human.reject", source="human", project=scope.name)
    _report(memory.write(obj.home, prov, apply(list(ids)), branch=scope.branch))

