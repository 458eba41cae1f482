"""Spatial, blast radius: after a write, how many files import the changed module.

Runs after a successful Edit, Write, MultiEdit or NotebookEdit of a Python, JS/TS, Go or
Rust file inside a git repository (the root is found by walking up from the file to a `.git`;
GIT_* variables are never read). The import analysis (`imports.py`) parses real import
statements and caches them in `cache_dir` per repository root and language keyed by file
mtimes. The hook only reads that index (`import_index.read_radius`): it is built by a
detached builder, and until it covers the repository the sense says nothing and asks for a
build (`state["index_wanted"]`, which the hook turns into the detached builder); an index
older than `import_index.REFRESH_S` is read and refreshed the same way. One signal per file
per `cooldown` calls.
"""

from .base import section
from .text import listing, tag

NAME = "spatial"
MAX_SEEN = 50


def sense(state, call, cfg, cache_dir=None):
    if not cfg["enabled"] or call.get("kind") != "write" or not call.get("ok"):
        return None
    path = call.get("target")
    if not path:
        return None
    from .langs import lang_of

    if not lang_of(path):
        return None
    from . import import_index  # only writes of code files pay for the import analysis

    seen = section(state, "spatial", dict)
    last = seen.get(path)
    if isinstance(last, int) and state["n"] - last <= cfg["cooldown"]:
        return None
    result = import_index.read_radius(path, cache_dir)
    if result and (not result["built"] or result["age"] >= import_index.REFRESH_S):
        state["index_wanted"] = result["root"]  # the hook starts the builder, detached
    if not result or not result["built"] or result["count"] < cfg["threshold"]:
        return None
    seen[path] = state["n"]
    if len(seen) > MAX_SEEN:
        for old in sorted(seen, key=lambda k: seen[k])[: len(seen) - MAX_SEEN]:
            del seen[old]
    files = listing(result["importers"], 3)
    return (
        "%s %s is imported by %d files: %s. A change to its names or signatures reaches all of them; "
        "is this change backward compatible, or do those callers need updating too?"
        % (tag(NAME), result["rel"], result["count"], files)
    )
