"""How cogit starts Python: only the installed cogit runs, whatever the folder and environment.

Agents run hook commands in the agent's working folder, with the agent's environment.
A plain `python -c …` or `python -m cogit` there puts that folder first on the import
path (and `PYTHONPATH=.`, common with direnv, does the same): a `cogit/` package in
any repository the agent works in would be imported instead of the installed one.
So every command cogit writes or starts runs with

- `-E`: ignore PYTHON* variables (PYTHONPATH, PYTHONSTARTUP, PYTHONHOME…);
- `-P`: do not prepend the working folder (or a script's) to `sys.path`;

and background work first moves to `COGIT_HOME`. `-I` would also drop the user's own
site-packages, where `pip install --user cogit` puts cogit; that folder is the
user's, not the project's, so it stays.

Hook commands also run with `-S`: no `site` module, so no site-packages scan and no
`.pth` files (about a fifth of Python's start-up, paid on every tool call). The one
folder a hook needs, the one holding this `cogit` package, is passed as the first
argument and appended to `sys.path`, after the standard library, so nothing there can
shadow it either. The hook path imports only the standard library and cogit itself.

Standard library only: the hooks import this to start `cogit finalize`.
"""

# No `from __future__ import annotations`: loading `__future__` is a tenth of a millisecond
# of every hook that starts detached work, and these annotations need no deferring.
import sys

SAFE_FLAGS = ("-E", "-P")
# `python -c` rather than `-m`: runpy, and the console script's `re`, cost
# milliseconds on every tool call. `leave=True`: the process ends as soon as the reply is
# out, without the interpreter's teardown (cogit/hooks/__init__.py run). Commands written
# before that (`sys.exit(run(sys.argv[2:]))`) still work, and still say `from cogit.hooks
# import run`, which is how cogit/install/ knows its own commands.
HOOK_CODE = "import sys; sys.path.append(sys.argv[1]); from cogit.hooks import run; run(sys.argv[2:], leave=True)"
# Forms this code wrote before, as safe as HOOK_CODE but slower: `cogit doctor` says so
# (a warning) rather than calling them unsafe.
EARLIER_HOOK_CODES = ("import sys; sys.path.append(sys.argv[1]); from cogit.hooks import run; sys.exit(run(sys.argv[2:]))",)
HOOK_FLAGS = (*SAFE_FLAGS, "-S")
# Background work: leave the agent's folder before cogit is imported at all.
BACKGROUND_CODE = "import os, sys; os.chdir(sys.argv[1]); from cogit.entry import main; sys.exit(main(sys.argv[2:]))"


def package_root() -> str:
    """The folder that holds the installed `cogit` package (site-packages, or a checkout
    for an editable install)."""
    import os

    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def hook_argv(agent: str, event: str, python: str | None = None) -> list[str]:
    """argv of the hook entrypoint for `agent`'s `event`."""
    return [python or sys.executable, *HOOK_FLAGS, "-c", HOOK_CODE, package_root(), agent, event]


def background_argv(home_root: str, args: list[str], python: str | None = None) -> list[str]:
    """argv of `cogit ARGS` run from inside the memory home."""
    return [python or sys.executable, *SAFE_FLAGS, "-c", BACKGROUND_CODE, home_root, *args]
