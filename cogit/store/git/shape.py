"""What a pulled memory commit may be, and the proof of it read through `git` (plumbing.py).

A memory commit holds exactly cogit's state files as regular blobs under the size limit
(trees are data, never paths), and its author and committer are `Name <email>` as git's
fsck wants them. The checks themselves (`ident_problems`, `entry_problem`) are shared by
the two readers: repo.py's, through dulwich, which names every problem, and
`proven_history` here, through git, which only proves a history good. When it cannot
(any problem, any doubt: an object too big, a layout it does not know), it raises
plumbing.Unavailable and the dulwich reader goes over the same history and names what
is wrong, so a refused pull says the same whichever reader ran. Standard library only.
"""

from __future__ import annotations

import stat

from cogit.store.git import plumbing

MAX_COMMIT_BYTES = 1 << 20  # a memory commit is a subject, a list of changes and trailers: a few KB
MAX_TREE_BYTES = 4096  # a memory tree is nine short entries; anything far larger is not memory


def ident_problems(message: bytes, author: bytes, committer: bytes) -> list[str]:
    """What `git fsck` would refuse in a commit's message and identities (a pulled commit
    with one would make memory fail fsck, and a checking remote refuse every later push)."""
    problems = []
    if b"\x00" in message:
        problems.append("its message holds a NUL byte")
    for what, ident in (("author", author), ("committer", committer)):
        name, lt, rest = ident.partition(b"<")
        if not lt or not rest.endswith(b">") or b"<" in rest or b">" in rest[:-1] or not name.endswith(b" ") \
                or any(ch < 32 for ch in ident):
            problems.append(f"its {what} is not 'Name <email>'")
    return problems


def shown(name: str) -> str:
    text = repr(name) if not name.isprintable() or len(name) > 80 else f"'{name}'"
    return text[:80] + "…'" if len(text) > 90 else text


def entry_problem(name: str, mode: int, allowed: frozenset[str]) -> str | None:
    """Why a tree entry is not a state file, from its name and mode alone (None: it may be one)."""
    if name not in allowed:
        return f"entry {shown(name)} is not a memory file (memory holds only {', '.join(sorted(allowed))})"
    if not stat.S_ISREG(mode):
        what = "symlink" if stat.S_ISLNK(mode) else "folder" if stat.S_ISDIR(mode) else (
            "submodule (gitlink)" if mode == 0o160000 else f"mode {mode:o}")
        return f"entry {shown(name)} is a {what}, not a regular file"
    return None


def blob_problem(name: str, is_blob: bool, size: int, max_bytes: int) -> str | None:
    if not is_blob:
        return f"entry {shown(name)} is not a blob"
    if size > max_bytes:
        return f"entry {shown(name)} is {size} bytes, over the {max_bytes}-byte limit of a state file"
    return None


def proven_history(git_dir: str, tip: str, exclude: list[str], allowed: frozenset[str], max_bytes: int,
                   trees: dict[str, dict[str, str]]) -> tuple[list[str], dict[str, dict[str, str]]]:
    """The commits reachable from `tip` and from none of `exclude` (newest first) and each
    one's files (name -> blob id), every one proven memory by git: each commit measured
    from its header and its idents checked, each distinct tree measured and its entries
    checked, each distinct blob's type and size read from its header (none is read).
    `trees` (tree id -> files, already proven) spares work across branches and is filled.
    Raises plumbing.Unavailable at the first doubt: then the dulwich reader decides."""
    commits = plumbing.rev_list(git_dir, [tip], exclude)
    tree_of: dict[str, str] = {}
    try:
        for sha, kind, raw in plumbing.objects(git_dir, commits, MAX_COMMIT_BYTES):
            parsed = plumbing.parse_commit(raw) if kind == "commit" else None
            if parsed is None or ident_problems(parsed[4], parsed[2], parsed[3]):
                raise plumbing.Unavailable(f"commit {sha} is not plainly memory")
            tree_of[sha] = parsed[0]
        new = list(dict.fromkeys(t for t in tree_of.values() if t not in trees))
        entries: dict[str, dict[str, str]] = {}
        blobs: set[str] = set()
        for sha, kind, raw in plumbing.objects(git_dir, new, MAX_TREE_BYTES):
            parsed = plumbing.parse_tree(raw) if kind == "tree" else None
            if parsed is None:
                raise plumbing.Unavailable(f"tree {sha} does not parse")
            files = {}
            for name, mode, blob in parsed:
                text = name.decode("utf-8", "replace")
                if entry_problem(text, mode, allowed):
                    raise plumbing.Unavailable(f"tree {sha} is not memory")
                files[text] = blob
                blobs.add(blob)
            entries[sha] = files
    except plumbing.TooBig as e:
        raise plumbing.Unavailable(str(e)) from None
    for sha, (kind, size) in plumbing.headers(git_dir, sorted(blobs)).items():
        if blob_problem("", kind == "blob", size, max_bytes):
            raise plumbing.Unavailable(f"blob {sha} is not a state file")
    trees.update(entries)
    return commits, {c: trees[t] for c, t in tree_of.items()}
