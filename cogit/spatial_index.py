"""Where a repository's import index lives, and when its last build started (standard library
only, no cogit import): SessionStart and the edit hook ask this with one stat before they
start the detached builder (cogit/senses/import_index.py), without importing the senses.
"""

import os
import time

# An index older than this is refreshed by a new build (new files, renamed modules); a
# build started less than this ago is not started again (two hooks, one build).
REFRESH_S = 600


def _key(root: str) -> str:
    """A short stable name for a root (FNV-1a: no zlib to import on the hook path)."""
    h = 0xCBF29CE484222325
    for b in root.encode("utf-8", "surrogateescape"):
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def marker_path(cache_dir: str, root: str) -> str:
    """When a build of `root` was last started: this file's mtime (its `.lock` beside it is
    held while a builder works)."""
    return os.path.join(cache_dir, "spatial-%s.build" % _key(root))


def rev_path(cache_dir: str, root: str) -> str:
    """Python's reverse index of `root`: one line per imported file, its importers after it."""
    return os.path.join(cache_dir, "spatial-%s-py.rev" % _key(root))


def wants_build(cache_dir: str, root: str, now: float | None = None) -> bool:
    """No build of `root` started within REFRESH_S."""
    try:
        started = os.stat(marker_path(cache_dir, root)).st_mtime
    except OSError:
        return True
    return (time.time() if now is None else now) - started >= REFRESH_S


def mark_started(cache_dir: str, root: str) -> None:
    os.makedirs(cache_dir, mode=0o700, exist_ok=True)
    path = marker_path(cache_dir, root)
    with open(path, "a", encoding="utf-8"):
        pass
    os.utime(path, None)
