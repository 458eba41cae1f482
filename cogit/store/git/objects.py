"""The object files of the memory repository: listed, packed, removed, counted and checked.

Split from cogit/store/git/repo.py: housekeeping of the object store (store/maintain.py, a
refused pull taking back its objects) and the health checks of `cogit doctor`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from dulwich.objects import Commit, Tree

if TYPE_CHECKING:
    from dulwich.repo import Repo


def reread_on_miss(repo: Repo) -> Repo:
    """`repo`, whose object store asks once more for an object it did not find.

    The session-end work packs without the memory lock (store/maintain.py), and dulwich looks
    in the packs it knows (listing them anew only then) before the loose objects: an object
    packed, and its loose copy pruned, between those two looks is missed (the effect
    benchmark's folds met it). Asked again, dulwich lists its packs anew and finds it, as
    git's own reader does. lite.py's reader looks twice by itself."""
    store = repo.object_store
    get_raw = store.get_raw

    def get(name):
        try:
            return get_raw(name)
        except KeyError:
            return get_raw(name)

    store.get_raw = get  # an instance attribute: dulwich's own lookups (store[sha]) come here too
    return repo


def read_raw(repo, sha: str) -> bytes:
    """An object's content (a commit's text, for a scan of its message); KeyError when the
    repository has none."""
    from .lite import LiteRepo

    return repo.read(sha)[1] if isinstance(repo, LiteRepo) else repo.object_store.get_raw(sha.encode())[1]


def object_files(root: Path) -> set[str]:
    """The files of a repository's object store (packs and loose objects), relative paths.

    A pull compares this before and after fetching, so that a refused pull can take back
    every object it brought: a crafted tree must not stay behind for `git fsck` to trip on.
    """
    objects = root / ".git" / "objects"
    out = set()
    for dirpath, _, names in os.walk(objects):
        rel = os.path.relpath(dirpath, objects)
        if rel in ("info",):
            continue
        out.update(os.path.join(rel, n) for n in names)
    return out


def pack_objects(repo: Repo, full: bool) -> None:
    """Move loose objects into a pack (`full`: fold every pack and loose object into one).

    The fallback of store/maintain.py when there is no `git` binary: dulwich writes the
    new pack completely before it deletes what the pack now holds, and keeps every
    object, reachable or not."""
    if full:
        repo.object_store.repack()
    else:
        repo.object_store.pack_loose_objects()


def remove_object_files(root: Path, names: set[str]) -> None:
    objects = root / ".git" / "objects"
    for name in names:
        (objects / name).unlink(missing_ok=True)

# --------------------------------------------------------------------------- health (cogit doctor)


def object_stats(root: Path) -> tuple[int, int]:
    """(loose objects, bytes of the whole object store), from the file system alone."""
    objects = root / ".git" / "objects"
    loose = size = 0
    for dirpath, _, names in os.walk(objects):
        rel = os.path.relpath(dirpath, objects)
        for n in names:
            try:
                size += os.lstat(os.path.join(dirpath, n)).st_size
            except OSError:
                continue
            if len(rel) == 2 and len(n) == 38:
                loose += 1
    return loose, size


def check_objects(repo: Repo, limit: int = 10) -> list[str]:
    """What `git fsck` would find, for machines without git: every object must read back
    under its own id, and every commit, tree and blob a branch reaches must be there."""
    problems: list[str] = []
    store = repo.object_store
    for pack in getattr(store, "packs", []):
        try:
            pack.check()
        except Exception as e:  # noqa: BLE001 - any failure is the finding
            problems.append(f"pack {os.path.basename(pack._basename)}: {type(e).__name__}: {e}")
    for sha in list(store):
        if len(problems) >= limit:
            return problems
        try:
            obj = store[sha]
            obj.check()
            if obj.id != sha:
                problems.append(f"object {sha.decode()} holds content of {obj.id.decode()}")
        except Exception as e:  # noqa: BLE001
            problems.append(f"object {sha.decode()}: {type(e).__name__}: {str(e)[:120]}")
    seen: set[bytes] = set()
    for ref, tip in repo.get_refs().items():
        stack = [tip]
        while stack and len(problems) < limit:
            sha = stack.pop()
            if sha in seen:
                continue
            seen.add(sha)
            try:
                if sha not in store:
                    problems.append(f"missing object {sha.decode()} (reached from {ref.decode('utf-8', 'replace')})")
                    continue
                obj = store[sha]
            except Exception:  # noqa: BLE001 - an unreadable object: reported above
                continue
            if isinstance(obj, Commit):
                stack += [obj.tree, *obj.parents]
            elif isinstance(obj, Tree):
                stack += [e.sha for e in obj.items() if e.mode != 0o160000]
    return problems


def pack_loose(repo: Repo) -> int:
    """Move every loose object into one pack (callers hold the memory lock). Returns how many."""
    return repo.object_store.pack_loose_objects()
