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
    if code is None:
        from cogit.cli import main as cli_main

        code = cli_main(args)
    if argv is None:
        # End the command's own process at once: without the interpreter's teardown (freeing
        # every module of click, dulwich, ruamel.yaml and jsonschema one by one: about a tenth
        # of a cold `cogit add`). Every file a command writes is closed before it returns (the
        # write path's `with` blocks, lite.py's and dulwich's lock files), the kernel drops the
        # locks, and the threads cogit starts are daemons, which an ordinary exit would not
        # wait for either.
        from cogit.hooks import leave_now

        leave_now(code)
    return code
