"""Project scopes: `main` is global, each project has a branch `project/<slug>`.

A project branch holds only what is specific to that project. It starts as a root
commit of the templates, not as a fork of main: the digest composes global main plus
the project, so a fork would show every global item twice. Project branches are
written through the object layer; the working tree shows main only. Settings come
from main's config.yaml (a project's config.yaml exists only for uniformity).

`promote` moves an item from a project to global, `demote` the other way; both
commits are made under one hold of the memory lock, the copy first, so a crash in
between leaves the item in both places rather than in neither.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass

from cogit.errors import ItemNotFound, NotInitialized, UsageError
from cogit.paths import Home
from cogit.scope import project_of, slugify
from cogit.store.git import repo as git
from cogit.store.state import yamlio
from cogit.store.git.provenance import Provenance
from cogit.store.cache.snapshot import project_name  # noqa: F401  (the rule lives where the write path reaches it)
from cogit.store.state.documents import ITEM_SECTIONS, SINGULAR, find, new_id
from cogit.domain.times import now_iso
from cogit.store.write.transact import Change, State, commit_locked, create_root, load_state, main_config, memory_lock  # noqa: F401

PREFIX = "project/"
GLOBAL_NAMES = ("global", "main")


@dataclass(frozen=True)
class Scope:
    """Where a command reads and writes: a branch, and the name shown to people."""

    branch: str
    name: str

    @property
    def is_global(self) -> bool:
        return self.branch == git.MAIN


GLOBAL = Scope(git.MAIN, "global")


def is_project(branch: str) -> bool:
    return branch.startswith(PREFIX)


def _looks_like_path(name: str) -> bool:
    # A bare word is a project name; only these forms are folders. (A name such as
    # `cogit` must not change meaning with the directory the command runs in.)
    return name in (".", "..") or name.startswith(("/", "./", "../", "~"))


def resolve(home: Home, name: str | None, cwd: str) -> Scope:
    """The scope `--project NAME` means.

    None, `global` or `main`: global. A path (`.`, `./x`, `/abs`, `~/x`): the project of
    that folder, as the hooks compute it from their `cwd`. `project/<slug>`: that
    branch. Any other text: a known project's name or slug (`github.com/me/repo`),
    else an existing folder relative to `cwd` (`proj/alpha`), else a new project name.
    """
    if name is None or name.strip().lower() in GLOBAL_NAMES:
        return GLOBAL
    text = name.strip()
    if _looks_like_path(text):
        path = os.path.abspath(os.path.join(cwd, os.path.expanduser(text)))
        if not os.path.isdir(path):
            raise UsageError(f"no such folder {path}", hint="Give a project folder, or a project name from `cogit project list`.")
        info = project_of(path, _overrides(home))
        return Scope(info["branch"], info["name"])
    slug = text[len(PREFIX):] if text.startswith(PREFIX) else text
    branch = PREFIX + slugify(slug)
    known = _known_name(home, branch)
    if known is None and not text.startswith(PREFIX):
        # Not a project cogit knows: a folder given as a shell user would (`proj/alpha`).
        # A known project name always wins, so its meaning never depends on the cwd.
        path = os.path.abspath(os.path.join(cwd, os.path.expanduser(text)))
        if os.path.isdir(path):
            info = project_of(path, _overrides(home))
            return Scope(info["branch"], info["name"])
    return Scope(branch, known or text)


def _overrides(home: Home) -> dict:
    if not (home.memory / ".git").exists():
        return {}
    repo = git.open_repo(home.memory)
    try:
        return dict((main_config(repo).get("projects") or {}).get("overrides") or {})
    finally:
        repo.close()


def _known_name(home: Home, branch: str) -> str | None:
    if not (home.memory / ".git").exists():
        return None
    repo = git.open_repo(home.memory)
    try:
        return project_name(repo, branch) if git.head(repo, branch) else None
    finally:
        repo.close()




def ensure_exists(home: Home, scope: Scope) -> None:
    """Refuse to read a project that has no memory yet (writes create it)."""
    if scope.is_global:
        return
    repo = _open(home)
    try:
        if git.head(repo, scope.branch) is None:
            raise ItemNotFound(
                f"project {scope.name!r} has no memory yet (no branch {scope.branch})",
                hint="`cogit project list` lists projects; `cogit add ... --project NAME` starts one.",
            )
    finally:
        repo.close()


def _open(home: Home):
    if not (home.memory / ".git").exists():
        raise NotInitialized(f"no cogit memory at {home.root}", hint="Run `cogit init` (or `cogit clone URL`) first.")
    return git.open_repo(home.memory)


def list_projects(home: Home) -> list[dict]:
    """Every project branch: name, branch, head, last change and item counts."""
    repo = _open(home)
    try:
        out = []
        for branch in git.branches(repo):
            if not is_project(branch):
                continue
            sha = git.head(repo, branch)
            state = load_state(repo, sha)
            out.append({
                "name": project_name(repo, branch),
                "branch": branch,
                "head": sha,
                "time": git.info(repo, sha).time,
                "counts": {s: len(state[s].get("items") or []) for s in ITEM_SECTIONS},
            })
        return out
    finally:
        repo.close()


def section_text(home: Home, scope: Scope, section: str) -> bytes:
    """The exact text of one section on a branch (comments included), for `cogit edit`."""
    from cogit.store.memory import committed_text

    return committed_text(home, scope.branch, section)


# --------------------------------------------------------------------------- moving items


def _find_source(repo, item_id: str, branches: list[str]) -> str:
    token = item_id.encode()
    for branch in branches:
        files = git.read_files(repo, git.head(repo, branch))
        if any(token in data for data in files.values()):
            return branch
    raise ItemNotFound(
        f"no project holds an item {item_id!r}",
        hint="`cogit show --project NAME` lists a project's ids; `cogit project list` lists projects.",
    )


def _take(item_id: str, summary: str):
    def apply(state: State) -> Change:
        section, index, _ = find(state, item_id)
        del state[section]["items"][index]
        return Change(summary, trailers={"Cogit-Item": item_id})

    return apply


def _put(section: str, item: dict, summary: str):
    def apply(state: State) -> Change:
        items = state[section]["items"]
        if any(i.get("text") == item.get("text") for i in items):
            return Change(summary + " (already there)", trailers={"Cogit-Item": item["id"]})
        moved = copy.deepcopy(item)
        if any(i.get("id") == moved["id"] for i in items):
            moved["id"] = new_id(section, state)
        moved["updated_at"] = now_iso()
        items.append(moved)
        return Change(summary, trailers={"Cogit-Item": moved["id"]})

    return apply


def move(home: Home, item_id: str, source: Scope | None, target: Scope, prov: Provenance) -> list:
    """Move an item between scopes: copy it to `target`, then remove it from `source`.

    `source` None: the project branch that holds the id. Returns the write results.
    """
    with memory_lock(home):
        repo = _open(home)
        try:
            if source is None:
                branch = _find_source(repo, item_id, [b for b in git.branches(repo) if is_project(b)])
                source = Scope(branch, project_name(repo, branch))
            if source.branch == target.branch:
                raise UsageError(f"{item_id} is already in {target.name}")
            if git.head(repo, source.branch) is None:
                raise ItemNotFound(f"project {source.name!r} has no memory", hint="`cogit project list` lists projects.")
            section, _, item = find(load_state(repo, git.head(repo, source.branch)), item_id)
            item = yamlio.plain(item)
            verb = "Promote" if target.is_global else "Demote"
            summary = f"{verb} {SINGULAR[section]} {item_id} from {source.name} to {target.name}: {item.get('text', '')}"
            results = [
                commit_locked(home, repo, target.branch, _scoped(prov, target), _put(section, item, summary)),
                commit_locked(home, repo, source.branch, _scoped(prov, source), _take(item_id, summary)),
            ]
            return [r for r in results if r]
        finally:
            repo.close()


def _scoped(prov: Provenance, scope: Scope) -> Provenance:
    out = copy.deepcopy(prov)
    out.project = scope.name
    return out


def preview(home: Home, scope: Scope) -> dict:
    """A project's own state and the digest an agent in it gets (global plus project)."""
    from cogit.digest import assemble as digest
    repo = _open(home)
    try:
        sha = git.head(repo, scope.branch)
        if sha is None:
            raise ItemNotFound(f"project {scope.name!r} has no memory yet (no branch {scope.branch})",
                             hint="`cogit project list` lists projects; `cogit add ... --project NAME` starts one.")
        main_state = load_state(repo, git.head(repo, git.MAIN))
        state = load_state(repo, sha)
        compiled = digest.compile_text([("global", main_state), (scope.branch, state)], main_state.get("config"))
        return {"name": scope.name, "branch": scope.branch, "head": sha,
                "state": yamlio.plain(dict(state)), "digest": compiled}
    finally:
        repo.close()


def where(scope: Scope) -> str:
    """Where a write went, as the commands say it (here, not in scoped.py: a cold `add`
    reports through it without importing the history code)."""
    return "global memory (main)" if scope.is_global else f"project {scope.name} ({scope.branch})"
