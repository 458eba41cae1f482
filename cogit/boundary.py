"""The CLI's one boundary for what is not a CogitError: contention, a full disk, a bug.

Both ways into a command end here (the click CLI, cogit/cli/__init__.py, and the commands
answered without click, cogit/quickcli.py): busy and disk faults get a message saying what
to do, and a bug gets exit code 3 and a crash log. Standard library only at the top.
"""

from __future__ import annotations

import os
import sys

from cogit import __version__
from cogit.errors import ExitCode
from cogit.paths import Home


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def crashed(e: BaseException, args, home: Home | None = None) -> int:
    """Report an exception no command handled; the exit code. `home`: the one the command
    ran on (`--home`), else $COGIT_HOME's."""
    from cogit.store.git.repo import busy

    home = home or _home()

    if busy(e):  # contention is the normal case, not a bug
        _say(f"Error: busy: {busy(e)}")
        _say("Another cogit or git process is using memory; try again in a moment.")
        return ExitCode.FAILURE
    disk = disk_fault(e, home)
    if disk is not None:  # the machine's fault, not cogit's: say what to do, no traceback
        _say(f"Error: {disk.message}")
        _say(disk.hint)
        return disk.exit_code
    damaged = damage_fault(home)
    if damaged is not None:  # a damaged repository, not a bug: say what and how to repair it
        _say(f"Error: {damaged.message}")
        _say(damaged.hint)
        return damaged.exit_code
    path = _crash_log(args, home)
    if path is None:
        _say(f"Error: cogit crashed (a bug): {type(e).__name__}: {str(e)[:300]}; no crash log could be "
             "written either. Please report this message.")
    else:
        _say(f"Error: cogit crashed (a bug). Details are in {path}; please report them.")
    return ExitCode.INTERNAL


_DISK_ERRNOS = {"ENOSPC": "no space is left on the disk", "EDQUOT": "the disk quota is used up",
                "EROFS": "the file system is read-only"}


def _home() -> Home | None:
    try:
        return Home.resolve()
    except Exception:  # noqa: BLE001 - the boundary must not fail on a bad $COGIT_HOME
        return None


def disk_fault(e: BaseException, home: Home | None = None):
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
            top = (home or _home() or Home("/nonexistent")).top
            if name in _DISK_ERRNOS or (name in ("EACCES", "EPERM") and str(e.filename or "").startswith(top)):
                why = _DISK_ERRNOS.get(name, "this user may not write there")
                return DiskError(
                    f"cannot write{where}: {why}; nothing was changed, memory is as it was before this command",
                    hint=f"Free space on (or make writable) the disk holding {top}, then run the command again "
                         "(`cogit doctor` checks memory afterwards).")
        e = e.__cause__ or e.__context__
        seen += 1
    return None


def damage_fault(home: Home | None):
    """A DamagedRepository when memory's repository has damage `cogit doctor --fix` repairs,
    else None. Asked only after a command failed unexpectedly, so a sound repository costs nothing."""
    try:
        if home is None or not os.path.exists(os.path.join(home.top, "memory", ".git")):
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


def _crash_log(args, home: Home | None = None) -> str | None:
    import platform
    import time
    import traceback

    try:
        home = home or Home.resolve()
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
