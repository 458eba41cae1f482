"""Spatial, blast radius: after a write, how many files import the changed module.

Runs after a successful Edit, Write, MultiEdit or NotebookEdit of a Python, JS/TS, Go or
Rust file inside a git repository (the root is found by walking up from the file to a `.git`;
GIT_* variables are never read). The import analysis (`imports.py`) parses real import
statements, caches them in `cache_dir` per repository root and language keyed by file mtimes,
and stops at `budget_ms`: an incomplete scan speaks only when its lower bound already reaches
the threshold, and says so. One signal per file per `cooldown` calls.
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
    from . import imports  # only writes of code files pay for the import analysis

    seen = section(state, "spatial", dict)
    last = seen.get(path)
    if isinstance(last, int) and state["n"] - last <= cfg["cooldown"]:
        return None
    result = imports.blast_radius(path, cfg["budget_ms"], cache_dir, cfg["max_file_bytes"])
    if not result or result["count"] < cfg["threshold"]:
        return None
    seen[path] = state["n"]
    if len(seen) > MAX_SEEN:
        for old in sorted(seen, key=lambda k: seen[k])[: len(seen) - MAX_SEEN]:
            del seen[old]
    count = result["count"]
    files = listing(result["importers"], 3)
    bound = "" if result["complete"] else "at least "
    note = "" if result["complete"] else " (the scan stopped at its %d ms budget)" % cfg["budget_ms"]
    return (
        "%s %s is imported by %s%d files%s: %s. A change to its names or signatures reaches all of them; "
        "is this change backward compatible, or do those callers need updating too?"
        % (tag(NAME), result["rel"], bound, count, note, files)
    )
