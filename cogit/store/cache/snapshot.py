"""State snapshots that let the cold `cogit show` and `cogit status` skip the store.

Reading memory through the store imports dulwich (about 30 ms) before anything is read;
a cold `show` cost twice `cogit --help`. So every write (store/write/transact.py) and every full
read of `show` or `status` keeps, per branch, `runtime/cache/snapshot/<branch>.json`:
the head commit it was made from, the state at that commit exactly as `memory.read`
returns it, the blob ids of that commit's files, the project's name (project branches),
the digest budget its config sets and, when known, the commit count.

A cold read serves from a snapshot only when its head is the branch's head now, read
from the ref files (cogit/heads.py, no dulwich). A commit id names its whole content,
so a snapshot whose head matches cannot be stale, whatever moved the branch: a write, a
pull's merge or fast-forward, a revert, `git` by hand in the memory repository, or a
crash between a commit and its snapshot (the snapshot then names the old head). `status`
also reads the working tree: it is served only when every state file is byte for byte
the head's (hashed as git hashes blobs) and no agent session has records waiting.
Anything else (no snapshot, an unreadable one, another format, a mismatch) returns None
and the command takes the full path, which writes the snapshot again.

This module imports only the standard library and cogit's stdlib modules at load time,
and builds paths from `home.top` (a string: no pathlib); the store (dulwich) is imported
inside `save` / `keep`, which the full paths call.
"""

from __future__ import annotations

import os

from cogit import jsonio
from cogit.heads import ref_head
from cogit.paths import Home, safe_name
from cogit.domain.sections import ITEM_SECTIONS, SECTIONS

VERSION = 1
MAIN = "main"  # = store.repo.MAIN (that module imports dulwich)
PROJECT_PREFIX = "project/"  # = store.scopes.PREFIX


def path(home: Home, branch: str) -> str:
    return os.path.join(home.top, "runtime", "cache", "snapshot", safe_name(branch.replace("/", "--")) + ".json")


# Nine state files of at most 256 KiB each, as JSON: far below this. A larger file is not
# one this code wrote (or is damaged): the full path answers and writes it again.
MAX_BYTES = 16 * 1024 * 1024


def _read(home: Home, branch: str) -> dict | None:
    try:
        with open(path(home, branch), encoding="utf-8") as f:
            text = f.read(MAX_BYTES + 1)
        if len(text) > MAX_BYTES:
            return None
        snap = jsonio.loads(text)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if (not isinstance(snap, dict) or snap.get("version") != VERSION or snap.get("branch") != branch
            or not isinstance(snap.get("head"), str) or not isinstance(snap.get("state"), dict)
            or not isinstance(snap.get("blobs"), dict)):
        return None
    return snap


def fresh(home: Home, branch: str) -> dict | None:
    """The branch's snapshot if it was made from the branch's head now, else None."""
    snap = _read(home, branch)
    if snap is None or not snap["head"] or snap["head"] != ref_head(home.top, branch):
        return None
    return snap


class View:
    """A scope as the renderers need it (store.scopes.Scope without the store)."""

    __slots__ = ("branch", "name")

    def __init__(self, branch: str, name: str):
        self.branch, self.name = branch, name

    @property
    def is_global(self) -> bool:
        return self.branch == MAIN


GLOBAL = View(MAIN, "global")
_UNSURE = object()


def _folder(home: Home, cwd: str, main: dict):
    """What store.scoped.folder_project says for `cwd`: None (no project memory there),
    (View, snapshot) of the project, or _UNSURE when only the store can tell."""
    from cogit.scope import project_of

    # = store.scopes._overrides: main's config is the settings of every scope.
    overrides = dict(((main["state"].get("config") or {}).get("projects") or {}).get("overrides") or {})
    info = project_of(cwd, overrides)
    if info is None or info["source"] == "folder":
        return None
    branch = info["branch"]
    if ref_head(home.top, branch) is None:
        loose = os.path.join(home.top, "memory", ".git", "refs", "heads", *branch.split("/"))
        return _UNSURE if os.path.lexists(loose) else None  # a ref file we could not read: ask the store
    snap = fresh(home, branch)
    if snap is None or not isinstance(snap.get("name"), str):
        return _UNSURE
    return View(branch, snap["name"]), snap


