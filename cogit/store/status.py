"""`cogit status`: a summary of the memory home."""

from __future__ import annotations

import json

from cogit.paths import Home
from cogit.store import digest
from cogit.store import repo as git
from cogit.store.memory import open_existing
from cogit.store.state import ITEM_SECTIONS
from cogit.store.write import dirty_files, load_state


def status(home: Home) -> dict:
    repo = open_existing(home)
    try:
        branch = git.checked_out_branch(repo) or git.MAIN
        head = git.head(repo, branch) or ""
        state = load_state(repo, head)
        commits = sum(1 for _ in repo.get_walker(include=[head.encode()])) if head else 0
        hand = sorted(dirty_files(home, repo))
    finally:
        repo.close()
    cache = digest.cache_path(home, branch)
    info = None
    if cache.exists():
        d = json.loads(cache.read_text("utf-8"))
        info = {"chars": d["chars"], "tokens": d["tokens"], "cut": d["cut"], "budget": digest.budget(state.get("config"))}
    sessions = unsaved_sessions(home)
    from cogit.doctor import attention

    return {
        "home": str(home.root),
        "branch": branch,
        "head": head,
        "commits": commits,
        "counts": {s: len(state[s].get("items") or []) for s in ITEM_SECTIONS},
        "digest": info,
        "hand_edits": hand,
        "sessions": sessions,
        "attention": attention(home, hand),
        "review": len((state.get("reflections") or {}).get("proposals") or []),  # proposals waiting (`cogit review`)
    }


def unsaved_sessions(home: Home) -> int:
    """Sessions whose records are not all in memory yet: queued items, a fold under way,
    or records since the last fold. A live session that has done nothing does not count."""
    from cogit.learn.drain import _agg_empty

    n = 0
    for path in home.sessions.glob("*/state.json") if home.sessions.exists() else []:
        try:
            state = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            n += 1  # unreadable: cannot be sure it is saved
            continue
        if state.get("queue") or state.get("pending") is not None or not _agg_empty(state.get("agg")):
            n += 1
    return n
