"""Commands that read and undo history: log, diff, why, revert."""

from __future__ import annotations

import os

import click

from cogit import quickcli
from cogit.cli import cli, emit_json
from cogit.cli.options import project_option

# The store (and with it dulwich, the YAML and schema code) is imported inside the
# commands: `log` and `why` first ask the history index (cogit/store/history/index.py,
# standard library only), and take the full path only when it cannot answer.


def scope_of(obj, project, *, must_exist: bool = False):
    from cogit.cli.project import scope_of

    return scope_of(obj, project, must_exist=must_exist)


@cli.command()
@click.option("-n", "limit", type=click.IntRange(min=1), help="At most N commits.")
@click.option("--event", help="Only this Cogit-Event (a prefix like `learning` matches learning.*).")
@click.option("--source", type=click.Choice(["cli", "hook", "reflection", "human", "sync", "import", "agent"]))
@click.option("--session", help="Only commits of this agent session.")
@click.option("--since", help="Only since a date: YYYY-MM-DD, ISO time, or 3d / 12h.")
@click.option("--item", "item", help="Only commits that created or changed this item id.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of commits.")
@click.option("--scope", "scope_name", metavar="global|NAME", help="Only this scope (default: every scope).")
@project_option
@click.pass_obj
def log(obj, limit, event, source, session, since, item, as_json, project, scope_name=None) -> None:
    """History of memory, newest first, with provenance: every scope (global and each
    project), with a scope column; --scope (or --project) narrows it to one."""
    narrow = project if project is not None else scope_name
    filters = dict(limit=limit, event=event, source=source, session=session, since=since, item=item)
    if narrow is None:
        found = quickcli.log_every_scope(obj.home, filters)
    else:
        from cogit.store import scoped

        found = [(scoped.label(s), s.branch, e) for s, e in scoped.log(obj.home, [scope_of(obj, narrow, must_exist=True)], **filters)]
    quickcli.print_log(found, as_json, click.echo)


@cli.command()
@click.argument("revs", nargs=-1)
@click.option("--raw", is_flag=True, help="git's textual diff of the YAML files.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of item changes.")
@project_option
@click.pass_obj
def diff(obj, revs: tuple[str, ...], raw: bool, as_json: bool, project: str | None) -> None:
    """What changed: the last commit (no REV), since REV, or from REV to REV.

    \b
    + learning l-3f2a "…"           added
    ~ heuristic h-9c1a: use_count 3 → 4   changed
    - avoidance a-12ab "…"          removed
    """
    from cogit.store.history import log as history
    from cogit.store import scoped

    if len(revs) > 2:
        raise click.UsageError("give at most two revisions")
    if project is not None:
        scopes = [scope_of(obj, project, must_exist=True)]
    elif revs:
        # A revision names its scope: a project's commit is diffed on the project's branch.
        held = scoped.scopes_with_commit(obj.home, revs[0])
        scopes = [held[0] if held and not any(s.is_global for s in held) else scope_of(obj, None)]
    else:
        scopes = scoped.view(obj.home, None, os.getcwd())  # in a project's folder: its last commit too
    results = [(s, history.diff(obj.home, *(revs + (None, None))[:2], raw=raw, branch=s.branch)) for s in scopes]
    labelled = len(scopes) > 1 or (project is None and not scopes[0].is_global)
    if raw:
        for s, result in results:
            if labelled:
                click.echo(f"# {scoped.label(s)}")
            click.echo(result, nl=False)
    else:
        quickcli.print_diff(results, labelled, as_json, click.echo)


@cli.command()
@click.argument("item_id")
@click.option("--json", "as_json", is_flag=True)
@project_option
@click.pass_obj
def why(obj, item_id: str, as_json: bool, project: str | None) -> None:
    """Every commit that created or changed an item, with its provenance."""
    if project is None:
        found = quickcli.why_every_scope(obj.home, item_id)
        none = f"No commit mentions {item_id} in any scope."
    else:
        from cogit.store.history import log as history
        from cogit.store import scoped

        scope = scope_of(obj, project, must_exist=True)
        found = [(scoped.label(scope), e, ch) for e, ch in history.why(obj.home, item_id, branch=scope.branch)]
        none = f"No commit mentions {item_id} in {scoped.label(scope)}."
    quickcli.print_why(found, as_json, none, click.echo)


@cli.command()
@click.argument("rev")
@project_option
@click.pass_obj
def revert(obj, rev: str, project: str | None) -> None:
    """Undo exactly one commit's item changes, as a new commit (later changes stay)."""
    from cogit.learn.rules import revert_evidence  # evidence is a ledger entry (cogit/domain/ledger.py)
    from cogit.store.history.revert import revert as revert_commit
    from cogit.store import scoped
    from cogit.store.git.provenance import Provenance

    scope = scope_of(obj, project, must_exist=True)
    if project is None:
        holders = scoped.scopes_with_commit(obj.home, rev)
        if not any(s.is_global for s in holders):
            # In a project's folder, a commit of that project is found as `show` finds its items.
            here = scoped.folder_project(obj.home, os.getcwd())
            if here is not None and any(s.branch == here.branch for s in holders):
                scope = here
            else:
                error = scoped.elsewhere_commit(obj.home, rev, scope, "revert")
                if error is not None:
                    raise error
    result = revert_commit(obj.home, rev, Provenance(event="revert", source="cli", project=scope.name), branch=scope.branch,
                           revert_evidence=revert_evidence)
    if result is None:
        click.echo("Nothing to undo: memory already has that state; no commit made.")
    else:
        click.echo(f"[{result.sha[:10]}] {result.summary}")
        click.echo(f"  in {scoped.where(scope)}")


@cli.command()
@click.argument("text")
@click.option("--history", "with_history", is_flag=True, help="Also items that were forgotten, pruned or reverted, with the commit that removed them.")
@click.option("-n", "limit", type=click.IntRange(min=1), default=50, show_default=True, help="At most N hits.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of hits.")
@project_option
@click.pass_obj
def search(obj, text: str, with_history: bool, limit: int, as_json: bool, project: str | None) -> None:
    """Items in every scope whose text holds all the words of TEXT (case-insensitive;
    a word matches the start of a word). --history adds removed items."""
    from cogit.search import search as run_search

    branches = [scope_of(obj, project, must_exist=True).branch] if project is not None else None
    hits = run_search(obj.home, text, history=with_history, branches=branches, limit=limit)
    if as_json:
        emit_json(hits)
        return
    if not hits:
        click.echo(f"Nothing in memory matches {text!r}" + ("" if with_history else "; --history searches removed items too") + ".")
    for h in hits:
        kind = h["section"][:-1]
        gone = " (removed)" if h["status"] == "removed" else ""
        click.echo(f"{h['id']:<10} {h['scope']}  {kind}{gone}: {h['text']}")
        if h["status"] == "removed":
            click.echo(f"           {h['how']} in {h['commit'][:10]} ({h['time']}): {h['summary']}")
