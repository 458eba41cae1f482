"""Benchmark: the CPU of syncing two machines that each hold N new commits, against git.

    python bench/sync.py [--commits 1000] [--profile FILE]

Run it with the Python cogit is installed in: it imports the installed package (the
checkout's folder is not put on sys.path). bench/run calls `figures(homes, quick)`.

Machine A starts memory and pushes it to a bare repository on disk; machine B clones
it. Then each machine makes N commits of its own (one new learning each, as agent
sessions would, with the learnings cap pruning the oldest; every 10th commit also
folds a session into engagement.yaml). Then they sync until both are identical:

    A sync   pull (nothing new), push A's N commits
    B sync   fetch A's N commits, validate them, merge, push B's N + the merge
    A sync   fetch B's N + 1 commits, validate them, fast-forward

The reference is plain git moving the very same commits, in the same run, between
copies of both machines' repositories taken before they synced: `git push` of A's N,
`git fetch` of them into B's copy, `git push` of B's N (to another branch: git does not
merge memory), `git fetch` of those into A's copy. Both sides are measured as CPU time
(user + system, of this process and of every child it waited for), so other load on
the machine does not count. The commits are written through the object layer (not
`cogit add`), because the subject is sync, not the write path.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __name__ == "__main__" and sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)  # this folder holds a sync.py: never let it shadow anything of the package

from cogit.paths import Home  # noqa: E402
from cogit.store.cache import digest  # noqa: E402
from cogit.store import memory  # noqa: E402
from cogit.store.state import schema, yamlio  # noqa: E402
from cogit.store.git import repo as git  # noqa: E402
from cogit.store.git import worktree  # noqa: E402
from cogit.store.git.provenance import Provenance, message  # noqa: E402
from cogit.store.state.documents import STATE_FILES, template_text  # noqa: E402
from cogit.sync import remote as sync  # noqa: E402

CAP = 50
TARGET = 5.0


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
        worktree.sync_worktree(repo, home.memory, files, STATE_FILES)
        digest.refresh(home, repo, git.MAIN)
    finally:
        repo.close()


def cpu() -> float:
    """CPU seconds of this process and of the children it has waited for."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def cpu_of(fn, *args):
    t0 = cpu()
    result = fn(*args)
    return cpu() - t0, result


def _git_env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    return env


def _git(*args, cwd: Path | None = None) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, env=_git_env(), stdout=subprocess.DEVNULL)


def run(commits: int, profile: str | None = None) -> dict:
    """Build both machines, sync them, time git on copies; the measurements."""
    root = Path(tempfile.mkdtemp(prefix="cogit-bench-sync-"))
    try:
        remote = root / "remote.git"
        _git("init", "--quiet", "--bare", "--initial-branch=main", str(remote))
        a, b = Home(root / "a"), Home(root / "b")
        memory.init(a)
        sync.add_remote(a, "origin", str(remote), str(root))
        sync.push(a)
        sync.clone(b, str(remote), str(root))
        t0 = time.perf_counter()
        make_commits(a, "a", commits, time.time() - 2 * commits)
        make_commits(b, "b", commits, time.time() - 2 * commits + 0.5)
        setup = time.perf_counter() - t0
        # The reference's starting point: the three repositories as they are now.
        ref = root / "ref"
        for name, src in (("remote.git", remote), ("a.git", a.memory / ".git"), ("b.git", b.memory / ".git")):
            shutil.copytree(src, ref / name, symlinks=True)
        for name in ("a.git", "b.git"):
            _git("config", "core.bare", "true", cwd=ref / name)
            _git("config", "remote.origin.url", str(ref / "remote.git"), cwd=ref / name)

        profiler = None
        if profile:
            import cProfile

            profiler = cProfile.Profile(time.process_time)
            profiler.enable()
        steps = []
        t, _ = cpu_of(sync.sync, a)
        steps.append(("A sync: push A's commits", t))
        t, report = cpu_of(sync.sync, b)
        merged = [r for r in report.pulled if r.action == "merged"]
        steps.append((f"B sync: fetch+validate+merge {commits}, push {commits + 1}", t))
        t, _ = cpu_of(sync.sync, a)
        steps.append((f"A sync: fetch+validate {commits + 1}, fast-forward", t))
        if profiler:
            profiler.disable()
            profiler.dump_stats(profile)
        repo_a, repo_b = git.open_repo(a.memory), git.open_repo(b.memory)
        same = repo_a.refs[b"refs/heads/main"] == repo_b.refs[b"refs/heads/main"]
        repo_a.close()
        repo_b.close()

        t0 = cpu()
        _git("push", "--quiet", "origin", "main:main", cwd=ref / "a.git")
        _git("fetch", "--quiet", "origin", "+refs/heads/main:refs/remotes/origin/main", cwd=ref / "b.git")
        _git("push", "--quiet", "origin", "main:refs/heads/b", cwd=ref / "b.git")
        _git("fetch", "--quiet", "origin", "+refs/heads/b:refs/remotes/origin/b", cwd=ref / "a.git")
        reference = cpu() - t0
        return {"commits": commits, "setup": setup, "steps": steps, "cogit": sum(t for _, t in steps),
                "reference": reference, "merged": bool(merged), "same": same, "transport": _transport()}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _transport() -> str:
    """What `cogit sync` used: config sync.transport (auto here, or $COGIT_SYNC_TRANSPORT)."""
    from cogit.sync import transport

    return transport.choose(os.environ.get("COGIT_SYNC_TRANSPORT") or "auto")


def figures(homes: dict[int, Path], quick: bool) -> list[dict]:
    """bench/run's interface. Builds its own two machines (the homes are not used)."""
    commits = 100 if quick else 1000
    r = run(commits)
    ratio = r["cogit"] / r["reference"] if r["reference"] else float("inf")
    ok = r["merged"] and r["same"]
    return [{
        "figure": f"sync of two machines with {commits:,} new commits each (CPU s)",
        "cogit": round(r["cogit"], 2),
        "reference": round(r["reference"], 2),
        "ratio": round(ratio, 1),
        "target": f"<= {TARGET:g}x git push + fetch",
        "met": ok and ratio <= TARGET,
        "method": (f"one run; CPU (user+sys, with children) of three `cogit sync` calls in process "
                   f"(transport: {r['transport']}) vs git push+fetch+push+fetch of the same commits "
                   f"between copies of the same repositories" + ("" if ok else "; SYNC DID NOT CONVERGE")),
    }]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commits", type=int, default=1000, help="new commits on each machine (default 1000)")
    parser.add_argument("--profile", help="write a cProfile of the three syncs to this file")
    args = parser.parse_args()
    r = run(args.commits, args.profile)
    print(f"cogit sync benchmark: two machines, {r['commits']} new commits each "
          f"(generated in {r['setup']:.1f}s; merge {'made' if r['merged'] else 'MISSING'}; "
          f"machines identical: {r['same']}; transport: {r['transport']})\n")
    print(f"{'step':<58} {'CPU s':>9}")
    for name, t in r["steps"]:
        print(f"{name:<58} {t:>9.2f}")
    print(f"{'cogit total':<58} {r['cogit']:>9.2f}")
    print(f"{'git push + fetch + push + fetch of the same commits':<58} {r['reference']:>9.2f}")
    print(f"\nratio cogit sync / git: {r['cogit'] / r['reference']:.1f}x (target <= {TARGET:g}x)")
    return 0 if r["same"] and r["merged"] else 1


if __name__ == "__main__":
    sys.exit(main())
