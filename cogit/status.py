"""`cogit status`: a summary of the memory home."""

from __future__ import annotations

import json

from cogit.paths import Home
from cogit.digest import assemble as digest
from cogit.store.git import repo as git
from cogit.store.cache import snapshot
from cogit.store.cache import digest as digest_cache
from cogit.store.git.repo import open_existing
from cogit.store.state.documents import ITEM_SECTIONS
from cogit.store.write.transact import dirty_files, load_state


def status(home: Home) -> dict:
    repo = open_existing(home)
    try:
        branch = git.checked_out_branch(repo) or git.MAIN
        head = git.head(repo, branch) or ""
        state = load_state(repo, head)
        commits = count_commits(home, repo, head) if head else 0
        hand = sorted(dirty_files(home, repo))
        if head:
            snapshot.save(home, repo, branch, head, commits=commits)  # the next cold `status` reads it
    finally:
        repo.close()
    cache = digest_cache.cache_path(home, branch)
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


_COUNTS_KEPT = 32


def count_commits(home: Home, repo, head: str) -> int:
    """How many commits `head` holds (what `git rev-list --count` says), without walking
    the whole history each time: counts are kept in runtime/cache/commit-counts.json by
    commit, and a new head is counted from the nearest counted commit on its first-parent
    line. A commit with one parent adds one; a merge adds what it brings that its first
    parent did not have (a walk of the merged side only). Commits never change, so a kept
    count never goes stale, whatever moved the branch."""
    path = home.runtime / "cache" / "commit-counts.json"
    try:
        counts = {k: v for k, v in json.loads(path.read_text("utf-8")).items() if isinstance(v, int)}
    except (OSError, ValueError, AttributeError):
        counts = {}
    if head in counts:
        return counts[head]
    chain, sha = [], head
    while sha is not None and sha not in counts:
        parents = [p.decode() for p in repo[sha.encode()].parents]
        chain.append((sha, parents))
        sha = parents[0] if parents else None
    n = counts[sha] if sha is not None else 0
    for sha, parents in reversed(chain):
        if len(parents) <= 1:
            n += 1
        else:
            n += sum(1 for _ in repo.get_walker(include=[sha.encode()], exclude=[parents[0].encode()]))
    counts = dict(list(counts.items())[-(_COUNTS_KEPT - 1):])
    counts[head] = n
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        git.write_atomic(path, json.dumps(counts).encode(), durable=False)
    except OSError:
        pass  # a count that cannot be kept is counted again next time
    return n


def unsaved_sessions(home: Home) -> int:
    """Sessions whose records are not all in memory yet: queued items, a fold under way,
    or records since the last fold. A live session that has done nothing does not count."""
    n = 0
    for path in home.sessions.glob("*/state.json") if home.sessions.exists() else []:
        from cogit.learn.drain import _agg_empty  # only when there are sessions: it imports much

        try:
            state = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            n += 1  # unreadable: cannot be sure it is saved
            continue
        if state.get("queue") or state.get("pending") is not None or not _agg_empty(state.get("agg")):
            n += 1
    return n
