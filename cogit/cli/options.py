"""Options several command modules share, in a module that imports only click: the
cold read commands (log, why) must not load the store to declare their options."""

from __future__ import annotations

import click

PROJECT_HELP = "Project scope: a name from `cogit project list`, a folder (`.` is the current one), or `global` (the default)."


def project_option(fn):
    """`--project NAME` for every command that reads or writes memory."""
    return click.option("--project", "project", metavar="NAME", help=PROJECT_HELP)(fn)
