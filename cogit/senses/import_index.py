"""The import index of a repository, built off the agent's path and only read by the hook.

A scan of a 2,000-module project costs hundreds of milliseconds on its first run, and even
resumed in rounds of a 200 ms budget it sat inside the PostToolUse hook of every edit
(issue 25). So the walk and the parsing (cogit/senses/imports.py's `_Index.walk`) run in a
detached builder, `cogit hook build-index ROOT`, started at SessionStart and, when the
index is missing or old, by the edit hook itself; the hook only loads the cached lines
that may name the changed file and resolves those (`read_radius`). Until a walk has
covered the whole repository the hook says nothing rather than scanning.

The builder runs detached from COGIT_HOME with the installed cogit (cogit/hooks/spawn.py):
it reads the project's files as text through cogit/projectfile.py and never imports or
runs anything from them. Standard library only.
"""

import os
import time

# The marker and file names live below the senses (the hooks check them without importing
# this package); re-exported here for the sense and the tests.
from cogit.spatial_index import REFRESH_S, mark_started, marker_path, rev_path, wants_build  # noqa: F401

from .langs import lang_of

# Languages the builder indexes (cogit/senses/langs.py), each its own cache file.
LANGS = ("py", "js", "go", "rs")
# One build bounds its walk: a repository too big for it is finished by the next build.
BUILD_S = 120
REV_HEADER = "cogit-reverse-imports 1"


def find_repo_root(path):
    from cogit.scope import find_toplevel  # the one walk up to a repository's top level

    return find_toplevel(os.path.dirname(os.path.abspath(path)))


def _read_rev(path, rel):
    """(importers of rel, seconds since the reverse index was written), or None without one.

    One read and one `find` at C speed: the line of `rel` is "\n<rel>\t<importer>\t..."."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
            age = time.time() - os.fstat(f.fileno()).st_mtime
            text = f.read()
    except (OSError, ValueError):
        return None
    if not text.startswith(REV_HEADER):
        return None
    i = text.find("\n%s\t" % rel)
    if i < 0:
        return [], age
    end = text.find("\n", i + 1)
    return text[i + 1 : end if end >= 0 else len(text)].split("\t")[1:], age


def read_radius(path, cache_dir):
    """How many files of the repository import `path`, from the prebuilt index alone.

    None when it does not apply (no cache folder, unsupported language, no git repository
    above the file, a file outside it); {"root", "lang", "built": False} when the index of
    that repository and language has not covered the whole tree yet (the caller asks for a
    build and says nothing); else {"root", "rel", "lang", "count", "importers", "complete":
    True, "built": True, "age" (seconds since the index was written), "ms"}. Python reads
    the reverse index (one line); the other languages resolve the cached lines that may
    name the file (cogit/senses/import_resolve.py), still without a walk.
    """
    start = time.perf_counter()
    lang = lang_of(path)
    if not lang or not cache_dir:
        return None
    path = os.path.abspath(path)
    root = find_repo_root(path)
    if not root:
        return None
    rel = os.path.relpath(path, root).replace("\\", "/")
    if rel.startswith("../") or rel.split("/", 1)[0] == ".git":
        return None
    if lang == "py":
        got = _read_rev(rev_path(cache_dir, root), rel)
        if got is None:
            return {"root": root, "lang": lang, "built": False}
        found, age = got
    else:
        from .imports import _Index

        index = _Index(root, lang, cache_dir)
        if not index.full:
            return {"root": root, "lang": lang, "built": False}
        from .import_resolve import _needles, importers

        found = sorted(importers(root, rel, lang, index.files(_needles(root, rel, lang)), set()))
        try:
            age = time.time() - os.stat(index.path).st_mtime
        except OSError:
            age = 0.0
    return {"root": root, "rel": rel, "lang": lang, "count": len(found), "importers": found, "complete": True,
            "built": True, "age": age, "ms": round((time.perf_counter() - start) * 1000.0, 1)}


def build(root: str, cache_dir: str, max_bytes: int = 1000000, seconds: float = BUILD_S) -> dict:
    """Walk `root` for every language and save each index (and Python's reverse index once
    the walk covered the whole tree); returns {lang: complete}."""
    from .imports import _Index

    deadline = time.perf_counter() + seconds
    out = {}
    for lang in LANGS:
        index = _Index(root, lang, cache_dir)
        index.stack = []  # a full sweep from the root: what was cached is refreshed, not trusted
        index.walk(deadline, max_bytes)
        index.save()
        out[lang] = index.full
        if lang == "py" and index.full:
            _write_rev(index, rev_path(cache_dir, root))
    return out


def _write_rev(index, path) -> None:
    from .import_reverse import py_reverse

    reverse = py_reverse(index.files(), index.packages())
    tmp = "%s.%d.tmp" % (path, os.getpid())
    try:
        with open(tmp, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
            f.write(REV_HEADER + "".join("\n%s\t%s" % (t, "\t".join(found)) for t, found in sorted(reverse.items())) + "\n")
        os.replace(tmp, path)
    except (OSError, UnicodeError):
        try:
            os.remove(tmp)
        except OSError:
            pass


def build_main(home_root: str, args: list[str]) -> int:
    """`cogit hook build-index ROOT`: the detached builder. ROOT must be a repository's top
    level (a `.git` in it); one builder per root at a time (a flock), others leave at once."""
    if len(args) != 1 or not os.path.isabs(args[0]):
        raise ValueError(f"usage: cogit hook build-index ROOT (an absolute path), got {args!r}")
    root = os.path.normpath(args[0])
    if not os.path.isdir(root) or find_repo_root(os.path.join(root, "x")) != root:
        raise ValueError(f"not the top level of a git repository: {root!r}")
    import fcntl

    cache_dir = os.path.join(home_root, "runtime", "cache")
    os.makedirs(cache_dir, mode=0o700, exist_ok=True)
    fd = os.open(marker_path(cache_dir, root) + ".lock", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return 0  # another builder of this root is at work
        build(root, cache_dir)
    finally:
        os.close(fd)
    return 0
