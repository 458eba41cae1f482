"""Bring fetched branches into local memory: validate, then fast-forward or merge.

The local half of a pull (the network half is `sync/remote.py` and `sync/transport.py`). Under the memory lock:

1. every state file of every commit new to us is validated (`incoming.py`); one bad
   file refuses the whole pull, naming the commit, file, line and field, and nothing
   local changes;
2. each branch is then brought up to the remote's head: nothing to do, created,
   fast-forwarded (the ref moves, the working tree follows if it is main), or merged:
   the three states (merge base, ours, theirs) go through `merge.merge_states`, and
   the result is committed through the one write path (caps, redaction, validation,
   digest) as a commit with both parents and `Cogit-Event: merge`.

Fields both sides changed are recorded in the merge commit's message, one JSON line
each after the `[cogit-conflict]` tag, so `cogit conflicts` reads them back from
history (and plain `git log` shows them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable

from cogit.errors import Conflict
from cogit.paths import Home
from cogit.store.cache import digest
from cogit.store.git import repo as git
from cogit.store.git import remotes as git_remotes
from cogit.store.git import worktree
from cogit.store.state import yamlio
from cogit.sync import incoming
from cogit.sync.merge import FieldConflict, merge_states
from cogit.store.git.provenance import Provenance, parse
from cogit.store.state.schema import SECTIONS
from cogit.store.state.documents import STATE_FILES
from cogit.store.scopes import is_project, project_name
from cogit.store.write.transact import Change, State, absorb_hand_edits, commit_locked, load_state, memory_lock

CONFLICT_TAG = "[cogit-conflict] "
MAX_BASE_DEPTH = 4  # criss-cross merges nest virtual bases; deeper ones take the first base

Note = Callable[[str], None]
Progress = Callable[[bytes], None]


@dataclass
class BranchResult:
    branch: str
    action: str  # "up to date", "created", "fast-forward", "merged", "pushed"
    old: str | None = None
    new: str | None = None
    commits: int = 0  # commits new to the receiving side
    conflicts: list[FieldConflict] = field(default_factory=list)
    pruned: list = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "branch": self.branch, "action": self.action, "old": self.old, "new": self.new,
            "commits": self.commits, "conflicts": [conflict_json(c) for c in self.conflicts],
            "pruned": [{"section": s, "id": i.get("id"), "text": i.get("text")} for s, i in self.pruned],
        }


def syncable(branch: str) -> bool:
    """Branches that are memory: main and project/<slug> (anything else on a remote is left alone)."""
    from cogit.scope import slugify

    return branch == git.MAIN or (is_project(branch) and slugify(branch[8:]) == branch[8:])


def integrate(home: Home, remote: str, heads: dict[str, str], note: Note | None = None,
              progress: Progress | None = None) -> list[BranchResult]:
    """Bring local branches up to `heads` (branch -> fetched commit) and record them as
    the remote-tracking refs of `remote`. All or nothing if anything fails validation."""
    heads = {b: s for b, s in heads.items() if syncable(b)}
    order = sorted(heads, key=lambda b: (b != git.MAIN, b))  # main first: projects' digests read it
    with memory_lock(home):
        repo = git.open_repo(home.memory)
        try:
            absorb_hand_edits(home, repo)
            known = [s for s in [*(git.head(repo, b) for b in git.branches(repo)), *git_remotes.tracking(repo, remote).values()] if s]
            walked: dict[str, int] = {}
            incoming.validate(repo, {b: heads[b] for b in order}, known, progress, walked)
            for branch in set(git_remotes.tracking(repo, remote)) - set(heads):
                git_remotes.set_tracking(repo, remote, branch, None)  # deleted on the remote
            results = []
            for branch in order:
                git_remotes.set_tracking(repo, remote, branch, heads[branch])
                results.append(_bring(home, repo, remote, branch, heads[branch], note, walked.get(branch)))
            return results
        finally:
            repo.close()


def _bring(home: Home, repo, remote: str, branch: str, theirs: str, note: Note | None,
           count: int | None = None) -> BranchResult:
    """`count`: the commits new to this machine validation walked (None: walk here)."""
    ours = git.head(repo, branch)
    if ours == theirs:
        return BranchResult(branch, "up to date", ours, ours)
    # One walk to the merge bases answers all three: up to date, fast-forward, or merge.
    bases = git.merge_bases(repo, ours, theirs) if ours else []
    if theirs in bases:
        return BranchResult(branch, "up to date", ours, ours)
    if count is None:
        count = len(git.new_commits(repo, theirs, [ours] if ours else []))
    if ours is None or ours in bases:
        _move(home, repo, branch, ours, theirs)
        return BranchResult(branch, "created" if ours is None else "fast-forward", ours, theirs, count)
    if note:
        note(f"{branch}: merging {count} commit(s) from {remote}")
    result, merged = merge_branch(home, repo, remote, branch, ours, theirs, count, bases)
    return BranchResult(branch, "merged", ours, result.sha, count, merged.conflicts, result.pruned)


def _move(home: Home, repo, branch: str, ours: str | None, theirs: str) -> None:
    """Fast-forward (or create) a branch: compare-and-swap the ref, then the worktree and digest."""
    checked_out = git.checked_out_branch(repo) == branch
    if checked_out:
        worktree.mark_pending(home.memory, ours)  # see store/write/recover.py
    if ours is None:
        ok = git.create_branch(repo, branch, theirs)
    else:
        ok = git.set_branch(repo, branch, theirs, ours)
    if not ok:
        raise Conflict(f"branch {branch} moved while pulling", hint="Run the command again.")
    if checked_out:
        old, new = git.read_files(repo, ours), git.read_files(repo, theirs)
        worktree.sync_worktree(repo, home.memory, {n: new.get(n) for n in set(old) | set(new) if old.get(n) != new.get(n)}, STATE_FILES)
        worktree.clear_pending(home.memory)
    digest.refresh(home, repo, branch)
    redact_arrived(home, repo, branch)


def redact_arrived(home: Home, repo, branch: str) -> None:
    """A fast-forward takes the remote's commits as they are: when their state holds a
    secret (committed there by plain git, or before a pattern knew it), a commit through
    the one write path redacts it, so the current state, the working tree and the digest
    hold none (a merge is redacted by the write path already). History keeps what arrived:
    `cogit scan` names it."""
    from cogit.redact import find
    from cogit.store.state import schema
    from cogit.store.state.documents import filename

    files = git.read_files(repo, git.head(repo, branch))
    dirty = {s: files[filename(s)] for s in SECTIONS
             if files.get(filename(s)) and find(files[filename(s)].decode("utf-8", "replace"))}
    if not dirty:
        return

    def apply(state: State) -> Change:
        for section, data in dirty.items():
            state[section] = schema.parse(section, data, filename(section))
            state.raw[section] = data
        return Change(f"Redact secrets that arrived with a pull in {', '.join(filename(s) for s in dirty)}")

    name = project_name(repo, branch) if is_project(branch) else "global"
    commit_locked(home, repo, branch, Provenance(event="sync.redact", source="sync", project=name), apply)


def merge_branch(home: Home, repo, remote: str, branch: str, ours: str, theirs: str, count: int,
                 bases: list[str] | None = None):
    """Three-way merge of `theirs` into the local branch, committed with both parents."""
    base = _base_state(repo, git.merge_bases(repo, ours, theirs) if bases is None else bases, 0)
    merged = merge_states(base, _plain(repo, ours), _plain(repo, theirs))
    name = project_name(repo, branch) if is_project(branch) else "global"
    prov = Provenance(event="merge", source="sync", project=name)
    if merged.conflicts:
        prov.extra["Cogit-Conflicts"] = str(len(merged.conflicts))
    summary = f"Merge {remote}/{branch} ({count} commit(s)) into {branch}"
    body = f"Merged {remote}/{branch} at {theirs[:12]}" + ("" if base is not None else " (unrelated histories: merged as if from an empty base)") + "."
    if merged.conflicts:
        body += "\n\n" + conflict_text(merged.conflicts)

    def apply(state: State) -> Change:
        for section in SECTIONS:
            if section in merged.state:
                state[section] = yamlio.update(state[section], merged.state[section])
        return Change(summary, body=body)

    result = commit_locked(home, repo, branch, prov, apply, extra_parents=[theirs])
    return result, merged


def _plain(repo, sha: str) -> dict:
    return yamlio.plain(dict(load_state(repo, sha)))


def _base_state(repo, bases: list[str], depth: int) -> dict | None:
    """The merge base's state; several bases (criss-cross) merge into a virtual base, as git does."""
    if not bases:
        return None
    state = _plain(repo, bases[0])
    for other in bases[1:]:
        if depth >= MAX_BASE_DEPTH:
            break
        below = _base_state(repo, git.merge_bases(repo, bases[0], other), depth + 1)
        state = merge_states(below, state, _plain(repo, other)).state
    return state


