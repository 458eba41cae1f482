"""`cogit scan`: report secrets already in memory's history."""

from __future__ import annotations

import click

from cogit.cli import cli, emit_json
from cogit.errors import CogitError, NotInitialized


class SecretsFound(CogitError):
    pass


@cli.command()
@click.option("--all-branches", is_flag=True, help="Scan every branch (projects too), not only main.")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@click.pass_obj
def scan(obj, all_branches: bool, as_json: bool) -> None:
    """Find secrets in every commit of memory's history (files and messages).

    Exits 1 when something is found, with what to do; never prints a secret whole.
    """
    from cogit.store.git import repo as git
    from cogit.store.git import remotes as git_remotes
    from cogit.store.history.scan import purge_advice, scan as scan_history
    from cogit.store.write.scrub import allowlist
    from cogit.store.write.transact import main_config

    if not (obj.home.memory / ".git").exists():
        raise NotInitialized(f"no memory in {obj.home.memory}", hint="Run `cogit init` first.")
    repo = git.open_repo(obj.home.memory)
    try:
        branches = git.branches(repo) if all_branches else [git.MAIN]
        findings = scan_history(repo, branches, allowlist(main_config(repo)))
        remotes = bool(git_remotes.remotes(repo))
    finally:
        repo.close()
    if as_json:
        emit_json({"branches": branches, "findings": [f.as_dict() for f in findings]})
    else:
        for f in findings:
            click.echo(f"{f.kind:<26} {f.commit[:10]}  {f.file:<20} {f.masked}  ({f.branch})")
        if not findings:
            click.echo(f"No secrets found in {', '.join(branches)}.")
    if findings:
        raise SecretsFound(f"{len(findings)} secret(s) found in memory's history",
                           hint=purge_advice(obj.home.memory, remotes))
