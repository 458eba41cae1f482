"""Search memory, and with `history=True` its history, for words.

    search(home, "fake clock") -> [{"scope", "branch", "section", "id", "text", "status": "current"}, ...]
    search(home, "fake clock", history=True) adds removed items:
        {..., "status": "removed", "how": "forgotten"|"pruned"|"reverted"|"edited out"|"moved"|"merged away"|"removed",
         "commit", "summary", "time"}

Matching: the query's words (letters and digits, case-insensitive) must all occur in the
item's text (or a learning's context) as the start of a word: `test` finds "tests" and
"testing", not "latest". Current items come first (each scope in turn: global, then the
projects), then removed ones, newest removal first; each removed id once (its last removal).
An id still in its scope's memory is not listed as removed. The history walk reads only
commits that changed a state file whose old text holds every query word, so it stays cheap.
"""

from __future__ import annotations

import re
import time

from cogit.paths import Home
from cogit.store.state import loader
from cogit.store.git import repo as git
from cogit.store.git.repo import open_existing
from cogit.store.git.provenance import parse
from cogit.store.scopes import is_project, project_name
from cogit.store.state.documents import ITEM_SECTIONS, filename

_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text or "")]


def _matches(query: list[str], item: dict) -> bool:
    have = words(str(item.get("text", ""))) + words(str(item.get("context") or ""))
    return all(any(h.startswith(q) for h in have) for q in query)


def _how(trailers: dict, item_id: str) -> str:
    event = trailers.get("Cogit-Event", "")
    if item_id in (trailers.get("Cogit-Pruned") or "").split():
        return "pruned"
    return {"item.forget": "forgotten", "revert": "reverted", "human.edit": "edited out", "item.promote": "moved",
            "item.demote": "moved", "merge": "merged away"}.get(event, "removed")


def search(home: Home, text: str, *, history: bool = False, branches: list[str] | None = None, limit: int = 50) -> list[dict]:
    query = words(text)
    if not query:
        return []
    repo = open_existing(home)
    try:
        if branches is None:
            branches = [git.MAIN] + sorted(b for b in git.branches(repo) if is_project(b))
        names = {b: "global" if b == git.MAIN else project_name(repo, b) for b in branches}
        hits: list[dict] = []
        present: dict[str, set[str]] = {}
        for branch in branches:
            head = git.head(repo, branch)
            if head is None:
                continue
            state = loader.load_plain(repo, head)
            present[branch] = {i.get("id") for s in ITEM_SECTIONS for i in state[s].get("items") or []}
            for section in ITEM_SECTIONS:
                for item in state[section].get("items") or []:
                    if _matches(query, item):
                        hits.append(_hit(names[branch], branch, section, item, "current"))
        if history:
            removed = []
            for branch in branches:
                if branch in present:
                    removed += _removed(repo, str(home.memory / ".git"), branch, names[branch], query, present[branch])
            removed.sort(key=lambda h: h["time"], reverse=True)
            hits += removed
        return hits[:limit]
    finally:
        repo.close()


def _hit(scope: str, branch: str, section: str, item: dict, status: str) -> dict:
    return {"scope": scope, "branch": branch, "section": section, "id": item.get("id"),
            "text": item.get("text", ""), "status": status}


def _removed(repo, git_dir: str, branch: str, scope: str, query: list[str], present: set[str]) -> list[dict]:
    """Items of `branch` that match and were removed, each with its last removal: read
    through git (history/wordwalk.py), else by the dulwich walk."""
    from cogit.store.history import wordwalk

    def wanted(item):
        return item.get("id") not in present and _matches(query, item)

    def fallback(section, blob_id):
        return loader.parse_blob(repo, section, blob_id)

    found = wordwalk.removed(git_dir, git.head(repo, branch), [q.encode() for q in query], wanted,
                             fallback)
    if found is None:
        return _removed_by_walk(repo, branch, scope, query, present)
    hits = []
    for (sha, _parents, _author, when, message), section, item in found:
        summary, _body, trailers = parse(message)
        hit = _hit(scope, branch, section, item, "removed")
        hit.update(how=_how(trailers, item.get("id")), commit=sha, summary=summary,
                   time=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when)))
        hits.append(hit)
    return hits


def _removed_by_walk(repo, branch: str, scope: str, query: list[str], present: set[str]) -> list[dict]:
    needles = [q.encode() for q in query]
    item_files = {filename(s): s for s in ITEM_SECTIONS}
    found: dict[str, dict] = {}
    for info in git.walk(repo, git.head(repo, branch)):
        if not info.parents:
            continue
        old, new = git.blob_ids(repo, info.parents[0]), git.blob_ids(repo, info.sha)
        for name, section in item_files.items():
            if name not in old or old.get(name) == new.get(name):
                continue
            raw_old = git.blob(repo, old[name])
            raw = raw_old.lower()
            if not all(n in raw for n in needles):  # cheap: most commits never parse anything
                continue
            try:
                before = loader.read_only(repo, section, old[name], raw_old).get("items") or []
                after = loader.read_only(repo, section, new[name]).get("items") or [] if name in new else []
            except Exception:  # a tree a person broke and cogit refused: nothing to report from it
                continue
            kept = {i.get("id") for i in after}
            for item in before:
                iid = item.get("id")
                if iid in kept or iid in present or iid in found or not _matches(query, item):
                    continue
                trailers = parse(info.message)[2]
                hit = _hit(scope, branch, section, item, "removed")
                hit.update(how=_how(trailers, iid), commit=info.sha, summary=parse(info.message)[0],
                           time=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(info.time)))
                found[iid] = hit  # the walk is newest first: the first removal seen is the last one
    return list(found.values())
