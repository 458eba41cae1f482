"""The detached work a hook starts and never waits for: `cogit finalize` (queued changes
into commits, a session's fold), the background pull, and the builder of a repository's
import index (cogit/senses/import_index.py). Standard library only.
"""

import os
import sys

from cogit.hooks.core import runtime_dir


def spawn_finalize(home_root: str, session_id: str | None, sync: bool = False, cwd: str | None = None) -> None:
    """Start `cogit finalize` detached: it commits queued changes; the hook does not wait.

    With `sync` (auto-sync, after a session ends) it then pushes to the remote.
    """
    args = ["finalize", "--quiet"]
    if session_id:
        args += ["--session", session_id]
    spawn(home_root, args + (["--sync"] if sync else []), "finalize.log", cwd=cwd)


def spawn_index_build(home_root: str, root: str, cwd: str | None = None) -> bool:
    """Start `cogit hook build-index ROOT` detached, unless a build of ROOT started within
    spatial_index.REFRESH_S (one stat); True when one was started."""
    from cogit import spatial_index  # not cogit.senses: SessionStart needs none of the senses

    cache_dir = os.path.join(runtime_dir(home_root), "cache")
    if not spatial_index.wants_build(cache_dir, root):
        return False
    spatial_index.mark_started(cache_dir, root)
    spawn(home_root, ["hook", "build-index", root], "index.log", cwd=cwd)
    return True


def spawn(home_root: str, args: list[str], log_name: str, cwd: str | None = None) -> None:
    """Start `cogit ARGS` detached in its own session, stderr to runtime/logs/LOG_NAME.

    It runs from COGIT_HOME with the installed cogit only (see cogit/launch.py): the
    hook's working folder is the agent's project, which may hold a `cogit/` of its own.
    Its PATH loses every entry inside the agent's folder (this one and the event's `cwd`,
    and their repositories) and every relative one: direnv puts a project's `bin/` first,
    and the git that auto-sync runs must not be the project's (see cogit/programs.py).
    """
    from cogit.launch import background_argv
    from cogit.programs import agent_env

    argv = background_argv(home_root, args)
    env = agent_env(dict(os.environ, COGIT_HOME=home_root, COGIT_IN_HOOK="1"), cwd)
    logs = os.path.join(runtime_dir(home_root), "logs")
    os.makedirs(logs, mode=0o700, exist_ok=True)
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, os.path.join(logs, log_name), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600),
    ]
    os.posix_spawn(sys.executable, argv, env, file_actions=actions, setsid=True)
