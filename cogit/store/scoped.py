"""Reading across scopes: what a folder sees, one log of every scope, and where an item
or a commit lives when it is not in the scope a command looked in.

A read command run inside a project's folder sees what an agent there is shown: global
plus that project (cogit/scope.py names the project of a folder, as the hooks do). `log`
covers every scope: a merge, newest first, of per-branch walks; each branch is walked
only as far as the limit needs (its newest N commits), so `log -n 20` stays cheap
however many commits or branches memory holds.
"""

from __future__ import annotations

import heapq

from cogit.errors import CogitError, ItemNotFound, RevisionNotFound
from cogit.paths import Home
from cogit.store.history import log as history
from cogit.store.git import repo as git
from cogit.store.git.repo import open_existing
from cogit.store.scopes import GLOBAL, Scope, is_project, project_name, resolve, where  # noqa: F401  (where: re-exported)


def folder_project(home: Home, cwd: str) -> Scope | None:
    """The project of the folder `cwd`, when it is in a repository and has memory."""
    from cogit.scope import project_of
    from cogit.store.scopes import _overrides

    info = project_of(cwd, _overrides(home))
    if info is None or info["source"] == "folder":
        return None
    repo = open_existing(home)
    try:
        if git.head(repo, info["branch"]) is None:
            return None
        return Scope(info["branch"], project_name(repo, info["branch"]))
    finally:
        repo.close()


def view(home: Home, project: str | None, cwd: str) -> list[Scope]:
    """The scopes a read command shows: `--project` alone when given, else global plus the
    project of the current folder (the project first, as the digest puts it)."""
    if project is not None:
        return [resolve(home, project, cwd)]
    here = folder_project(home, cwd)
    return [here, GLOBAL] if here else [GLOBAL]


def every_scope(home: Home) -> list[Scope]:
    repo = open_existing(home)
    try:
        return [GLOBAL] + [Scope(b, project_name(repo, b)) for b in git.branches(repo) if is_project(b)]
    finally:
        repo.close()


def log(home: Home, scopes: list[Scope], *, limit: int | None = None, **filters) -> list[tuple[Scope, history.Entry]]:
    """Commits of several scopes, newest first, each with its scope.

    Each branch yields at most `limit` commits (the newest), so the merge reads no more
    than limit x branches commits. A commit two branches share (a sync's merge base) is
    listed once, under the first scope.
    """
    streams = []
    for n, scope in enumerate(scopes):
        repo = open_existing(home)
        try:
            present = git.head(repo, scope.branch) is not None
        finally:
            repo.close()
        if not present:
            continue
        entries = history.log(home, branch=scope.branch, limit=limit, **filters)
        # heapq.merge needs each stream sorted; git's walk is by commit time, almost always.
        entries.sort(key=lambda e: -e.time)
        streams.append([(-e.time, n, i, scope, e) for i, e in enumerate(entries)])  # (a list: no late binding)
    seen: set[str] = set()
    out = []
    for _, _, _, scope, entry in heapq.merge(*streams, key=lambda t: t[:3]):
        if entry.sha in seen:
            continue
        seen.add(entry.sha)
        out.append((scope, entry))
        if limit and len(out) >= limit:
            break
    return out


def scopes_with_commit(home: Home, rev: str) -> list[Scope]:
    """Every scope whose history holds the commit `rev` (a sha or a prefix)."""
    repo = open_existing(home)
    try:
        try:
            sha = git.resolve(repo, rev)
        except CogitError:
            return []
        found = []
        for branch in git.branches(repo):
            if branch != git.MAIN and not is_project(branch):
                continue
            head = git.head(repo, branch)
            if head and git.is_ancestor(repo, sha, head):
                found.append(GLOBAL if branch == git.MAIN else Scope(branch, project_name(repo, branch)))
        return found
    finally:
        repo.close()


def scopes_with_item(home: Home, item_id: str) -> list[Scope]:
    """Every scope whose current memory holds an item with this id."""
    from cogit.store.state.documents import ITEM_SECTIONS
    from cogit.store.write.transact import load_state

    repo = open_existing(home)
    try:
        found = []
        token = item_id.encode()
        for branch in [git.MAIN] + [b for b in git.branches(repo) if is_project(b)]:
            head = git.head(repo, branch)
            if not head or not any(token in data for data in git.read_files(repo, head).values()):
                continue  # cheap: only branches whose files mention the id are parsed
            state = load_state(repo, head)
            if any(i.get("id") == item_id for s in ITEM_SECTIONS for i in state[s].get("items") or []):
                found.append(GLOBAL if branch == git.MAIN else Scope(branch, project_name(repo, branch)))
        return found
    finally:
        repo.close()


def flag(scope: Scope) -> str:
    """The option that reaches a scope, for hints."""
    if scope.is_global:
        return "--project global"
    name = scope.name
    return f"--project {name}" if name and " " not in name else f"--project {scope.branch}"


def elsewhere_item(home: Home, item_id: str, looked: Scope, command: str) -> CogitError | None:
    """An error saying which other scope holds an item, or None when none does."""
    others = [s for s in scopes_with_item(home, item_id) if s.branch != looked.branch]
    if not others:
        return None
    names = ", ".join(s.name if not s.is_global else "global memory" for s in others)
    return ItemNotFound(
        f"{item_id} is not in {_label(looked)}; it is in {names}",
        hint=" or ".join(f"`cogit {command} {item_id} {flag(s)}`" for s in others[:3]) + " reaches it.",
    )


def elsewhere_commit(home: Home, rev: str, looked: Scope, command: str) -> CogitError | None:
    others = [s for s in scopes_with_commit(home, rev) if s.branch != looked.branch]
    if not others:
        return None
    names = ", ".join(s.name if not s.is_global else "global memory" for s in others)
    return RevisionNotFound(
        f"commit {rev[:12]} is not in the history of {_label(looked)}; it is in {names}",
        hint=" or ".join(f"`cogit {command} {rev[:12]} {flag(s)}`" for s in others[:3]) + " reaches it.",
    )


def _label(scope: Scope) -> str:
    return "global memory" if scope.is_global else f"project {scope.name}"


def label(scope: Scope) -> str:
    """A scope's short label in listings: `global`, or the project's name."""
    return "global" if scope.is_global else scope.name



def summary(home: Home, scope: Scope) -> dict:
    """A project's part of `cogit status`: name, branch, head, item counts."""
    from cogit.store.state.documents import ITEM_SECTIONS
    from cogit.store.write.transact import load_state

    repo = open_existing(home)
    try:
        head = git.head(repo, scope.branch) or ""
        state = load_state(repo, head or None)
        return {"name": scope.name, "branch": scope.branch, "head": head,
                "counts": {s: len(state[s].get("items") or []) for s in ITEM_SECTIONS}}
    finally:
        repo.close()
