"""`cogit rules [--json]`, `cogit rules show ID`: rules with confidence from their ledger."""

from __future__ import annotations

import click

from cogit.cli import cli, emit_json
from cogit.cli.project import project_option, scope_of


@cli.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@project_option
@click.pass_context
def rules(ctx, as_json: bool, project: str | None) -> None:
    """Learned rules: confidence, detections, suppressions, from history (every scope, or --project).

    Confidence = (E + 1) / (E + 3) with E = detections + suppressions; it decays only after
    learning.rule_dormant_days without evidence. See README "The learning loop".
    """
    if ctx.invoked_subcommand:
        return
    from cogit.learn.rules import listing

    obj = ctx.obj
    if project:
        branches = [scope_of(obj, project, must_exist=True).branch]
    else:  # in a project's folder: global and that project, as an agent there sees them
        import os

        from cogit.store import scoped

        here = scoped.folder_project(obj.home, os.getcwd())
        branches = [here.branch, "main"] if here else None
    rows = listing(obj.home, branches)
    if as_json:
        emit_json(rows)
        return
    if not rows:
        click.echo("No rules yet. They grow from detected failure patterns, or `cogit add rule TEXT --detector NAME`.")
        return
    for r in rows:
        click.echo(f"{r['id']}  {r['confidence']:.0%}  {r['detector']:<20} det {r['detections']}  sup {r['suppressions']}  "
                   f"injected {r['sessions_injected']}  [{r['scope']}]")
        click.echo(f"    {r['text']}")
        click.echo(f"    last detected {r['last_detected'] or '-'}, last suppressed {r['last_suppressed'] or '-'}")


@rules.command("show")
@click.argument("rule_id")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def rules_show(obj, rule_id: str, as_json: bool) -> None:
    """One rule's ledger (each detection and suppression, with session and commit) and its confidence over time."""
    from cogit.learn.rules import show

    row = show(obj.home, rule_id)
    if as_json:
        emit_json(row)
        return
    click.echo(f"{row['id']} [{row['scope']}] {row['detector']}: {row['text']}")
    click.echo(f"confidence {row['confidence']:.0%}  ({row['detections']} detections, {row['suppressions']} suppressions)")
    click.echo(f"over time  {row['sparkline']}  ({row['over_time'][0]['confidence']:.0%} → {row['confidence']:.0%})")
    for e in row["ledger"]:
        click.echo(f"  {e['time']}  {e['kind']:<8}  session {e['session'][:12]:<12}  commit {e['commit'][:10]}"
                   + ("  (injected)" if e["injected"] else "") + (f"  [{e['scope']}]" if e["scope"] != row["scope"] else ""))
    if not row["ledger"]:
        click.echo("  no evidence yet")
