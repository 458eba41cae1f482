"""The provenance walk: every commit cogit made agrees with its diff.

`check_memory(path)` walks every branch of one memory repository and returns the
problems found (an empty list when all is well). tests/conftest.py collects the memory
homes every test created and walks them all when the test session ends.

For each commit cogit made (committer `cogit <...>`; commits a test made with plain git,
or through cogit's object layer with no trailers or `Cogit-Event: test`, are skipped):
- it has Cogit-Event and a known Cogit-Source;
- every id in Cogit-Pruned is gone after the commit (a hand edit over a cap is pruned in
  the commit that absorbs it, not reported as pruned and kept);
- every item it removed is named in Cogit-Pruned or is what its event removes
  (`item.forget`/`item.promote`/`item.demote` of Cogit-Item; `human.edit`, `revert`,
  `merge`: anything); so no unrelated commit prunes silently;
- a main commit leaves each item section within the caps of its own config.yaml;
- a project branch's root (`project.create`) has the source, agent and session of the
  commit that needed it: a branch a hook created says hook.
"""

from __future__ import annotations

import time

from cogit.errors import CogitError
from cogit.store.git import repo as git
from cogit.store.history.diff import diff_states
from cogit.store.git.provenance import SOURCES, parse
from cogit.store.state.documents import ITEM_SECTIONS, caps
from cogit.store.write.transact import load_state

REMOVES_ANYTHING = ("human.edit", "revert", "merge", "init")
REMOVES_ITEM = ("item.forget", "item.promote", "item.demote")
TEST_EVENTS = ("test",)  # the event tests give the commits they make by hand
PSEUDO = ("priority", "sequence")  # focus priorities and tool sequences pruned by caps


def _state(repo, sha, memo):
    if sha not in memo:
        try:
            memo[sha] = load_state(repo, sha)
        except CogitError:
            memo[sha] = None  # a tree a test made invalid on purpose
    return memo[sha]


def _ids(state) -> dict[str, str]:
    return {i.get("id"): s for s in ITEM_SECTIONS for i in (state.get(s) or {}).get("items") or [] if isinstance(i, dict)}


def check_commit(repo, info, branch: str, memo: dict) -> list[str]:
    where = f"{info.sha[:10]} on {branch} ({parse(info.message)[0][:60]!r})"
    _, _, tr = parse(info.message)
    problems = []
    event, source = tr.get("Cogit-Event"), tr.get("Cogit-Source")
    if not tr or event in TEST_EVENTS:
        return []  # a commit a test wrote through git.commit on purpose (cogit's message() always adds trailers)
    if not event or source not in SOURCES:
        return [f"{where}: trailers lack Cogit-Event or a known Cogit-Source: {tr}"]
    after = _state(repo, info.sha, memo)
    if after is None:
        return [f"{where}: cogit committed a tree it cannot read"]
    after_ids = _ids(after)
    pruned = set((tr.get("Cogit-Pruned") or "").split()) - set(PSEUDO)
    parents = [p for p in (_state(repo, p, memo) for p in info.parents) if p is not None]
    for p in sorted(pruned & set(after_ids)):
        problems.append(f"{where}: Cogit-Pruned names {p}, but the commit kept it")
    if len(info.parents) > 1:
        seen = set().union(*(_ids(p) for p in parents)) if parents else set()
        for p in sorted(pruned - seen):
            problems.append(f"{where}: merge prunes {p}, which neither side had")
    elif info.parents and parents:
        before = parents[0]
        removed = {c.key for c in diff_states(before, after) if c.section in ITEM_SECTIONS and c.op == "-"}
        if event not in REMOVES_ANYTHING:
            allowed = pruned | ({tr.get("Cogit-Item")} if event in REMOVES_ITEM else set())
            for r in sorted(removed - allowed):
                problems.append(f"{where}: removed {r} without naming it (event {event}, Cogit-Pruned {sorted(pruned)})")
    if branch == git.MAIN and after.get("config") is not None and event != "merge":
        limits = caps(after["config"])
        for section in ITEM_SECTIONS:
            n, cap = len((after.get(section) or {}).get("items") or []), limits.get(section)
            if cap is not None and n > cap:
                problems.append(f"{where}: {section} holds {n} items, over its cap of {cap}")
    return problems


def check_memory(path, max_commits: int | None = None, deadline: float | None = None) -> tuple[int, list[str]]:
    """(commits checked, problems) for the memory repository at `path`; it stops at
    `deadline` (time.monotonic()), so one home with many long branches cannot hold the
    whole walk."""
    repo = git.open_repo(path)
    try:
        memo: dict = {}
        seen: set[str] = set()
        problems: list[str] = []
        for branch in git.branches(repo):
            if not (branch == git.MAIN or branch.startswith("project/")):
                continue
            commits = list(git.walk(repo, git.head(repo, branch), max_entries=max_commits))
            children = {}
            for info in commits:
                for p in info.parents:
                    children.setdefault(p, info)
            for info in commits:
                if deadline is not None and time.monotonic() > deadline:
                    return len(seen), problems
                if info.sha in seen or not info.committer.startswith("cogit <"):
                    continue
                seen.add(info.sha)
                problems += check_commit(repo, info, branch, memo)
                _, _, tr = parse(info.message)
                child = children.get(info.sha)
                if tr.get("Cogit-Event") == "project.create" and child is not None and len(child.parents) == 1:
                    ctr = parse(child.message)[2]
                    if ctr.get("Cogit-Event") != "merge":
                        for key in ("Cogit-Source", "Cogit-Agent", "Cogit-Session"):
                            if tr.get(key) != ctr.get(key):
                                problems.append(f"{info.sha[:10]} on {branch}: project.create says {key}: {tr.get(key)}, "
                                                f"the change that created the branch ({child.sha[:10]}) says {ctr.get(key)}")
        return len(seen), problems
    finally:
        repo.close()
