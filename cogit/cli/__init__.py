"""The click CLI and its one error boundary.

Exit codes: 0 ok; 1 expected failure (the message says what to do next);
2 usage error; 3 internal error (a crash log is written). See docs/commands.md "Exit codes".
"""

from __future__ import annotations

import sys

import click

from cogit import __version__
from cogit.errors import CogitError, ExitCode
from cogit.paths import Home


_homes: list[Home] = []


class Ctx:
    def __init__(self, home: Home):
        self.home = home


# Which module defines each command, and the first paragraph of its help (for `--help`'s
# list). Commands are imported only when they run: importing them all (and with them
# dulwich, jsonschema, ruamel.yaml) cost more than the command itself. A test
# (tests/test_cli_lazy.py) checks this table against the commands' own definitions.
COMMANDS = {
    "accept": ("reflect", "Accept pending proposals: they become memory (one commit, human.accept)."),
    "add": ("state", "Add a learning, heuristic, avoidance or rule (one commit)."),
    "clone": ("sync", "Set up memory on a new machine from a remote (any git URL)."),
    "commit": ("state", "Validate and commit hand edits made in the memory repository's files."),
    "confirm": ("settings", "Make a synced setting that acts (reflect.command, sync.auto, ...) take effect on this machine."),
    "conflicts": ("sync", "Fields both machines changed: which value a merge kept, and the other one."),
    "demo": ("demo", "Replay a recorded agent session through the real hooks into a throwaway memory."),
    "diff": ("history", "What changed: the last commit (no REV), since REV, or from REV to REV."),
    "doctor": ("doctor", "Check memory, the machine, the installed hooks, remotes and the model endpoint;\n    --fix makes the safe repairs."),
    "edit": ("state", "Open a section in $VISUAL/$EDITOR; the result is validated and committed as a hand edit."),
    "finalize": ("state", "Commit what agent sessions queued and fold finished sessions' records into memory."),
    "focus": ("state", "The current focus and its priorities."),
    "forget": ("state", "Remove an item by id (it stays in history; `cogit revert` brings it back)."),
    "import": ("imports", "Import nox-cognitive's state.json, Metacog's learnings JSONL, or Claude Code memory files."),
    "init": ("state", "Create the memory home ($COGIT_HOME, default ~/.cogit) with default state."),
    "install": ("install", "Add cogit's hooks to an agent's settings (kept beside the hooks already there)."),
    "log": ("history", "History of memory, newest first, with provenance: every scope (global and each\n    project), with a scope column; --scope (or --project) narrows it to one."),
    "mcp": ("mcp", "Run cogit's MCP server on stdio (tools: search, show, why, rules, remember, forget)."),
    "project": ("project", "Project scopes: each project has its own branch beside the global memory."),
    "pull": ("sync", "Fetch every branch from the remote and merge it into memory."),
    "push": ("sync", "Send every branch to the remote (if it moved on: fetch, merge, push again)."),
    "reflect": ("reflect", "Step back and learn from the pattern of many sessions (one commit)."),
    "reject": ("reflect", "Reject pending proposals: they go, and a tombstone keeps them from coming back (human.reject)."),
    "remote": ("sync", "The git remotes memory syncs with (path, file://, ssh, git://, http(s)://)."),
    "report": ("report", "Write one HTML file (no server, no network) showing how memory changed itself: at the top\n    what memory did since the last report (lessons, rules and their measured effect, what was\n    reverted or forgotten, what came from other machines, what reflection proposed), a timeline\n    of commits coloured by source with each commit's semantic diff, the items per scope with\n    their provenance, rules with their confidence over time, tool statistics, and what was\n    injected into each session. Every scope, or global plus `--project NAME`."),
    "revert": ("history", "Undo exactly one commit's item changes, as a new commit (later changes stay)."),
    "review": ("reflect", "List proposals waiting for your yes (`cogit accept ID` / `cogit reject ID`)."),
    "rules": ("rules", "Learned rules: confidence, detections, suppressions, whether applied, measured effect, from history (every scope, or --project)."),
    "scan": ("scan", "Find secrets in every commit of memory's history (files and messages)."),
    "search": ("history", "Items in every scope whose text holds all the words of TEXT (case-insensitive;\n    a word matches the start of a word). --history adds removed items."),
    "show": ("state", "Show memory (all sections, or one), now or --at a revision."),
    "stats": ("stats", "Tool usage statistics (calls, success rate, mean duration, common sequences)."),
    "status": ("state", "Where memory is, its head, item counts, hand edits waiting, the digest size."),
    "sync": ("sync", "Pull, then push: afterwards this machine and the remote hold the same memory."),
    "uninstall": ("install", "Remove exactly cogit's own hook entries (and its MCP server entry) from an agent's settings."),
    "why": ("history", "Every commit that created or changed an item, with its provenance."),
}


