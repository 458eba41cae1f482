"""The click CLI and its one error boundary.

Exit codes: 0 ok; 1 expected failure (the message says what to do next);
2 usage error; 3 internal error (a crash log is written). See docs/commands.md "Exit codes".
"""

from __future__ import annotations

import os
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
    "report": ("report", "Write one HTML file (no server, no network) showing how memory changed itself: a timeline\n    of commits coloured by source with each commit's semantic diff, the items per scope with\n    their provenance, rules with their confidence over time, tool statistics, and what was\n    injected into each session. Every scope, or global plus `--project NAME`."),
    "revert": ("history", "Undo exactly one commit's item changes, as a new commit (later changes stay)."),
    "review": ("reflect", "List proposals waiting for your yes (`cogit accept ID` / `cogit reject ID`)."),
    "rules": ("rules", "Learned rules: confidence, detections, suppressions, from history (every scope, or --project)."),
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
    # With strings, not home.sessions (a Path): a cold `show` / `status` need not import pathlib.
    try:
        if not any(os.scandir(os.path.join(home.top, "runtime", "sessions"))):
            return
    except OSError:
        return  # no sessions folder (or not a folder): nothing to fold
    if not os.path.exists(os.path.join(home.top, "memory", ".git")):
        return
    from cogit.learn.drain import finalize, stale_minutes

    try:
        finalize(home, None, stale_minutes(home))
    except CogitError as e:
        click.echo(f"Warning: could not finalize agent sessions: {e.message}", err=True)


def emit_json(value) -> None:
    import json  # here: a command that prints no JSON does not pay for it (cold `show` / `status`)

    click.echo(json.dumps(value, indent=2, ensure_ascii=False, default=str))


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
        from cogit.store.git.repo import busy

        if busy(e):  # contention is the normal case, not a bug
            click.echo(f"Error: busy: {busy(e)}", err=True)
            click.echo("Another cogit or git process is using memory; try again in a moment.", err=True)
            return ExitCode.FAILURE
        disk = disk_fault(e)
        if disk is not None:  # the machine's fault, not cogit's: say what to do, no traceback
            click.echo(f"Error: {disk.message}", err=True)
            click.echo(disk.hint, err=True)
            return disk.exit_code
        damaged = damage_fault()
        if damaged is not None:  # a damaged repository, not a bug: say what and how to repair it
            click.echo(f"Error: {damaged.message}", err=True)
            click.echo(damaged.hint, err=True)
            return damaged.exit_code
        path = _crash_log(args)
        if path is None:
            click.echo(f"Error: cogit crashed (a bug): {type(e).__name__}: {str(e)[:300]}; no crash log could be "
                       "written either. Please report this message.", err=True)
        else:
            click.echo(f"Error: cogit crashed (a bug). Details are in {path}; please report them.", err=True)
        return ExitCode.INTERNAL


_DISK_ERRNOS = {"ENOSPC": "no space is left on the disk", "EDQUOT": "the disk quota is used up",
                "EROFS": "the file system is read-only"}


def disk_fault(e: BaseException):
    """A DiskError when `e` (or what it arose from) is the disk refusing a write, else None.

    Every write to memory is atomic (a temporary file, then a rename; a commit, then the
    ref), so a write that fails this way changed nothing: memory is as it was."""
    import errno

    from cogit.errors import DiskError

    seen = 0
    while e is not None and seen < 10:
        if isinstance(e, OSError) and e.errno is not None:
            name = errno.errorcode.get(e.errno, "")
            where = f" ({e.filename})" if e.filename else ""
            home = Home.resolve().top
            if name in _DISK_ERRNOS or (name in ("EACCES", "EPERM") and str(e.filename or "").startswith(home)):
                why = _DISK_ERRNOS.get(name, "this user may not write there")
                return DiskError(
                    f"cannot write{where}: {why}; nothing was changed, memory is as it was before this command",
                    hint=f"Free space on (or make writable) the disk holding {home}, then run the command again "
                         "(`cogit doctor` checks memory afterwards).")
        e = e.__cause__ or e.__context__
        seen += 1
    return None


def damage_fault():
    """A DamagedRepository when memory's repository has damage `cogit doctor --fix` repairs,
    else None. Asked only after a command failed unexpectedly, so a sound repository costs nothing."""
    try:
        home = _homes[-1] if _homes else Home.resolve()
        if not os.path.exists(os.path.join(home.top, "memory", ".git")):
            return None
        from cogit.errors import DamagedRepository
        from cogit.store.git.damage import diagnose

        damage = diagnose(home.memory)
    except Exception:  # noqa: BLE001 - the diagnosis must not hide the first error
        return None
    if not damage:
        return None
    return DamagedRepository(f"the memory repository is damaged: {damage.describe()}",
                             hint="Run `cogit doctor --fix`: it repairs this (and says what it did); "
                                  "`cogit doctor` alone only reports it.")


def _crash_log(args) -> str | None:
    import platform
    import time
    import traceback

    try:
        home = Home.resolve()
        home.logs.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = home.crash_log
    except Exception:
        import tempfile

        path = __import__("pathlib").Path(tempfile.gettempdir()) / "cogit-crash.log"
    versions = []
    for mod in ("dulwich", "ruamel.yaml", "jsonschema", "click"):
        try:
            from importlib.metadata import version

            versions.append(f"{mod} {version(mod)}")
        except Exception:
            pass
    try:  # the crash logger must not crash too (a full disk, a read-only home)
        with open(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "a", encoding="utf-8") as f:
            f.write(f"--- {time.strftime('%Y-%m-%dT%H:%M:%S')} cogit {__version__} python {platform.python_version()} ")
            f.write(f"{platform.platform()} {', '.join(versions)}\nargs: {args!r}\n")
            f.write(traceback.format_exc())
    except OSError:
        return None
    return str(path)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
