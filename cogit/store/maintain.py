"""Keeping memory's disk use bounded: packing objects, pruning, trimming reflogs, and the
runtime folder's caches and logs (store/cache/tidy.py).

Every commit adds a few loose objects (one file each, a 4 KB disk block at least, never
delta'd); left alone they take many times what `git gc --aggressive` reaches. This runs in
the detached work after a session (`cogit finalize`), never in a hook and never in a
writer's way:

- It holds its own pack lock (two packers never overlap) and the pull lock
  (runtime/fetch.lock), both taken without waiting: when either is busy it does nothing
  this time. The pull lock matters because a refused pull takes back the object files
  it added, compared against a listing made before the fetch; a pack written in
  between would be taken back with them.
- Past LOOSE_LIMIT loose objects they are rolled up into the small packs (geometric, see
  store/git/pack.py); past PACK_LIMIT packs, or every FULL_EVERY roll-ups, everything goes
  into one pack, with git's aggressive delta window, and unreachable objects older than
  PRUNE_GRACE are pruned. The prune also takes the memory lock (without waiting): a writer
  holds it from its first object to its ref, so no object of a write under way is ever
  judged unreachable, and the grace period covers anything else (a pull is excluded by its
  lock). It never holds the memory lock while packing, so writers go on committing; a new
  pack is complete before any loose object it holds is removed, and a kill at any point
  leaves each object in a pack or loose or both, and `git fsck` passes.
- Packing uses the `git` binary when it is on PATH, with a clean environment and no user
  or system config; else dulwich (no deltas, bigger, still one file per pack instead of
  one per object, nothing pruned).
- Reflogs keep their last REFLOG_KEEP entries; trimming takes the memory lock for the
  few milliseconds of a rename, and only if it is free.
"""

from __future__ import annotations

import os
from pathlib import Path

from cogit.errors import Locked
from cogit.locking import LockTimeout, file_lock, queued_lock
from cogit.paths import Home
from cogit.store.write.notes import log_note

LOOSE_LIMIT = 32  # loose objects that trigger rolling them into a pack (a few sessions' writes)
PACK_LIMIT = 10  # packs that trigger folding them all into one (geometric roll-ups keep them few)
FULL_EVERY = 64  # roll-ups between two full repacks (they also prune), counted in runtime/pack.json
PRUNE_GRACE = "1.day.ago"  # unreachable objects younger than this are kept (git's approxidate)
REFLOG_KEEP = 1000  # entries kept per reflog once it has twice as many


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
    """Pack, prune, trim and evict where a limit is passed (packing everything when `force`);
    what it did. Never raises for a busy lock or a failed pack: this is housekeeping, and
    the next session's run tries again."""
    if not (home.memory / ".git").is_dir():
        return []
    done: list[str] = []
    try:
        with file_lock(home.runtime / "pack.lock", 0), queued_lock(str(home.runtime / "fetch.lock"), 0):
            done += _pack(home, force)
    except LockTimeout:
        pass  # another packer or a pull is running: next time
    done += _trim_reflogs(home, force)
    done += _catch_up_history(home)
    from cogit.store.cache import tidy

    done += tidy.tidy(home)  # last: it sizes the parse cache by what the rest of runtime/ takes
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
    from cogit.programs import which
    from cogit.store.git import pack

    counter = home.runtime / "pack.json"
    rolls = _read_count(counter)
    whole = force or packs + 1 >= PACK_LIMIT or rolls + 1 >= FULL_EVERY  # one more would reach the limit
    git_bin = which("git")  # never a git from the agent's folder
    git_dir = home.memory / ".git"
    if not git_bin:
        ok, how = pack.dulwich_pack(home.memory, whole), "dulwich"
    elif whole:
        ok, how = _full_under_lock(home, git_bin, git_dir), "git repack, all into one"
    else:
        ok, how = pack.roll_up(git_bin, git_dir), "git repack --geometric"
    if not ok:
        return [f"packing failed ({how}); objects stay as they were and packing is retried after the next session"]
    _write_count(counter, 0 if whole else rolls + 1)
    return [f"packed {loose} loose objects and {packs} packs ({how}; now {loose_count(home)} loose, "
            f"{pack_count(home)} packs)"]


def _full_under_lock(home: Home, git_bin: str, git_dir: Path) -> bool:
    """The full repack and prune, under the memory lock (taken without waiting: a writer at
    work means next time). Writers wait for it: on memory's sizes it takes under a second."""
    from cogit.store.git import pack
    from cogit.store.write.transact import memory_lock

    try:
        with memory_lock(home, timeout=0):
            return pack.full(git_bin, git_dir, PRUNE_GRACE)
    except Locked:
        return pack.roll_up(git_bin, git_dir)  # a writer is busy: pack without pruning, prune next time


def _read_count(path: Path) -> int:
    try:
        n = int(path.read_text("utf-8").strip() or 0)
    except (OSError, ValueError):
        return 0
    return n if 0 <= n < 1_000_000 else 0


def _write_count(path: Path, n: int) -> None:
    try:
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(f"{n}\n", "utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


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
