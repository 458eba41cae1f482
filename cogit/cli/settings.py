"""Settings that act on this machine: confirm."""

from __future__ import annotations

import click

from cogit.cli import cli, emit_json


@cli.command()
@click.argument("key", required=False)
@click.option("--expect", metavar="HASH", help="The fingerprint `cogit doctor` showed: refuse if the value changed since.")
@click.option("--decline", is_flag=True, help="Say no: keep this machine's value, and stop listing this synced value.")
@click.option("--json", "as_json", is_flag=True, help="Print the result (or, without KEY, what waits) as JSON.")
@click.pass_obj
def confirm(obj, key: str | None, expect: str | None, decline: bool, as_json: bool) -> None:
    """Make a synced setting that acts (reflect.command, sync.auto, ...) take effect on this machine.

    Settings that run a program, open a connection, decide when those happen, or grant
    trust take effect only from this machine's own machine-settings.json (in $COGIT_HOME,
    never synced). A value of one in config.yaml that differs waits; `cogit doctor` lists
    each with the exact command. This copies config.yaml's value of KEY into
    machine-settings.json (--decline: keeps this machine's value and stops listing that
    synced value). Without KEY: list what waits.
    """
    from cogit import machine_settings
    from cogit.store.memory import open_existing
    from cogit.store.write.transact import main_config

    if key is None:
        repo = open_existing(obj.home)
        try:
            config = main_config(repo)
        finally:
            repo.close()
        waiting = machine_settings.pending(obj.home, config)
        if as_json:
            emit_json(waiting)
            return
        for p in waiting:
            click.echo(f"{machine_settings.describe(p)}\n  confirm: {p['command']}\n  or keep yours: {p['decline']}")
        if not waiting:
            click.echo("No setting waits for confirmation.")
        return
    result = machine_settings.confirm(obj.home, key, expect, decline)
    if as_json:
        emit_json(result)
        return
    if decline:
        click.echo(f"{result['key']} stays {machine_settings.show(result['value'])} here; config.yaml's "
                   f"{machine_settings.show(result['declined'])} no longer waits")
        return
    click.echo(f"{result['key']} = {machine_settings.show(result['value'])} is now this machine's own "
               f"(was {machine_settings.show(result['was'])}; {result['file']})")
