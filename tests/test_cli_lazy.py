"""The lazy command group: a command imports only what it needs, and nothing is lost.

`cogit/cli/__init__.py` names each command's module and help in COMMANDS, so that a
cold `cogit status` does not import every command (and dulwich's index, jsonschema and
ruamel.yaml with them). These tests keep the table true and the imports small.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cogit import cli


def test_the_table_names_every_command_its_module_and_help():
    cli._register()
    real = {name: (cmd.callback.__module__.rsplit(".", 1)[1], (cmd.help or "").split("\n\n")[0])
            for name, cmd in cli.cli.commands.items()}
    assert real == cli.COMMANDS


def test_help_lists_every_command_as_the_full_group_does(cogit, capsys):
    lazy = cogit.run("--help").out
    cli._register()
    assert cli.main(["--help"]) == 0
    assert capsys.readouterr().out == lazy
    for name in cli.COMMANDS:
        assert f"\n  {name} " in lazy


PROBE = """
import json, sys
from cogit.cli import main
code = main(sys.argv[1:])
print(json.dumps([code, sorted(m for m in sys.modules if m.startswith(("cogit.cli.", "jsonschema", "ruamel")))]))
"""


@pytest.mark.parametrize("args, allowed", [
    (["--help"], set()),
    (["status"], {"cogit.cli.state", "cogit.cli.project", "cogit.cli.options"}),
    (["show"], {"cogit.cli.state", "cogit.cli.project", "cogit.cli.options"}),
    (["log", "-n", "20"], {"cogit.cli.history", "cogit.cli.options"}),
    (["why", "l-000000"], {"cogit.cli.history", "cogit.cli.options"}),
])
def test_read_commands_import_only_their_own_module(initialized, args, allowed):
    out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                         cwd=initialized.home.parent, check=True).stdout
    code, modules = json.loads(out.splitlines()[-1])
    assert code == 0
    assert set(modules) == allowed  # no other command, no jsonschema, no ruamel.yaml


def test_an_unknown_command_is_still_a_usage_error(cogit):
    result = cogit.run("stauts", check=False)
    assert result.returncode == 2
    assert "No such command" in result.err
