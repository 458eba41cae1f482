"""Commands that move memory between machines: remote, pull, push, sync, clone, conflicts."""

from __future__ import annotations

import os
import sys
import time

import click

from cogit.cli import cli, emit_json
from cogit.cli.project import project_option, scope_of
from cogit.sync import remote as store_sync
from cogit.sync.remote import DEFAULT_TIMEOUT
from cogit.sync.transport import redact_url


def _network_options(fn):
    fn = click.option("--timeout", type=click.FloatRange(min=0.1, max=600), default=DEFAULT_TIMEOUT, show_default=True,
                      help="Seconds to wait for the remote at each step before giving up.")(fn)
    fn = click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")(fn)
    fn = click.option("--progress/--no-progress", default=None,
                      help="Show transfer progress (default: when stderr is a terminal).")(fn)
    fn = click.option("--json", "as_json", is_flag=True, help="Print what happened as JSON.")(fn)
    return fn


def _callbacks(quiet: bool, progress: bool | None):
    show = (not quiet) and (sys.stderr.isatty() if progress is None else progress)

    def write_progress(data: bytes) -> None:
        sys.stderr.write(data.decode("utf-8", "replace"))
        sys.stderr.flush()

    def note(text: str) -> None:
        click.echo(text, err=True)

    return (write_progress if show else None), (None if quiet else note)


def _report(report, quiet: bool, as_json: bool) -> None:
    if as_json:
        emit_json(report.to_json())
        return
    if quiet:
        return
    for r in report.pulled:
        if r.action == "up to date":
            continue
        line = f"{r.branch}: {r.action}"
        line += f" ({r.commits} commit(s) from {report.remote})" if r.commits else ""
        line += f" [{(r.new or '')[:10]}]"
        if r.conflicts:
            line += f"; {len(r.conflicts)} field(s) changed on both sides (`cogit conflicts` says which value was kept and why)"
        click.echo(line)
        for section, item in r.pruned:
            click.echo(f"  pruned by cap after the merge: {section} {item.get('id')} {item.get('text', '')!r}")
    if report.pushed:
        click.echo(f"Pushed to {report.remote}: " + ", ".join(f"{r.branch} [{r.new[:10]}]" for r in report.pushed))
    if not any(r.action != "up to date" for r in report.pulled) and not report.pushed:
        click.echo(f"Up to date with {report.remote}.")
    if report.transport:  # config sync.transport: auto|git|dulwich
        click.echo(f"Transport: {report.transport}.")


def _run(obj, action: str, remote, timeout, quiet, progress, as_json, background) -> None:
    if background:
        store_sync.background(obj.home, action, remote, timeout)
        return
    prog, note = _callbacks(quiet or as_json, progress)
    fn = {"pull": store_sync.pull, "push": store_sync.push, "sync": store_sync.sync}[action]
    _report(fn(obj.home, remote, timeout, prog, note), quiet, as_json)


_BACKGROUND = click.option("--background", is_flag=True, hidden=True,
                           help="Auto-sync mode: never fail, log to runtime/logs/sync.log.")


@cli.command()
@click.argument("remote", required=False)
@_network_options
@_BACKGROUND
@click.pass_obj
def pull(obj, remote, timeout, quiet, progress, as_json, background) -> None:
    """Fetch every branch from the remote and merge it into memory.

    Everything pulled is validated first; fields changed on both sides keep the
    newer change (`cogit conflicts` lists the other values).
    """
    _run(obj, "pull", remote, timeout, quiet, progress, as_json, background)


@cli.command()
@click.argument("remote", required=False)
@_network_options
@_BACKGROUND
@click.pass_obj
def push(obj, remote, timeout, quiet, progress, as_json, background) -> None:
    """Send every branch to the remote (if it moved on: fetch, merge, push again)."""
    _run(obj, "push", remote, timeout, quiet, progress, as_json, background)


@cli.command("sync")
@click.argument("remote", required=False)
@_network_options
@_BACKGROUND
@click.pass_obj
def sync_cmd(obj, remote, timeout, quiet, progress, as_json, background) -> None:
    """Pull, then push: afterwards this machine and the remote hold the same memory.

    REMOTE defaults to config sync.remote, else `origin`, else the only remote.
    """
    _run(obj, "sync", remote, timeout, quiet, progress, as_json, background)


@cli.command()
@click.argument("url")
@click.option("--name", default="origin", show_default=True, help="What to call the remote.")
@_network_options
@click.pass_obj
def clone(obj, url, name, timeout, quiet, progress, as_json) -> None:
    """Set up memory on a new machine from a remote (any git URL).

    A machine that already has memory joins instead with `cogit remote add` and
    `cogit sync`: both histories merge and both keep everything.
    """
    prog, note = _callbacks(quiet or as_json, progress)
    report = store_sync.clone(obj.home, url, os.getcwd(), name, timeout, prog, note)
    if as_json:
        emit_json(report.to_json())
    elif not quiet:
        click.echo(f"Memory in {obj.home.memory}, synced with {name} (transport: {report.transport}). "
                   "`cogit sync` exchanges changes; config sync.auto: true does it around agent sessions.")


@cli.group()
def remote() -> None:
    """The git remotes memory syncs with (path, file://, ssh, git://, http(s)://)."""


@remote.command("add")
@click.argument("name")
@click.argument("url")
@click.pass_obj
def remote_add(obj, name: str, url: str) -> None:
    """Add a remote; then `cogit sync` merges both sides' memory."""
    url = store_sync.add_remote(obj.home, name, url, os.getcwd())
    click.echo(f"Added remote {name}: {redact_url(url)}. Run `cogit sync` to exchange memory.")


@remote.command("remove")
@click.argument("name")
@click.pass_obj
def remote_remove(obj, name: str) -> None:
    """Forget a remote (memory and the remote itself are untouched)."""
    store_sync.remove_remote(obj.home, name)
    click.echo(f"Removed remote {name}.")


@remote.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def remote_list(obj, as_json: bool) -> None:
    """The remotes and their URLs."""
    found = {n: redact_url(u) for n, u in store_sync.list_remotes(obj.home).items()}
    if as_json:
        emit_json(found)
        return
    if not found:
        click.echo("No remotes. `cogit remote add origin URL` adds one.")
    for name, url in found.items():
        click.echo(f"{name}\t{url}")


@cli.command()
@project_option
@click.option("-n", "limit", type=click.IntRange(min=1), help="At most N merges.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def conflicts(obj, project, limit, as_json) -> None:
    """Fields both machines changed: which value a merge kept, and the other one."""
    from cogit.sync.integrate import list_conflicts

    found = list_conflicts(obj.home, scope_of(obj, project, must_exist=True).branch, limit)
    if as_json:
        emit_json([m.to_json() for m in found])
        return
    if not found:
        click.echo("No conflicts: no merge had a field changed on both sides.")
    for m in found:
        click.echo(f"{m.sha[:10]} {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(m.time))}  {m.summary}")
        for c in m.conflicts:
            where = f"{c['section']} {c['item']}" if c.get("item") else c["section"]
            click.echo(f"  {where} {c['field']}: kept {_short(c['kept'])} ({c['kept_side']}), other {_short(c['other'])}")
            if c.get("reason"):
                click.echo(f"    {c['reason']}")


def _short(value) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "…"
