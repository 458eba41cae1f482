"""Keeping the runtime folder no larger than the memory repository (the session-end work,
store/maintain.py). Everything here is derived or transient: a cache removed is rebuilt by
the next read that needs it, and nothing that still waits to be folded is touched
(runtime/sessions/, unstored/, rejected/ and the locks are left alone).

- The parse cache (runtime/cache/parsed/, one JSON file per document version, by blob id:
  every write adds a few) is the elastic part: it may use what the repository's size leaves
  after the rest of runtime/ (at least CACHE_FLOOR, at most CACHE_BYTES), least recently
  read first out (store/state/loader.py touches a file when it reads it), down to 3/4 of
  its room so that eviction does not run after every session.
- Logs (runtime/logs/*.log) past LOG_BYTES are rotated: the log becomes `<name>.1`
  (replacing the one before), so each log takes at most twice LOG_BYTES. A process that
  has the log open goes on appending to the `.1` file: no line is torn.
- The Spatial sense's per-repository files (runtime/cache/spatial-*) untouched for
  SPATIAL_DAYS go: a repository worked on again is indexed again. A build's lock file goes
  only with its build marker, and only while no builder holds it.

Sizes are disk blocks, as `du` counts them: each small file takes a 4 KB block.
"""

from __future__ import annotations

import os
import time

from cogit.paths import Home

CACHE_BYTES = 32 * 1024 * 1024  # the parse cache's ceiling, whatever the repository's size
CACHE_FLOOR = 256 * 1024  # its room however small the repository: the current documents of a few scopes
LOG_BYTES = 64 * 1024  # a log past this is rotated (one generation, `.1`, is kept)
SPATIAL_DAYS = 30  # a repository's import index unused this long is removed


def disk_usage(path: str) -> tuple[int, int]:
    """(bytes of disk blocks, files) under `path`, as `du` counts them."""
    total = files = 0
    for dirpath, _, names in os.walk(path):
        for name in names:
            try:
                st = os.lstat(os.path.join(dirpath, name))
            except OSError:
                continue
            total += getattr(st, "st_blocks", 0) * 512 or st.st_size
            files += 1
    return total, files


def tidy(home: Home) -> list[str]:
    """Rotate logs, drop old import indexes, then fit the parse cache in what is left; what it did."""
    done = rotate_logs(home)
    done += drop_old_spatial(home)
    done += evict_parsed(home, cache_room(home))
    return done


def cache_room(home: Home) -> int:
    """The parse cache's room: the repository's size less the rest of runtime/, within its bounds."""
    runtime = str(home.runtime)
    parsed = os.path.join(runtime, "cache", "parsed")
    repo, _ = disk_usage(str(home.memory))
    everything, _ = disk_usage(runtime)
    cache, _ = disk_usage(parsed)
    return max(CACHE_FLOOR, min(CACHE_BYTES, repo - (everything - cache)))


def evict_parsed(home: Home, limit: int) -> list[str]:
    folder = os.path.join(str(home.runtime), "cache", "parsed")
    entries = []
    total = 0
    try:
        with os.scandir(folder) as it:
            for e in it:
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                size = getattr(st, "st_blocks", 0) * 512 or st.st_size  # the disk it takes, as du counts
                entries.append((st.st_mtime, size, e.path))
                total += size
    except OSError:
        return []
    if total <= limit:
        return []
    entries.sort()  # least recently used first (loader touches what it reads)
    goal, removed, before = limit * 3 // 4, 0, total
    for _, size, path in entries:
        if total <= goal:
            break
        try:
            os.unlink(path)
        except OSError:
            continue
        total -= size
        removed += 1
    return [f"evicted {removed} parsed documents from runtime/cache/parsed ({before} -> {total} bytes, room {limit})"]


def rotate_logs(home: Home) -> list[str]:
    logs = str(home.logs)
    out = []
    try:
        names = [n for n in os.listdir(logs) if n.endswith(".log")]
    except OSError:
        return []
    for name in names:
        path = os.path.join(logs, name)
        try:
            if os.lstat(path).st_size <= LOG_BYTES:
                continue
            os.replace(path, path + ".1")
        except OSError:
            continue
        out.append(f"rotated runtime/logs/{name} to {name}.1 (past {LOG_BYTES} bytes)")
    return out


def drop_old_spatial(home: Home, now: float | None = None) -> list[str]:
    import fcntl

    folder = os.path.join(str(home.runtime), "cache")
    limit = (time.time() if now is None else now) - SPATIAL_DAYS * 86400
    removed = 0
    try:
        names = [n for n in os.listdir(folder) if n.startswith("spatial-")]
    except OSError:
        return []
    present = set(names)
    for name in names:
        path = os.path.join(folder, name)
        try:
            if name.endswith(".lock") or os.lstat(path).st_mtime > limit:
                continue
            if name.endswith(".build") and name + ".lock" in present:
                lock = path + ".lock"
                fd = os.open(lock, os.O_RDWR)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a builder at work: next time
                    os.unlink(lock)  # under the lock: a builder that waited makes a new one
                finally:
                    os.close(fd)
            os.unlink(path)
            removed += 1
        except OSError:
            continue
    return [f"removed {removed} import-index files unused for {SPATIAL_DAYS} days from runtime/cache"] if removed else []
