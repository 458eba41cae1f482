"""The one error boundary: expected failures exit 1 with a next step, bugs exit 3 with a crash log."""

from __future__ import annotations

from cogit import cli
from cogit.errors import CogitError, ExitCode


def test_a_bug_exits_3_and_writes_a_crash_log(cogit_home, monkeypatch, capsys):
    from cogit.store import memory

    def broken(home):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(memory, "init", broken)
    assert cli.main(["init"]) == ExitCode.INTERNAL == 3
    err = capsys.readouterr().err
    assert "cogit crashed (a bug)" in err and "crash.log" in err
    log = (cogit_home / "runtime" / "logs" / "crash.log").read_text()
    assert "RuntimeError: simulated bug" in log and "dulwich" in log and "args: ['init']" in log


def test_expected_failure_exits_1_with_hint(cogit_home, capsys):
    assert cli.main(["show"]) == ExitCode.FAILURE == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: no cogit memory at ") and "Run `cogit init`" in err


def test_usage_errors_exit_2(cogit_home, capsys):
    assert cli.main(["no-such-command"]) == ExitCode.USAGE == 2
    assert cli.main(["log", "-n", "0"]) == 2
    assert "No such command" in capsys.readouterr().err


def test_every_error_has_a_next_step():
    import cogit.errors as errors

    for name in dir(errors):
        obj = getattr(errors, name)
        if isinstance(obj, type) and issubclass(obj, CogitError):
            assert obj.exit_code in (1, 2)


def test_every_command_has_help():
    import click

    cli._register()
    group = cli.cli
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command.help and len(command.help.strip()) > 10, name
