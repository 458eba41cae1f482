"""Keeping memory's disk use bounded: packing objects, trimming reflogs, evicting the parse cache.

Every commit adds a few loose objects (one file each, compressed but never delta'd);
after years that is hundreds of thousands of files, many times what `git gc` reaches.
This runs in the detached work after a session (`cogit finalize`), never in a hook and
never in a writer's way:

- It holds its own pack lock (two packers never overlap) and the pull lock
  (runtime/fetch.lock), both taken without waiting: when either is busy it does nothing
  this time. The pull lock matters because a refused pull takes back the object files
  it added, compared against a listing made before the fetch; a pack written in
  between would be taken back with them.
- It never holds the memory lock while packing, so writers go on committing. Packing
  is safe against them: a new pack is complete on disk before any loose object is
  removed, only objects found in a pack are removed (git's prune-packed), and every
  object, reachable or not, is kept (`--keep-unreachable`: an object a writer has
  written but not yet pointed a branch at is not garbage). A kill at any point leaves
  each object in a pack or loose or both, and `git fsck` passes.
- Packing uses the `git` binary when it is on PATH (delta compression, as `git gc`),
  with a clean environment and no user or system config; else dulwich (no deltas,
  bigger, still one file per pack instead of one per object).
- Reflogs keep their last REFLOG_KEEP entries; trimming takes the memory lock for the
  few milliseconds of a rename, and only if it is free.
- runtime/cache/parsed keeps at most CACHE_BYTES of disk blocks: the least recently
  used documents go first (store/state/loader.py touches a file when it reads it).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from cogit.errors import Locked
from cogit.locking import LockTimeout, file_lock, queued_lock
from cogit.paths import Home
from cogit.store.write.notes import log_note

LOOSE_LIMIT = 1000  # loose objects that trigger packing them (git's gc.auto: 6700)
PACK_LIMIT = 8  # packs that trigger folding them into one (git's gc.autoPackLimit: 50)
REFLOG_KEEP = 1000  # entries kept per reflog once it has twice as many
CACHE_BYTES = 32 * 1024 * 1024  # runtime/cache/parsed; evicted down to 3/4 of it
PACK_TIMEOUT = 600.0  # seconds a `git repack` may take before it is given up (and retried next time)


def objects_dir(home: Home) -> Path:
    return home.memory / ".git" / "objects"


def loose_count(home: Home) -> int:
    """How many loose objects memory holds (one directory listing per fan-out folder)."""
    objects = objects_dir(home)
    count = 0
    try:
        folders = [e for e in os.scandir(objects) if len(e.name) == 2 and e.is_dir()]
    except OSError:
        return 0
    for folder in folders:
        try:
            count += sum(1 for e in os.scandir(folder.path) if len(e.name) == 38)
        except OSError:
            pass
    return count


def pack_count(home: Home) -> int:
    try:
        return sum(1 for n in os.listdir(objects_dir(home) / "pack") if n.endswith(".idx"))
    except OSError:
        return 0


def maintain(home: Home, force: bool = False) -> list[str]:
    """Pack, trim and evict where a limit is passed (everything when `force`); what it did.

    Never raises for a busy lock or a failed pack: this is housekeeping, and the next
    session's run tries again."""
    if not (home.memory / ".git").is_dir():
        return []
    done: list[str] = []
    try:
        with file_lock(home.runtime / "pack.lock", 0), queued_lock(str(home.runtime / "fetch.lock"), 0):
            done += _pack(home, force)
    except LockTimeout:
        pass  # another packer or a pull is running: next time
    done += _trim_reflogs(home, force)
    done += _evict_cache(home, CACHE_BYTES)
    done += _catch_up_history(home)
    for line in done:
        log_note(home, line)
    return done


def _catch_up_history(home: Home) -> list[str]:
    """Index the session's new commits for `why` / `log --item` and refresh the newest
    commits `log -n N` reads (cogit/store/history/index.py), here in the detached
    session-end work, so the next query after many commits does not pay for them."""
    from cogit.store.history.log import catch_up

    try:
        catch_up(home)
    except Exception as e:  # noqa: BLE001 - a cache; the next query brings it up to date itself
        return [f"history index not brought up to date: {type(e).__name__}: {e}"]
    return []


