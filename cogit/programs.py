"""Finding the programs cogit runs (git, and what git and dulwich start: ssh, helpers).

cogit runs with the agent's environment, and the agent's PATH is not the user's own: direnv
puts a project's `bin/` first, some setups add `.` or `node_modules/.bin`. A `git` found
there is code from the agent's folder, which someone else may have written, and auto-sync
would run it in the background at every session's end. So a program is looked up only in
the *trusted* part of PATH:

* absolute entries only (an empty or relative entry means "the current folder" or below);
* none inside the current folder or the repository that holds it (the hook's working
  folder is the agent's; COGIT_HOME, where background work runs, is cogit's own), nor inside the folders named in `$COGIT_AGENT_DIRS`, which the
  hooks set when they start background work (that work runs from COGIT_HOME, away from
  the agent's folder, but with the agent's PATH);
* a program whose real path (symlinks resolved) lies in such a folder is skipped too.

Each program is resolved once per process and kept. Processes cogit starts get the
trusted PATH (`trusted_path`) and keep the folders to avoid in `$COGIT_AGENT_DIRS`.
Standard library only: the hooks use `agent_env` when they start background work.
"""

import os

AGENT_DIRS = "COGIT_AGENT_DIRS"  # os.pathsep-separated folders whose programs never run

_found: dict = {}


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def _inside(path: str, folders) -> bool:
    return any(path == f or path.startswith(f.rstrip(os.sep) + os.sep) for f in folders)


def agent_dirs(cwd: str | None = None) -> list[str]:
    """The folders (real paths) whose programs cogit never runs: the current folder and the
    repository holding it, `cwd` and its repository, and those of $COGIT_AGENT_DIRS."""
    from cogit.scope import find_toplevel

    out: list[str] = []
    for value in os.environ.get(AGENT_DIRS, "").split(os.pathsep):
        if os.path.isabs(value):
            out.append(_real(value))
    here = []
    try:
        here.append(os.getcwd())
    except OSError:  # the folder was removed under us
        pass
    if isinstance(cwd, str) and os.path.isabs(cwd):
        here.append(cwd)
    from cogit.paths import home_dir

    home = _real(home_dir())
    for folder in here:
        real = _real(folder)
        if _inside(real, [home]):
            continue  # background work runs from COGIT_HOME: cogit's own folder, not the agent's
        top = find_toplevel(real)
        for f in (real, _real(top) if top else None):
            if f and f != os.sep and f not in out:
                out.append(f)
    return out


def trusted_path(path: str | None = None, avoid: list[str] | None = None) -> str:
    """PATH (or `path`) without relative entries and without entries inside `avoid`
    (default: agent_dirs())."""
    avoid = agent_dirs() if avoid is None else avoid
    value = os.environ.get("PATH", os.defpath) if path is None else path
    kept = []
    for entry in value.split(os.pathsep):
        if not os.path.isabs(entry):
            continue
        if _inside(_real(entry), avoid) or _inside(os.path.normpath(entry), avoid):
            continue
        if entry not in kept:
            kept.append(entry)
    return os.pathsep.join(kept)


def which(name: str) -> str | None:
    """The absolute path of program `name` from the trusted part of PATH, or None; resolved
    once per process."""
    if name not in _found:
        avoid = agent_dirs()
        found = None
        for entry in trusted_path(avoid=avoid).split(os.pathsep):
            candidate = os.path.join(entry, name)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK) and not _inside(_real(candidate), avoid):
                found = candidate
                break
        _found[name] = found
    return _found[name]


def agent_env(env: dict, cwd: str | None = None) -> dict:
    """`env` for work started on behalf of an agent whose folder is `cwd`: its PATH trusted,
    and the agent's folders kept in $COGIT_AGENT_DIRS for the programs that work looks up."""
    avoid = agent_dirs(cwd)
    out = dict(env)
    out["PATH"] = trusted_path(env.get("PATH", os.defpath), avoid)
    out[AGENT_DIRS] = os.pathsep.join(avoid)
    return out


def clean_path_env(env: dict) -> dict:
    """`env` with its PATH trusted (for git, ssh and helpers cogit starts)."""
    out = dict(env)
    out["PATH"] = trusted_path(env.get("PATH", os.defpath))
    return out
