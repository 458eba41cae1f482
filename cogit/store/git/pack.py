"""Packing memory's objects and pruning what no ref reaches: the `git` binary where it is on
PATH, dulwich otherwise. store/maintain.py decides when (and holds the locks); this says how.

Every write leaves its objects loose (one file each, a 4 KB disk block at least, never
delta'd). Packing folds them into pack files:

- `roll_up`: the loose objects and the smallest packs into one pack, keeping the packs in a
  geometric progression (`git repack --geometric=2`: each pack at least twice the objects of
  the next smaller), so a session's few objects are packed at once without rewriting the big
  pack each time. Deltas with git's aggressive window and depth (250, 50): memory is a few
  small YAML files changed a line at a time, so nearly every object is a small delta of the
  previous version, and a wide window costs little on packs this size.
- `full`: everything into one pack with the same window (existing deltas reused, so its cost
  is about that of writing the pack). Objects no ref or reflog reaches go into a cruft pack
  that keeps each object's time (`--cruft`, git 2.37+); those older than `grace` are dropped,
  and so are loose ones (`git prune --expire`). An object a writer wrote a moment ago and has
  not pointed a branch at yet is young, so it is kept: the grace period is the margin.
  An older git keeps every unreachable object (`--keep-unreachable`), as before.

A new pack is complete on disk before any object it holds is removed (git's own order), so
a kill at any point leaves every object in a pack, loose, or both.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

WINDOW, DEPTH = 250, 50  # git gc --aggressive's
TIMEOUT = 600.0  # seconds one git command may take before it is given up (retried next time)


def git_env() -> dict[str, str]:
    """An environment for running git on memory: nothing from the caller's GIT_* variables
    (git exports GIT_DIR to its hooks, and cogit runs inside them), no system or global
    config (a user's `pack.*` or hooks settings have no say over memory)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    from cogit.programs import clean_path_env

    return clean_path_env(env)


def _git(git_bin: str, git_dir: Path, *args: str) -> subprocess.CompletedProcess | None:
    argv = [git_bin, "--git-dir", str(git_dir), "-c", "gc.auto=0", "-c", "core.hooksPath=" + os.devnull,
            "-c", f"pack.window={WINDOW}", "-c", f"pack.depth={DEPTH}", *args]
    try:
        return subprocess.run(argv, env=git_env(), cwd=str(git_dir), stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None


def roll_up(git_bin: str, git_dir: Path) -> bool:
    """Loose objects and the small packs into one pack (see the module's docstring)."""
    proc = _git(git_bin, git_dir, "repack", "-d", "-q", "--no-write-bitmap-index", "--geometric=2", "--unpacked")
    if proc is not None and proc.returncode == 129:  # git before 2.32: no --geometric; the loose ones alone
        proc = _git(git_bin, git_dir, "repack", "-d", "-q", "--no-write-bitmap-index")
    return proc is not None and proc.returncode == 0


def full(git_bin: str, git_dir: Path, grace: str) -> bool:
    """Everything into one pack; unreachable objects older than `grace` (a git approxidate,
    `1.day.ago`) pruned, younger ones kept (see the module's docstring)."""
    proc = _git(git_bin, git_dir, "repack", "-d", "-q", "--no-write-bitmap-index", "--cruft",
                f"--cruft-expiration={grace}")
    if proc is not None and proc.returncode == 129:  # git before 2.37: no cruft packs; prune nothing
        proc = _git(git_bin, git_dir, "repack", "-a", "-d", "-q", "--no-write-bitmap-index", "--keep-unreachable")
        return proc is not None and proc.returncode == 0
    if proc is None or proc.returncode != 0:
        return False
    proc = _git(git_bin, git_dir, "prune", f"--expire={grace}")  # loose unreachable ones past the grace period
    return proc is not None and proc.returncode == 0


def dulwich_pack(memory: Path, whole: bool) -> bool:
    """Without git: dulwich moves the loose objects into a pack (`whole`: folds every pack
    into one). It keeps every object, reachable or not, and prunes nothing."""
    from cogit.store.git import objects as git_objects
    from cogit.store.git import repo as git

    try:
        repo = git.open_repo(memory)
    except Exception:  # noqa: BLE001 - housekeeping: the next session tries again
        return False
    try:
        git_objects.pack_objects(repo, whole)
        return True
    except Exception:  # noqa: BLE001
        return False
    finally:
        repo.close()
