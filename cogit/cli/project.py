"""`cogit project list | show | promote | demote`, and the `--project` option of other commands."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

import click

from cogit.cli import cli, emit_json
from cogit.cli.options import PROJECT_HELP, project_option  # noqa: F401 - re-exported (cold commands import options)

# store.scopes (and with it dulwich) and provenance are imported where a command uses it: `show` and
# `status` use this module's option and may answer from a snapshot (store/cache/snapshot.py).
if TYPE_CHECKING:
    from cogit.store import scopes


def scope_of(obj, project: str | None, *, must_exist: bool = False) -> scopes.Scope:
    from cogit.store import scopes

    scope = scopes.resolve(obj.home, project, os.getcwd())
    if must_exist:
        scopes.ensure_exists(obj.home, scope)
    return scope


@cli.group()
def project() -> None:
    """Project scopes: each project has its own branch beside the global memory.

    \b
    An agent working in a folder gets global memory plus that project's; what it
    learns there goes to the project. The project of a folder is its repository's
    origin URL (else its top-level folder); config projects.overrides renames it.
    """


@project.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def project_list(obj, as_json: bool) -> None:
    """Every project with memory: name, branch, item counts, last change."""
    from cogit.store import scopes

    found = scopes.list_projects(obj.home)
    if as_json:
        emit_json(found)
        return
    if not found:
        click.echo("No project memory yet. Agents create it as they learn in a project; "
                   "`cogit add learning TEXT --project .` starts one by hand.")
    for p in found:
        counts = ", ".join(f"{k} {v}" for k, v in p["counts"].items() if v) or "empty"
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(p["time"]))
        click.echo(f"{p['name']}\n  {p['branch']} at {p['head'][:10]}, changed {when}: {counts}")


@project.command("show")
@click.argument("name", required=False, default=".")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def project_show(obj, name: str, as_json: bool) -> None:
    """A project's own memory and the digest an agent there is given (default: this folder's project)."""
    from cogit.state_render import render_state, state_json
    from cogit.store import scopes
    from cogit.store.state.schema import SECTIONS

    info = scopes.preview(obj.home, scope_of(obj, name))
    if as_json:
        emit_json({**{k: info[k] for k in ("name", "branch", "head")}, "state": state_json(info["state"], list(SECTIONS)),
                   "digest": info["digest"]["text"]})
        return
    click.echo(f"project {info['name']} ({info['branch']})")
    click.echo(render_state(info["state"], [s for s in SECTIONS if s != "config"], info["head"]))
    click.echo("\nDigest for an agent in this project (global plus project):")
    click.echo(info["digest"]["text"])


def _move(obj, item_id: str, source, target, event: str) -> None:
    from cogit.store import scopes
    from cogit.store.git.provenance import Provenance

    prov = Provenance(event=event, source="cli", agent=os.environ.get("COGIT_AGENT", "human"),
                      session=os.environ.get("COGIT_SESSION", "-"))
    results = scopes.move(obj.home, item_id, source, target, prov)
    for r in results:
        click.echo(f"[{r.sha[:10]}] {r.summary}")
    if not results:
        click.echo("Nothing changed; no commit made.")


@project.command("promote")
@click.argument("item_id")
@click.option("--project", "project", metavar="NAME", help="The project holding the item (default: whichever does).")
@click.pass_obj
def project_promote(obj, item_id: str, project: str | None) -> None:
    """Move an item from its project to global memory (every project sees it)."""
    from cogit.store.scopes import GLOBAL

    source = scope_of(obj, project, must_exist=True) if project else None
    _move(obj, item_id, source, GLOBAL, "item.promote")


@project.command("demote")
@click.argument("item_id")
@click.option("--project", "project", metavar="NAME", default=".", show_default=True,
              help="The project to move it to (a name, or a folder).")
@click.pass_obj
def project_demote(obj, item_id: str, project: str) -> None:
    """Move an item from global memory to one project (only agents there see it)."""
    target = scope_of(obj, project)
    if target.is_global:
        raise click.UsageError("--project must name a project, not global")
    from cogit.store.scopes import GLOBAL

    _move(obj, item_id, GLOBAL, target, "item.demote")
