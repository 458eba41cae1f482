"""`cogit rules [--json]`, `cogit rules show ID`: rules with confidence from their ledger."""

from __future__ import annotations

import click

from cogit import quickcli
from cogit.cli import cli, emit_json
from cogit.cli.project import project_option, scope_of


@cli.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@project_option
@click.pass_context
def rules(ctx, as_json: bool, project: str | None) -> None:
    """Learned rules: confidence, detections, suppressions, whether applied, measured effect, from history (every scope, or --project).

    Confidence = (E - M + 1) / (E + 3) with E = detections + suppressions and M = misses
    (detections in sessions that were shown the rule); it decays only after
    learning.rule_dormant_days without evidence. See docs/learning.md "The learning loop".
    """
    if ctx.invoked_subcommand:
        return
    from cogit.learn.rule_listing import listing

    obj = ctx.obj
    if project:
        branches = [scope_of(obj, project, must_exist=True).branch]
    else:  # in a project's folder: global and that project, as an agent there sees them
        import os

        from cogit.store import scoped

        here = scoped.folder_project(obj.home, os.getcwd())
        branches = [here.branch, "main"] if here else None
    rows = listing(obj.home, branches)
    quickcli.print_rules(rows, as_json, click.echo)


@rules.command("show")
@click.argument("rule_id")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def rules_show(obj, rule_id: str, as_json: bool) -> None:
    """One rule's ledger (each detection and suppression, with session and commit), its confidence over time,
    its measured effect (the pattern's rate shown vs withheld, with a 95% interval) and whether it was applied."""
    from cogit.learn.rule_listing import show

    row = show(obj.home, rule_id)
    if as_json:
        emit_json(row)
        return
    click.echo(f"{row['id']} [{row['scope']}] {row['detector']}: {row['text']}")
    click.echo(f"confidence {row['confidence']:.0%}  ({row['detections']} detections, {row['suppressions']} suppressions)")
    click.echo(f"over time  {row['sparkline']}  ({row['over_time'][0]['confidence']:.0%} → {row['confidence']:.0%})")
    if row.get("effect"):
        e = row["effect"]
        click.echo(f"effect     {e['text']}")
        click.echo(f"           shown and relevant: {e['shown']['pattern']} of {e['shown']['relevant']} with the pattern; "
                   f"withheld and relevant: {e['withheld']['pattern']} of {e['withheld']['relevant']} "
                   f"(withheld in {e['withheld']['sessions']} sessions; see docs/learning.md#measured-effect)")
        click.echo(f"           {quickcli.applied_line(row['applied'])}")
    for e in row["ledger"]:
        click.echo(f"  {e['time']}  {e['kind']:<8}  session {e['session'][:12]:<12}  commit {e['commit'][:10]}"
                   + ("  (injected)" if e["injected"] else "") + ("  (withheld)" if e.get("withheld") else "")
                   + (f"  [{e['scope']}]" if e["scope"] != row["scope"] else ""))
    if not row["ledger"]:
        click.echo("  no evidence yet")


def _write(obj, project, event, apply):
    from cogit.cli.state import _prov, _report
    from cogit.store import memory

    scope = scope_of(obj, project)
    result = memory.write(obj.home, _prov(event, scope), apply, branch=scope.branch)
    _report(result, scope=scope)


@rules.command("off")
@click.argument("detector")
@project_option
@click.pass_obj
def rules_off(obj, detector: str, project: str | None) -> None:
    """Turn a detector off: it makes no rule and adds no evidence (globally, or in --project)."""
    from cogit.learn.rules import switch
    from cogit.store import memory

    _write(obj, project, "rule.switch", switch(detector, "off", memory.read(obj.home)[1].get("config")))


@rules.command("on")
@click.argument("detector")
@project_option
@click.pass_obj
def rules_on(obj, detector: str, project: str | None) -> None:
    """Turn a detector on again (long_run and context_flood are off until turned on)."""
    from cogit.learn.rules import switch
    from cogit.store import memory

    _write(obj, project, "rule.switch", switch(detector, "on", memory.read(obj.home)[1].get("config")))


@rules.command("tombstones")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@project_option
@click.pass_obj
def rules_tombstones(obj, as_json: bool, project: str | None) -> None:
    """Removed rules that stay removed (forgotten, reverted, rejected): their pattern makes no rule."""
    from cogit.store import memory

    scope = scope_of(obj, project)
    state = memory.read(obj.home, branch=scope.branch)[1]
    stones = list((state.get("rules") or {}).get("tombstones") or [])
    if as_json:
        emit_json(stones)
        return
    if not stones:
        click.echo("No rule tombstones.")
        return
    for t in stones:
        click.echo(f"{t.get('rule')}  {t.get('detector')}  {t.get('reason')}  {t.get('at')}")
        click.echo(f"    {t.get('text')}")
    click.echo("Lift one with `cogit rules lift RULE_ID`.")


@rules.command("lift")
@click.argument("key")
@project_option
@click.pass_obj
def rules_lift(obj, key: str, project: str | None) -> None:
    """Lift a rule tombstone (by the removed rule's id, or DETECTOR[:SIGNATURE]): its pattern can make a rule again."""
    from cogit.learn.rules import lift

    _write(obj, project, "rule.lift", lift(key))
