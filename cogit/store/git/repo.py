"""The dulwich adapter: every local git operation of cogit goes through here.

Commits are built on the object layer (blob, tree, commit, then a compare-and-swap
of the branch ref): about 2 ms, no auto-gc stalls, no index race, and any branch
can be written without a checkout. `sync/transport.py` is the adapter's other
half (remotes). Nothing here looks at the current directory or `GIT_*` variables:
they are removed from this process's environment on import, because cogit runs
inside other tools' hooks and git exports GIT_DIR and friends to its hooks.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

# The ssh program the user chose is not about which repository: transport.py needs it.
_KEEP = ("GIT_SSH_COMMAND", "GIT_SSH", "GIT_SSH_VARIANT")
for _key in [k for k in os.environ if k.startswith("GIT_") and k not in _KEEP]:
    del os.environ[_key]

# dulwich (its repository layer alone is about 4x `python -c pass`) is imported where used: a
# write opens the repository through lite.py (standard library), which hands dulwich only
# what it does not do itself (LiteRepo.full).

from cogit.errors import Conflict, InvalidState, NotInitialized, RevisionNotFound, UsageError  # noqa: E402

from . import shape  # noqa: E402
from .lite import LiteRepo, LockHeld, Unsupported  # noqa: E402
from . import lite  # noqa: E402
from .object_sizes import object_header  # noqa: E402
from .graph import commits, is_ancestor, merge_bases, new_commits  # noqa: E402,F401  (the adapter's one namespace)
from .shape import MAX_COMMIT_BYTES, MAX_TREE_BYTES  # noqa: E402,F401  (one bound for both readers)

MAIN = "main"
FILE_MODE = 0o100644


@dataclass
class CommitInfo:
    sha: str
    parents: list[str]
    author: str
    committer: str
    time: int
    tz: int
    message: str


def branch_ref(branch: str) -> bytes:
    return f"refs/heads/{branch}".encode()


def init(path: Path) -> Repo:
    from dulwich.repo import Repo

    path.mkdir(parents=True, exist_ok=True)
    repo = Repo.init(str(path))
    repo.refs.set_symbolic_ref(b"HEAD", branch_ref(MAIN))
    config = repo.get_config()
    # Never garbage-collect inline: a hook must not stall for seconds (dulwich-notes §2a);
    # the detached work after a session packs instead (store/maintain.py).
    config.set((b"gc",), b"auto", b"0")
    config.write_to_path()
    return repo


def is_busy(e: BaseException) -> str | None:
    """A description when `e` is git's own lock file being held (by git itself, since
    cogit clears stale ones under its lock), else None."""
    if isinstance(e, LockHeld):
        return f"{e.filename} is locked"
    from dulwich.file import FileLocked

    return f"{e.filename} is locked" if isinstance(e, FileLocked) else None


def busy(e: BaseException) -> str | None:
    """What was busy, when `e` is contention rather than a bug: a lock waited out (a
    session's runtime lock) or a git lock file held by a git command running in memory."""
    from cogit.locking import LockTimeout

    if isinstance(e, LockTimeout):
        return f"a lock was held too long ({e})"
    return is_busy(e)


def open_repo(path: Path) -> Repo:
    from dulwich.errors import NotGitRepository
    from dulwich.repo import Repo

    from .objects import reread_on_miss

    try:
        return reread_on_miss(Repo(str(path)))
    except (NotGitRepository, FileNotFoundError, NotADirectoryError):
        raise NotInitialized(f"no cogit memory at {path}",
                             hint="Run `cogit init` (or set COGIT_HOME to the memory home you meant).") from None


def open_lite(path: Path) -> LiteRepo:
    """The repository for the write path, without dulwich's repository layer (lite.py): the
    functions here answer from it directly where they can and through `full()` elsewhere."""
    root = str(path)
    if not (os.path.isfile(os.path.join(root, ".git", "HEAD")) and os.path.isdir(os.path.join(root, ".git", "objects"))):
        return open_repo(path)  # says what is wrong exactly as before
    return LiteRepo(root)


LiteRepo.opener = staticmethod(lambda root: open_repo(Path(root)))


def open_existing(home):
    if not (home.memory / ".git").exists():
        raise NotInitialized(
            f"no cogit memory at {home.root}",
            hint="Run `cogit init` first (or set COGIT_HOME to the memory home you meant).",
        )
    return open_repo(home.memory)


def head(repo: Repo, branch: str = MAIN) -> str | None:
    if isinstance(repo, LiteRepo):
        try:
            return repo.ref(f"refs/heads/{branch}")
        except Unsupported:
            repo = repo.full()
    try:
        return repo.refs[branch_ref(branch)].decode()
    except KeyError:
        return None


def git_dir(repo: Repo) -> str:
    """The repository's git folder (for the `git` binary: store/git/plumbing.py)."""
    return repo.controldir()


def branches(repo: Repo) -> list[str]:
    if isinstance(repo, LiteRepo):
        return repo.branches()
    return sorted(k.decode() for k in repo.refs.keys(base=b"refs/heads/"))


def checked_out_branch(repo: Repo) -> str | None:
    if isinstance(repo, LiteRepo):
        target = repo.head_target()
        return target[len("refs/heads/"):] if target and target.startswith("refs/heads/") else None
    target = repo.refs.get_symrefs().get(b"HEAD")
    if target and target.startswith(b"refs/heads/"):
        return target[len(b"refs/heads/") :].decode()
    return None


def read_files(repo: Repo, sha: str | None) -> dict[str, bytes]:
    """The top-level blobs of a commit's tree (state files are flat)."""
    if not sha:
        return {}
    if isinstance(repo, LiteRepo):
        try:
            return {name.decode(): repo.read(blob_id)[1] for name, mode, blob_id in _lite_tree(repo, sha) if stat.S_ISREG(mode)}
        except Unsupported:
            repo = repo.full()
    tree = repo[repo[sha.encode()].tree]
    out = {}
    for entry in tree.items():
        if stat.S_ISREG(entry.mode):
            out[entry.path.decode()] = repo[entry.sha].data
    return out


def blob_ids(repo: Repo, sha: str | None) -> dict[str, str]:
    """File name -> blob id of a commit's top-level files (no blob is read)."""
    if not sha:
        return {}
    if isinstance(repo, LiteRepo):
        try:
            return {name.decode(): blob_id for name, mode, blob_id in _lite_tree(repo, sha) if stat.S_ISREG(mode)}
        except Unsupported:
            repo = repo.full()
    tree = repo[repo[sha.encode()].tree]
    return {e.path.decode(): e.sha.decode() for e in tree.items() if stat.S_ISREG(e.mode)}


def tree_problems(repo: Repo, sha: str, allowed: frozenset[str], max_bytes: int, checked: set | None = None) -> list[str]:
    """Why a commit's tree is more than memory: every entry that is not one of `allowed`
    as a regular blob of at most `max_bytes`. Empty when the tree is memory.

    Pulled trees are data, never paths: a name like `../x` or `.git/config`, a symlink,
    a subtree, a gitlink or a huge blob is refused before anything is written.
    `checked` (tree and blob ids already found good) spares work across many commits.
    The rules are shape.py's (also proven through git there).
    """
    checked = set() if checked is None else checked
    tree_id = commits(repo)[sha.encode()].tree
    if tree_id in checked:
        return []
    kind, size = object_header(repo, tree_id)  # measured before it is read
    if size > MAX_TREE_BYTES:
        return [f"its tree is {size} bytes, far more than the state files make"]
    problems = []
    for entry in repo[tree_id].items():
        name = entry.path.decode("utf-8", "replace")
        problem = shape.entry_problem(name, entry.mode, allowed)
        if problem is None and entry.sha not in checked:
            kind, size = object_header(repo, entry.sha)  # its size from the header: none of it is read
            problem = shape.blob_problem(name, kind == 3, size, max_bytes)  # 3: a blob
            if problem is None:
                checked.add(entry.sha)
        if problem:
            problems.append(problem)
    if not problems:
        checked.add(tree_id)
    return problems


def stray_entries(repo: Repo, sha: str | None, allowed: frozenset[str]) -> list[str]:
    """Names in a commit's tree that are not one of `allowed` as a regular file (no blob is read)."""
    if not sha:
        return []
    if isinstance(repo, LiteRepo):
        try:
            return sorted(name.decode("utf-8", "replace") for name, mode, _ in _lite_tree(repo, sha)
                          if name.decode("utf-8", "replace") not in allowed or not stat.S_ISREG(mode))
        except Unsupported:
            repo = repo.full()
    tree = repo[repo[sha.encode()].tree]
    return sorted(e.path.decode("utf-8", "replace") for e in tree.items()
                  if e.path.decode("utf-8", "replace") not in allowed or not stat.S_ISREG(e.mode))


def blob(repo: Repo, blob_id: str) -> bytes:
    if isinstance(repo, LiteRepo):
        try:
            return repo.read(blob_id)[1]
        except Unsupported:
            repo = repo.full()
    return repo[blob_id.encode()].data


def _lite_tree(repo: LiteRepo, sha: str) -> list[tuple[bytes, int, str]]:
    """(name, mode, id) of the entries of a commit's tree, read by lite.py."""
    kind, data = repo.read(sha)
    if kind != b"commit":
        raise ValueError(f"{sha} is a {kind.decode()}, not a commit")
    kind, data = repo.read(lite.commit_tree(data))
    if kind != b"tree":
        raise ValueError(f"the tree of {sha} is a {kind.decode()}")
    return lite.parse_tree(data)


def commit(
    repo: Repo,
    branch: str,
    files: dict[str, bytes | None],
    message: bytes,
    author: bytes,
    committer: bytes,
    expected: str | None,
    extra_parents: list[str] = (),
    when: int | None = None,
    keep_only: frozenset[str] | None = None,
) -> str:
    """Commit `files` (None = delete) on top of `expected` and move `branch` there.

    The branch moves only if it still points at `expected` (compare-and-swap), so a
    writer that raced us cannot be overwritten even if the OS lock were bypassed.
    With `keep_only`, entries of `expected`'s tree that are not one of those names as
    a regular file are left out (see `stray_entries`).
    """
    if isinstance(repo, LiteRepo):
        try:
            return _commit_lite(repo, branch, files, message, author, committer, expected, extra_parents, when, keep_only)
        except Unsupported:
            repo = repo.full()
    from dulwich.objects import Blob, Commit, Tree

    base = {}
    if expected:
        for entry in repo[repo[expected.encode()].tree].items():
            if keep_only is not None and (entry.path.decode("utf-8", "replace") not in keep_only or not stat.S_ISREG(entry.mode)):
                continue
            base[entry.path] = (entry.mode, entry.sha)
    objects = []
    for name, data in files.items():
        key = name.encode()
        if data is None:
            base.pop(key, None)
            continue
        blob = Blob.from_string(data)
        objects.append(blob)
        base[key] = (FILE_MODE, blob.id)
    tree = Tree()
    for key, (mode, sha) in base.items():
        tree.add(key, mode, sha)
    c = Commit()
    c.tree = tree.id
    c.parents = ([expected.encode()] if expected else []) + [p.encode() for p in extra_parents]
    c.author = author
    c.committer = committer
    c.author_time = c.commit_time = int(time.time() if when is None else when)
    c.author_timezone = c.commit_timezone = 0
    c.encoding = b"UTF-8"
    c.message = message
    for obj in (*objects, tree, c):
        _add_object(repo, obj)
    ref = branch_ref(branch)
    old = expected.encode() if expected else None
    ok = repo.refs.set_if_equals(ref, old, c.id, message=b"cogit: " + message.split(b"\n", 1)[0], committer=committer)
    if not ok:
        raise _moved(branch)
    return c.id.decode()


def _moved(branch: str) -> Conflict:
    return Conflict(
        f"branch {branch} moved while committing",
        hint="Another writer changed memory at the same moment; run the command again.",
    )


def _commit_lite(repo: LiteRepo, branch, files, message, author, committer, expected, extra_parents, when, keep_only) -> str:
    """`commit` through lite.py: the same objects, byte for byte, and the same ref update
    (tests/test_lite_repo.py compares both)."""
    base: dict[bytes, tuple[int, str]] = {}
    if expected:
        for name, mode, sha in _lite_tree(repo, expected):  # read before anything is written
            if keep_only is not None and (name.decode("utf-8", "replace") not in keep_only or not stat.S_ISREG(mode)):
                continue
            base[name] = (mode, sha)
    for name, data in files.items():
        if data is None:
            base.pop(name.encode(), None)
        else:
            base[name.encode()] = (FILE_MODE, repo.write(b"blob", data))
    tree = repo.write(b"tree", lite.tree_bytes(base))
    stamp = int(time.time() if when is None else when)
    parents = ([expected] if expected else []) + list(extra_parents)
    sha = repo.write(b"commit", lite.commit_bytes(tree, parents, author, committer, stamp, message))
    if not repo.swap_ref(branch_ref(branch).decode(), expected, sha, b"cogit: " + message.split(b"\n", 1)[0], committer,
                         int(time.time())):
        raise _moved(branch)
    return sha


def _add_object(repo: Repo, obj) -> None:
    """Store a loose object. dulwich writes it through `<object>.lock`; a writer killed
    there leaves that lock behind, and the same object (same content, same name) could
    then never be written again. Callers hold the memory lock, so such a lock is stale.
    Its folder can go between dulwich's mkdir and that lock (lite.locked_write says why):
    then it is written again."""
    from dulwich.file import FileLocked

    for attempt in range(20):
        try:
            repo.object_store.add_object(obj)
            return
        except FileLocked as e:
            lock = os.fsdecode(e.lockfilename)
            if os.sep + "objects" + os.sep not in lock:
                raise
            os.unlink(lock)
        except FileNotFoundError:
            if attempt == 19:
                raise


def write_atomic(path: Path, data: bytes, durable: bool = True) -> None:
    # tempfile.mkstemp's way (a new private file, O_EXCL) without importing tempfile and
    # shutil on every write command's cold path.
    while True:
        tmp = os.path.join(path.parent, f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def info(repo: Repo, sha: str) -> CommitInfo:
    c = repo[sha.encode()]
    return CommitInfo(
        sha=c.id.decode(),
        parents=[p.decode() for p in c.parents],
        author=c.author.decode("utf-8", "replace"),
        committer=c.committer.decode("utf-8", "replace"),
        time=c.author_time,
        tz=c.author_timezone,
        message=c.message.decode("utf-8", "replace"),
    )


def commit_problems(repo: Repo, sha: str) -> list[str]:
    """What `git fsck` would refuse in a commit's message and identities (shape.py)."""
    c = repo[sha.encode()]
    return shape.ident_problems(c.message, c.author, c.committer)


def walk(repo: Repo, sha: str | None, max_entries: int | None = None):
    """Commits reachable from `sha`, newest first (all parents, like `git log`)."""
    if not sha:
        return
    for entry in repo.get_walker(include=[sha.encode()], max_entries=max_entries):
        yield info(repo, entry.commit.id.decode())


def resolve(repo: Repo, rev: str, default_branch: str = MAIN) -> str:
    """A revision (sha, short sha, branch, HEAD, HEAD~N, main^2) -> full commit sha."""
    import re

    text = rev.strip()
    if not text:
        # An empty revision once meant HEAD: `cogit revert ""` reverted the last commit.
        raise UsageError("the revision is empty", hint="Give a commit id from `cogit log`, a branch, or HEAD~N.")
    if len(text) > 200 or not text.isprintable():
        raise RevisionNotFound(
            f"{rev[:40]!r}{'…' if len(rev) > 40 else ''} is not a revision (too long, or control characters)",
            hint="Use a commit id from `cogit log` (a prefix of 7+ characters works) or HEAD~N.",
        )
    m = re.match(r"^(.*?)((?:[~^]\d*)*)$", text)
    base, suffix = (m.group(1), m.group(2)) if m else (text, "")
    if base.upper() == "HEAD" or base == "@" or not base:
        base = default_branch
    try:
        from dulwich.objectspec import parse_commit

        sha = parse_commit(repo, base.encode()).id
        for op, count in re.findall(r"([~^])(\d*)", suffix):
            n = int(count) if count else 1
            if op == "~":
                for _ in range(n):
                    sha = repo[sha].parents[0]
            elif n:
                sha = repo[sha].parents[n - 1]
        return sha.decode()
    except Exception:
        raise RevisionNotFound(
            f"unknown revision {rev[:80]!r}",
            hint="Use a commit id from `cogit log` (a prefix of 7+ characters works) or HEAD~N.",
        ) from None


def raw_diff(repo: Repo, old: str | None, new: str) -> str:
    out = BytesIO()
    old_tree = repo[old.encode()].tree if old else None
    from dulwich.patch import write_tree_diff

    write_tree_diff(out, repo.object_store, old_tree, repo[new.encode()].tree)
    return out.getvalue().decode("utf-8", "replace")


def set_branch(repo: Repo, branch: str, sha: str, expected: str | None) -> bool:
    old = expected.encode() if expected else None
    return repo.refs.set_if_equals(branch_ref(branch), old, sha.encode(), message=b"cogit: update", committer=b"cogit <cogit@localhost>")


# No object of memory is larger (state files: yamlio.MAX_BYTES, trees: MAX_TREE_BYTES): a fetch
# refuses any bigger one before it is read (sync/packscan.py, and git's core.bigFileThreshold).
MAX_OBJECT_BYTES = MAX_COMMIT_BYTES


def create_branch(repo: Repo, branch: str, sha: str) -> bool:
    """Create a branch at `sha`; False if it already exists (whatever it points at)."""
    return repo.refs.add_if_new(branch_ref(branch), sha.encode(), message=b"cogit: create", committer=b"cogit <cogit@localhost>")


def machine_committer(repo: Repo) -> bytes:
    """`cogit <ID@machine.cogit>`, ID made once per memory repository (.git/config cogit.machine).

    Two machines that make the same change in the same second with the same author
    would otherwise write the very same commit, and a merge could not tell that a
    counter went up twice.
    """
    if isinstance(repo, LiteRepo):
        try:
            machine = repo.config_value("cogit", "machine")
        except Unsupported:
            machine = None
        if machine:
            return f"cogit <{machine}@machine.cogit>".encode()
        repo = repo.full()
    config = repo.get_config()
    try:
        machine = config.get((b"cogit",), b"machine").decode()
    except KeyError:
        import secrets  # here: once per repository (it imports hmac and random)

        machine = secrets.token_hex(6)
        config.set((b"cogit",), b"machine", machine.encode())
        config.write_to_path()
    return f"cogit <{machine}@machine.cogit>".encode()


def tree_blobs(repo: Repo, sha: str) -> list[tuple[str, str]]:
    """(path, blob id) of every file in a commit's tree, subfolders included (for `cogit scan`)."""
    out, stack = [], [("", repo[sha.encode()].tree)]
    while stack:
        prefix, tree_id = stack.pop()
        for entry in repo[tree_id].items():
            path = prefix + entry.path.decode("utf-8", "replace")
            if stat.S_ISDIR(entry.mode):
                stack.append((path + "/", entry.sha))
            elif stat.S_ISREG(entry.mode) or stat.S_ISLNK(entry.mode):
                out.append((path, entry.sha.decode()))
    return sorted(out)