def cold_view(home: Home, cwd: str):
    """(main's snapshot, the folder's project view or None) for a cold read of `cwd`, or None
    when either cannot be trusted (the read then takes the full path)."""
    main = fresh(home, MAIN)
    if main is None:
        return None
    here = _folder(home, cwd, main)
    return None if here is _UNSURE else (main, here)


def show_views(home: Home, cwd: str) -> list | None:
    """`cogit show` without --at / --project: [(scope, sha, state)], the project first when
    `cwd` is in a project with memory, as cli/state.py's full path builds them; None when
    a snapshot cannot answer."""
    main = fresh(home, MAIN)
    if main is None:
        return None
    here = _folder(home, cwd, main)
    if here is _UNSURE:
        return None
    views = [(GLOBAL, main["head"], main["state"])]
    if here is not None:
        scope, snap = here
        views.insert(0, (scope, snap["head"], snap["state"]))
    return views


def _checked_out(home: Home) -> str | None:
    """The branch HEAD names (store.git.repo.checked_out_branch), None when detached or unreadable."""
    try:
        with open(os.path.join(home.top, "memory", ".git", "HEAD"), encoding="ascii") as f:
            text = f.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text[len("ref: refs/heads/"):] if text.startswith("ref: refs/heads/") else None


def _blob_id(data: bytes) -> str:
    try:
        from _sha1 import sha1  # the builtin module: hashlib's import loads OpenSSL
    except ImportError:  # pragma: no cover
        from hashlib import sha1
    return sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _worktree_clean(home: Home, blobs: dict) -> bool:
    """Every state file in the working tree is the head's (store.write.dirty_files would
    find nothing). Anything odd (a symlink, a folder, an unreadable file) is not clean:
    the full path then says what it is."""
    import stat

    root = os.path.join(home.top, "memory")
    for section in SECTIONS:
        name = f"{section}.yaml"
        try:
            fd = os.open(os.path.join(root, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            if name in blobs:
                return False  # deleted by hand: a hand edit
            continue
        except OSError:
            return False
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return False
            chunks = []
            while True:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
        except OSError:
            return False
        finally:
            os.close(fd)
        if blobs.get(name) != _blob_id(b"".join(chunks)):
            return False
    return True


def status_info(home: Home, cwd: str, attention) -> dict | None:
    """`cogit status`'s dict (cogit/status.py `status` plus its `project`), or None when a
    snapshot cannot answer for all of it. `attention(home, hand_edits)` is cogit/doctor.py's
    (passed in: the store sits below doctor)."""
    try:
        if any(os.scandir(os.path.join(home.top, "runtime", "sessions"))):
            return None  # records waiting are counted by cogit.status.unsaved_sessions (it imports learn.drain)
    except FileNotFoundError:
        pass
    except OSError:
        return None
    branch = _checked_out(home)
    if branch is None:
        return None
    snap = fresh(home, branch)
    if snap is None or not isinstance(snap.get("commits"), int) or not isinstance(snap.get("budget"), int):
        return None
    if not _worktree_clean(home, snap["blobs"]):
        return None  # hand edits waiting: the full path lists them (and checks them for `attention`)
    main = snap if branch == MAIN else fresh(home, MAIN)
    if main is None:
        return None
    here = _folder(home, cwd, main)
    if here is _UNSURE:
        return None
    state = snap["state"]
    info = None
    digest = os.path.join(home.top, "runtime", "digest", safe_name(branch.replace("/", "--")) + ".json")  # = store.cache.digest.cache_path
    if os.path.exists(digest):
        try:
            with open(digest, encoding="utf-8") as f:
                d = jsonio.loads(f.read())
            info = {"chars": d["chars"], "tokens": d["tokens"], "cut": d["cut"], "budget": snap["budget"]}
        except Exception:  # noqa: BLE001 - the full path reads it again and says what is wrong
            return None
    out = {
        "home": home.top,  # = str(home.root): Home.resolve makes it absolute and normal
        "branch": branch,
        "head": snap["head"],
        "commits": snap["commits"],
        "counts": {s: len(state[s].get("items") or []) for s in ITEM_SECTIONS},
        "digest": info,
        "hand_edits": [],
        "sessions": 0,
        "attention": attention(home, []),
        "review": len((state.get("reflections") or {}).get("proposals") or []),
    }
    if here is not None:
        scope, p = here
        out["project"] = {"name": scope.name, "branch": scope.branch, "head": p["head"],
                          "counts": {s: len(p["state"][s].get("items") or []) for s in ITEM_SECTIONS}}
    else:
        out["project"] = None
    return out


# The full paths: they hold the store open already.


def project_name(repo, branch: str, depth: int = 50) -> str:
    """A project's name as its commits record it (Cogit-Project), else its slug.

    The rule lives here, where the write path reaches it; store.scopes re-exports it."""
    from cogit.store.git import repo as git
    from cogit.store.git.provenance import parse

    for info in git.walk(repo, git.head(repo, branch), max_entries=depth):
        name = parse(info.message)[2].get("Cogit-Project")
        if name and name != "global":
            return name
    return branch[len(PROJECT_PREFIX):]


def save(home: Home, repo, branch: str, head: str, *, commits: int | None = None, parents: list[str] | None = None) -> None:
    """Write the snapshot of `branch` at `head` (the caller read or just committed it).

    `commits`: the count when the caller knows it; else the previous snapshot's plus one
    when `head`'s only parent is the commit that snapshot was made from, else the count
    cogit/status.py kept for `head`, else none (`status` then counts on its full path).
    Never fails: a snapshot that cannot be written only costs the next read its speed."""
    from cogit.digest import assemble as digest
    from cogit.store.state import loader, yamlio
    from cogit.store.git import repo as git

    try:
        blobs = git.blob_ids(repo, head)
        state = yamlio.plain(dict(loader.load_plain(repo, head, blobs)))  # = memory.read
        if commits is None:
            prev = _read(home, branch)
            if (prev is not None and parents is not None and len(parents) == 1 and prev["head"] == parents[0]
                    and isinstance(prev.get("commits"), int)):
                commits = prev["commits"] + 1
            else:
                commits = _kept_count(home, head)
        snap = {"version": VERSION, "branch": branch, "head": head, "blobs": blobs,
                "name": project_name(repo, branch) if branch.startswith(PROJECT_PREFIX) else None,
                "commits": commits, "budget": digest.budget(state.get("config")), "state": state}
        text = jsonio.dumps(snap)
        target = path(home, branch)
        folder = os.path.dirname(target)
        for f in (os.path.dirname(folder), folder):  # makedirs' mode reaches the leaf only
            os.makedirs(f, mode=0o700, exist_ok=True)
        tmp = f"{target}.{os.getpid()}.tmp"
        with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
    except Exception:  # noqa: BLE001 - an unwritable runtime folder, a state JSON cannot hold
        try:
            os.unlink(path(home, branch))  # never leave one that could be mistaken for current
        except OSError:
            pass


def _kept_count(home: Home, head: str) -> int | None:
    try:
        with open(os.path.join(home.top, "runtime", "cache", "commit-counts.json"), encoding="utf-8") as f:
            n = jsonio.loads(f.read()).get(head)
    except (OSError, ValueError, AttributeError):
        return None
    return n if isinstance(n, int) else None


def keep(home: Home, branches) -> None:
    """After a full read: snapshot each branch at its head, so the next cold read is quick."""
    from cogit.store.git import repo as git

    if not (home.memory / ".git").exists():
        return
    repo = git.open_repo(home.memory)
    try:
        for branch in branches:
            head = git.head(repo, branch)
            if head and (fresh(home, branch) is None):
                save(home, repo, branch, head)
    finally:
        repo.close()
