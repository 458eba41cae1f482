"""Repository damage doctor repairs: a pack without its index (rebuilt from the pack), and a
branch or HEAD at a commit that is not in the repository (moved back to the newest whole
commit its reflog, the history index or a remote-tracking ref knows). Neither repair drops
anything the repository still holds, so neither wants `--yes`.

Runs first, before every other check: they all read commits, and fail while this is broken.
"""

from __future__ import annotations

from cogit.checks import Finding
from cogit.errors import CogitError


def check_damage(home, fix: bool) -> list[Finding]:
    from cogit.store.git.damage import diagnose

    damage = diagnose(home.memory)
    if not damage:
        return [Finding("repair", "ok", "every pack has its index; every branch and HEAD name a commit that is there")]
    if not fix:
        return [Finding("repair", "fail", f"the repository is damaged: {damage.describe()}",
                        "`cogit doctor --fix` repairs it: a pack's index is rebuilt from the pack, a branch goes back "
                        "to the newest whole commit its reflog or the history index knows.",
                        extra={"packs": [p.name for p in damage.packs], "refs": damage.broken,
                               "head": damage.detached_head})]
    from cogit.store.write.transact import memory_lock

    try:
        with memory_lock(home, timeout=10):  # no writer moves a branch meanwhile
            return _repair(home, damage)
    except CogitError as e:
        return [Finding("repair", "fail", f"could not repair: {e.message}", e.hint or "")]


def _repair(home, damage) -> list[Finding]:
    from cogit.store.git import damage as dmg
    from cogit.store.git import repo as git

    out = []
    for pack in damage.packs:
        try:
            count = dmg.rebuild_index(pack)
            out.append(Finding("repair", "fixed", f"rebuilt the index of {pack.name} from the pack ({count} objects)",
                               extra={"pack": pack.name, "objects": count}))
        except Exception as e:  # noqa: BLE001 - a torn pack cannot be indexed
            out.append(Finding("repair", "fail", f"{pack.name} cannot be indexed: {type(e).__name__}: {str(e)[:200]}",
                               f"The pack itself is damaged. Move it out of {pack.parent} and run `cogit doctor` again; "
                               "with a remote, `cogit pull` brings back what it held."))
    # Packs first: a branch may only look broken because its commit sat in an unindexed pack;
    # while one cannot be read, no branch is moved (its commits may be in it).
    damage = dmg.diagnose(home.memory)
    if damage.packs:
        return out
    repo = git.open_repo(home.memory)
    try:
        for ref, missing in sorted(damage.broken.items()):
            out.append(_move_back(home, repo, ref, missing))
        if damage.detached_head:
            out.append(_reattach(home, repo, damage.detached_head))
    finally:
        repo.close()
    return out


def _move_back(home, repo, ref: str, missing: str) -> Finding:
    from cogit.store.git import damage as dmg
    from cogit.store.git import repo as git
    from cogit.store.git import worktree
    from cogit.store.state.documents import STATE_FILES
    from cogit.store.write.transact import dirty_files

    branch = ref.removeprefix("refs/heads/")
    chosen = dmg.best(repo, dmg.candidates(repo, home.memory / ".git", ref, home.runtime / "cache"))
    if chosen is None:
        return Finding("repair", "fail", f"{branch} points at {dmg.target(missing)}, and no whole commit "
                                         "of it is known (no reflog entry, history index entry or remote ref)",
                       "With a remote: move the memory folder away and `cogit clone URL`; else restore "
                       f"{home.memory} from a backup (or `git -C {home.memory} fsck --lost-found` to look for commits).",
                       extra={"ref": ref, "missing": missing})
    sha, where = chosen
    if not dmg.move_ref(repo, home.memory / ".git", ref, missing, sha):
        return Finding("repair", "fail", f"{branch} moved while doctor repaired it", "Run `cogit doctor` again.")
    kept = ""
    if git.checked_out_branch(repo) == branch:
        # The index still describes the missing commit; from the chosen one's tree, what the
        # working tree holds beyond it (the missing commit's files, as cogit wrote them) shows
        # as a hand edit, which `cogit commit` (or any write) keeps.
        worktree.reset_index(repo, home.memory, sha, STATE_FILES)
        if dirty_files(home, repo):
            kept = "; the working tree still holds the missing commit's files: they wait as a hand edit, " \
                   "`cogit commit` keeps them"
    lost = ("; the missing commit itself is not in this repository (with a remote, `cogit pull` brings back "
            "what was pushed)") if dmg.is_sha(missing) else ""
    info = repo[sha.encode()]
    summary = info.message.decode("utf-8", "replace").split("\n", 1)[0][:80]
    return Finding("repair", "fixed",
                   f"{branch} pointed at {dmg.target(missing)}; it is back at {sha[:12]} (\"{summary}\"), "
                   f"the newest whole commit, found in {where}{lost}{kept}",
                   extra={"ref": ref, "missing": missing, "chosen": sha, "source": where})


def _reattach(home, repo, missing: str) -> Finding:
    """HEAD names a missing commit: it names main again. While HEAD was detached, cogit's
    writes to main left the working tree as it was, so it is brought to main's files; a file
    that differed is kept in runtime/rejected/ first (it may hold a hand edit)."""
    import os
    import time

    from cogit.store.git import damage as dmg
    from cogit.store.git import repo as git
    from cogit.store.git import worktree
    from cogit.store.state.documents import STATE_FILES

    dmg.reattach_head(repo, git.MAIN)
    head = git.head(repo, git.MAIN)
    if not head or not dmg.whole(repo, head):
        return Finding("repair", "fixed", f"HEAD named {dmg.target(missing)}; it names the branch "
                                          f"{git.MAIN} again")
    files = git.read_files(repo, head)
    current = worktree.worktree_files(home.memory, sorted(STATE_FILES))
    kept = []
    for name, data in sorted(current.items()):
        if data is not None and data != files.get(name):
            home.rejected.mkdir(mode=0o700, parents=True, exist_ok=True)
            path = home.rejected / f"{name}.detached.{time.strftime('%Y%m%dT%H%M%S')}"
            with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
                f.write(data)
            kept.append(str(path))
    worktree.sync_worktree(repo, home.memory, {n: files.get(n) for n in STATE_FILES}, STATE_FILES)
    note = (f"; the working tree now holds {git.MAIN}'s files, and a copy of each file that differed is kept in "
            f"{home.rejected} ({', '.join(os.path.basename(k) for k in kept)})") if kept else ""
    return Finding("repair", "fixed", f"HEAD named {dmg.target(missing)}; it names the branch "
                                      f"{git.MAIN} again at {head[:12]}{note}", extra={"kept": kept})