# --------------------------------------------------------------------------- conflicts


def conflict_json(c: FieldConflict) -> dict:
    return {"section": c.section, "item": c.item_id, "field": c.field, "kept": c.kept,
            "kept_side": c.kept_side, "other": c.other, "reason": c.reason}


def conflict_text(conflicts: list[FieldConflict]) -> str:
    lines = [f"Conflicts ({len(conflicts)}): both sides changed these fields; each line records the value "
             "kept, the other value and why (`cogit conflicts` lists them)."]
    lines += [CONFLICT_TAG + json.dumps(conflict_json(c), ensure_ascii=False, sort_keys=True) for c in conflicts]
    return "\n".join(lines)


@dataclass
class MergeConflicts:
    sha: str
    time: int
    summary: str
    conflicts: list[dict]

    def to_json(self) -> dict:
        return {"sha": self.sha, "time": self.time, "summary": self.summary, "conflicts": self.conflicts}


def list_conflicts(home: Home, branch: str = git.MAIN, limit: int | None = None) -> list[MergeConflicts]:
    """Merge commits of `branch` that recorded conflicts, newest first."""
    from cogit.store.git.repo import open_existing

    repo = open_existing(home)
    try:
        out = []
        for info in git.walk(repo, git.head(repo, branch)):
            if len(info.parents) < 2:
                continue
            summary, body, trailers = parse(info.message)
            if trailers.get("Cogit-Event") != "merge" or CONFLICT_TAG.strip() not in body:
                continue
            found = []
            for line in body.splitlines():
                if line.startswith(CONFLICT_TAG):
                    try:
                        found.append(json.loads(line[len(CONFLICT_TAG):]))
                    except ValueError:
                        continue
            out.append(MergeConflicts(info.sha, info.time, summary, found))
            if limit and len(out) >= limit:
                break
        return out
    finally:
        repo.close()