class LazyGroup(click.Group):
    """A command group that imports a command's module only when that command runs."""

    def list_commands(self, ctx):
        return sorted(set(COMMANDS) | set(self.commands))

    def get_command(self, ctx, name):
        if name not in self.commands and name in COMMANDS:
            __import__(f"cogit.cli.{COMMANDS[name][0]}")  # the module registers its commands on `cli`
        return self.commands.get(name)

    def format_commands(self, ctx, formatter):
        # The list of `--help` from the table, so that `cogit --help` imports no command.
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.commands.get(name) or click.Command(name, help=COMMANDS[name][1])
            if not cmd.hidden:
                rows.append((name, cmd))
        if rows:
            limit = formatter.width - 6 - max(len(name) for name, _ in rows)
            with formatter.section("Commands"):
                formatter.write_dl([(name, cmd.get_short_help_str(limit)) for name, cmd in rows])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--home", "home_dir", envvar="COGIT_HOME", type=click.Path(file_okay=False),
              help="Memory home (default: $COGIT_HOME, else ~/.cogit).")
@click.version_option(__version__, "-V", "--version", prog_name="cogit")
@click.pass_context
def cli(ctx: click.Context, home_dir: str | None) -> None:
    """cogit: git-backed, versioned memory for AI coding agents.

    Every change of memory is a commit with provenance; `cogit log`, `cogit diff`,
    `cogit why` and `cogit revert` audit and undo them.
    """
    ctx.obj = Ctx(Home.resolve(home_dir))
    _homes.append(ctx.obj.home)  # for the error boundary (damage_fault), which has no context
    if ctx.invoked_subcommand not in (None, "init", "finalize", "install", "uninstall", "demo", "clone", "doctor"):
        _auto_finalize(ctx.obj.home)


def _auto_finalize(home: Home) -> None:
    """Fold what ended (or killed) agent sessions left, so every command sees it."""
    from cogit.quickcli import finalize_waiting

    finalize_waiting(home, click.echo)


def emit_json(value) -> None:
    from cogit.quickcli import emit_json

    emit_json(value, click.echo)


def _register() -> None:
    """Import every command module (the CLI itself imports them one by one, lazily)."""
    for module in sorted({m for m, _ in COMMANDS.values()}):
        __import__(f"cogit.cli.{module}")


def main(args: list[str] | None = None) -> int:
    try:
        cli.main(args=args, prog_name="cogit", standalone_mode=False)
        return ExitCode.OK
    except CogitError as e:
        click.echo(f"Error: {e.message}", err=True)
        if e.hint:
            click.echo(e.hint, err=True)
        return e.exit_code
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.ClickException as e:
        e.show()
        return ExitCode.USAGE if isinstance(e, click.UsageError) else ExitCode.FAILURE
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        return 130
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return ExitCode.OK
    except Exception as e:
        from cogit.boundary import crashed

        return crashed(e, args, _homes[-1] if _homes else None)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
