"""Benchmark: sync two machines that each hold N new commits, against `git fetch`.

    .venv/bin/python bench/sync.py [--commits 1000]

Machine A starts memory and pushes it to a bare repository on disk; machine B clones
it. Then each machine makes N commits of its own (one new learning each, as agent
sessions would, with the learnings cap pruning the oldest; every 10th commit also
folds a session into engagement.yaml). Then they sync until both are identical:

    A sync   pull (nothing new), push A's N commits
    B sync   fetch A's N commits, validate them, merge, push B's N + the merge
    A sync   fetch B's N + 1 commits, validate them, fast-forward

The baseline is plain `git fetch` of the very same commits, in the same run, into a
git clone made before the machines diverged: once after A's push, once after B's.
The commits are written through the object layer (not `cogit add`), because the
subject is sync, not the write path; everything is in-process, so Python start-up
is not counted. Prints a table and the ratio cogit / git.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cogit.paths import Home  # noqa: E402
from cogit.store import digest, memory, schema, yamlio  # noqa: E402
from cogit.sync import remote as sync  # noqa: E402
from cogit.store import repo as git  # noqa: E402
from cogit.store.provenance import Provenance, message  # noqa: E402
from cogit.store.state import STATE_FILES, template_text  # noqa: E402

CAP = 50


def learnings_text(items: list[tuple[str, str, str]]) -> bytes:
    """learnings.yaml as cogit writes it (its canonical layout)."""
    doc = {"schema_version": 1, "items": [
        {"id": lid, "text": text, "category": "insight", "source": "hook", "created_at": stamp, "updated_at": stamp}
        for lid, text, stamp in items]}
    return yamlio.canonical(doc, yamlio.header_of(template_text("learnings"))).encode()


def engagement_text(total: int, meaningful: int) -> bytes:
    doc = {"schema_version": 1, "meaningful_interactions": meaningful, "total_interactions": total,
           "last_meaningful_at": None}
    return yamlio.canonical(doc, yamlio.header_of(template_text("engagement"))).encode()


def make_commits(home: Home, who: str, n: int, start: float) -> None:
    """n commits on main, as n agent sessions would leave them (validated once up front)."""
    repo = git.open_repo(home.memory)
    try:
        sha = git.head(repo)
        items: list[tuple[str, str, str]] = []
        total = meaningful = 0
        files: dict[str, bytes] = {}
        for i in range(n):
            when = start + i
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when))
            items.append((f"l-{who}{i:05x}", f"{who} learned lesson number {i} in a long session", stamp))
            items = items[-CAP:]
            change = {"learnings.yaml": learnings_text(items)}
            if i % 10 == 9:
                total, meaningful = total + 7, meaningful + 3
                change["engagement.yaml"] = engagement_text(total, meaningful)
            if i in (0, 9):
                for name, data in change.items():
                    schema.parse(name[:-5], data, name)  # the generator writes valid memory
            prov = Provenance(event="learning.add", source="hook", agent="bench", session=f"{who}-{i}")
            sha = git.commit(repo, git.MAIN, change, message(f"Add learning {items[-1][0]}", "", prov),
                             prov.author_line(), git.machine_committer(repo), sha, when=int(when))
            files.update(change)
        git.sync_worktree(repo, home.memory, files, STATE_FILES)
        digest.refresh(home, repo, git.MAIN)
    finally:
        repo.close()


def timed(fn, *args):
    t0 = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - t0, result


def git_fetch(clone: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run(["git", "fetch", "--quiet", "origin"], cwd=clone, check=True, env=_git_env())
    return time.perf_counter() - t0


def _git_env() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commits", type=int, default=1000, help="new commits on each machine (default 1000)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="cogit-bench-sync-"))
    try:
        remote = root / "remote.git"
        subprocess.run(["git", "init", "--quiet", "--bare", "--initial-branch=main", str(remote)], check=True, env=_git_env())
        a, b = Home(root / "a"), Home(root / "b")
        memory.init(a)
        sync.add_remote(a, "origin", str(remote), str(root))
        sync.push(a)
        sync.clone(b, str(remote), str(root))
        plain = root / "plain-git"
        subprocess.run(["git", "clone", "--quiet", "--bare", str(remote), str(plain)], check=True, env=_git_env())
        subprocess.run(["git", "config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*"],
                       cwd=plain, check=True, env=_git_env())

        t0 = time.perf_counter()
        make_commits(a, "a", args.commits, time.time() - 2 * args.commits)
        make_commits(b, "b", args.commits, time.time() - 2 * args.commits + 0.5)
        setup = time.perf_counter() - t0

        rows = []
        t, _ = timed(sync.sync, a)
        rows.append(("A sync: push A's commits", t, None))
        g1 = git_fetch(plain)
        t, report = timed(sync.sync, b)
        merged = [r for r in report.pulled if r.action == "merged"]
        rows.append((f"B sync: fetch+validate+merge {args.commits}, push {args.commits + 1}", t, g1))
        g2 = git_fetch(plain)
        t, report = timed(sync.sync, a)
        rows.append((f"A sync: fetch+validate {args.commits + 1}, fast-forward", t, g2))
        same = git.open_repo(a.memory).refs[b"refs/heads/main"] == git.open_repo(b.memory).refs[b"refs/heads/main"]

        total = sum(r[1] for r in rows)
        git_total = g1 + g2
        print(f"cogit sync benchmark: two machines, {args.commits} new commits each "
              f"(generated in {setup:.1f}s; merge {'made' if merged else 'MISSING'}; "
              f"machines identical: {same})\n")
        print(f"{'step':<58} {'cogit s':>9} {'git fetch s':>12}")
        for name, t, g in rows:
            print(f"{name:<58} {t:>9.2f} {('' if g is None else f'{g:.2f}'):>12}")
        print(f"{'total':<58} {total:>9.2f} {git_total:>12.2f}")
        print(f"\nratio cogit sync / git fetch of the same commits: {total / git_total:.1f}x")
        return 0 if same and merged else 1
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
