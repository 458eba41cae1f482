"""`cogit report`: the memory's self-modification over time as one self-contained HTML file."""

from __future__ import annotations

import click

from cogit.cli import cli, emit_json
from cogit.cli.project import project_option, scope_of
from cogit.report import MAX_COMMITS


@cli.command()
@click.option("--out", "out", default="cogit-report.html", show_default=True, type=click.Path(dir_okay=False),
              help="The HTML file to write.")
@click.option("--since", help="Only commits since YYYY-MM-DD, an ISO time, or 3d / 12h / 30m; the story at the top "
              "starts there (default: at the last report made on this machine).")
@click.option("--max-commits", default=MAX_COMMITS, show_default=True, type=click.IntRange(min=1),
              help="Show at most the newest N commits (the page says how many it left out).")
@project_option
@click.option("--open", "open_it", is_flag=True, help="Open the report in the default browser.")
@click.option("--json", "as_json", is_flag=True, help="Print what was written as JSON.")
@click.pass_obj
def report(obj, out: str, since: str | None, max_commits: int, project: str | None, open_it: bool, as_json: bool) -> None:
    """Write one HTML file (no server, no network) showing how memory changed itself: at the top
    what memory did since the last report (lessons, rules and their measured effect, what was
    reverted or forgotten, what came from other machines, what reflection proposed), a timeline
    of commits coloured by source with each commit's semantic diff, the items per scope with
    their provenance, rules with their confidence over time, tool statistics, and what was
    injected into each session. Every scope, or global plus `--project NAME`."""
    from cogit.report import write_report

    scope = scope_of(obj, project, must_exist=True) if project else None
    summary = write_report(obj.home, out, since=since, project=scope, max_commits=max_commits)
    if as_json:
        emit_json(summary)
    else:
        left = f"; {summary['left_out']} older commits left out (--max-commits)" if summary["left_out"] else ""
        click.echo(f"Wrote {summary['path']} ({summary['bytes'] // 1024 + 1} KiB): {summary['commits']} commits, "
                   f"{summary['rules']} rules, {summary['sessions']} sessions, scopes {', '.join(summary['scopes'])}{left}.")
        story = summary["story"]
        if story["how"] != "all":
            click.echo(f"At the top: what memory did since {'the last report, ' if story['how'] == 'last report' else ''}"
                       f"{story['start'].replace('T', ' ').replace('Z', ' UTC')} ({story['commits']} commits).")
    if open_it:
        import pathlib
        import webbrowser

        if not webbrowser.open(pathlib.Path(summary["path"]).as_uri()):
            click.echo(f"No browser could be started; open {summary['path']} yourself.", err=True)
