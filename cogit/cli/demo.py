"""`cogit demo`: the main job, shown end to end in a throwaway memory."""

from __future__ import annotations

import click

from cogit.cli import cli


@cli.command()
@click.option("--keep", is_flag=True, help="Keep the throwaway memory home and print its path.")
def demo(keep: bool) -> None:
    """Replay a recorded agent session through the real hooks into a throwaway memory.

    Shows what the model is told, the log of what changed, and the diff.
    """
    from cogit.demo import run

    run(keep=keep, out=click.echo)