# --------------------------------------------------------------------------- packing


def _pack(home: Home, force: bool) -> list[str]:
    loose, packs = loose_count(home), pack_count(home)
    if not (force or packs >= PACK_LIMIT or loose >= LOOSE_LIMIT):
        return []
    full = force or packs + 1 >= PACK_LIMIT  # one more pack would reach the limit: fold them all
    from cogit.programs import which

    git_bin = which("git")  # never a git from the agent's folder
    if git_bin:
        ok = _git_repack(git_bin, home, full)
        if ok and not full and loose_count(home) >= LOOSE_LIMIT:
            full = True  # the loose objects left are unreachable: only a full repack packs them
            ok = _git_repack(git_bin, home, full)
        how = "git repack"
    else:
        ok = _dulwich_pack(home, full)
        how = "dulwich"
    if not ok:
        return [f"packing failed ({how}); objects stay as they were and packing is retried after the next session"]
    return [f"packed {loose} loose objects{' and ' + str(packs) + ' packs into one' if full and packs else ''} "
            f"({how}; now {loose_count(home)} loose, {pack_count(home)} packs)"]


def git_env() -> dict[str, str]:
    """An environment for running git on memory: nothing from the caller's GIT_* variables
    (git exports GIT_DIR to its hooks, and cogit runs inside them), no system or global
    config (a user's `pack.*` or hooks settings have no say over memory)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    from cogit.programs import clean_path_env

    return clean_path_env(env)


def _git_repack(git_bin: str, home: Home, full: bool) -> bool:
    args = [git_bin, "--git-dir", str(home.memory / ".git"), "-c", "gc.auto=0", "-c", "core.hooksPath=" + os.devnull,
            "repack", "-d", "-q", "--no-write-bitmap-index"]
    if full:
        args += ["-a", "--keep-unreachable"]
    try:
        proc = subprocess.run(args, env=git_env(), cwd=str(home.memory / ".git"), stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=PACK_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def _dulwich_pack(home: Home, full: bool) -> bool:
    from cogit.store.git import repo as git
    from cogit.store.git import objects as git_objects

    try:
        repo = git.open_repo(home.memory)
    except Exception:
        return False
    try:
        git_objects.pack_objects(repo, full)
        return True
    except Exception:
        return False
    finally:
        repo.close()


# --------------------------------------------------------------------------- reflogs


def _trim_reflogs(home: Home, force: bool) -> list[str]:
    logs = home.memory / ".git" / "logs"
    long = []
    for dirpath, _, names in os.walk(logs):
        for name in names:
            path = Path(dirpath) / name
            try:
                size = path.stat().st_size
            except OSError:
                continue
            if size > REFLOG_KEEP * 2 * 100 or force:  # cheap first cut: a line is over 100 bytes
                long.append(path)
    if not long:
        return []
    from cogit.store.write.transact import memory_lock

    out = []
    try:
        with memory_lock(home, timeout=0):  # a writer appends to the reflog under it
            for path in long:
                try:
                    lines = path.read_bytes().splitlines(keepends=True)
                except OSError:
                    continue
                if len(lines) <= REFLOG_KEEP * (1 if force else 2):
                    continue
                tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
                tmp.write_bytes(b"".join(lines[-REFLOG_KEEP:]))
                os.replace(tmp, path)
                out.append(f"trimmed reflog {path.relative_to(logs)} to its last {REFLOG_KEEP} of {len(lines)} entries")
    except Locked:
        pass
    return out


# --------------------------------------------------------------------------- parse cache


def _evict_cache(home: Home, limit: int) -> list[str]:
    folder = home.runtime / "cache" / "parsed"
    entries = []
    total = 0
    try:
        with os.scandir(folder) as it:
            for e in it:
                try:
                    st = e.stat()
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
    return [f"evicted {removed} parsed documents from runtime/cache/parsed ({before} -> {total} bytes)"]
