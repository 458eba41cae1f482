"""The console script's entry: route hooks before anything heavy is imported.

Hooks run on every tool call of the agent, so `cogit hook ...` must not pay for
click, dulwich, ruamel.yaml or jsonschema. The commands run most, in their plainest
shapes, skip click too (cogit/quickcli.py); everything else goes to the click CLI.
"""

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["hook"]:
        from cogit.hooks import run

        # a process of its own (the console script, `python -m cogit`) leaves as the
        # installed hook commands do (cogit/hooks/__init__.py run); a caller in-process stays
        return run(args[1:], leave=argv is None)
    from cogit.quickcli import run as quick

    code = quick(args)  # the commands run most, in their plainest shapes, without click
    if code is not None:
        return code
    from cogit.cli import main as cli_main

    return cli_main(args)
