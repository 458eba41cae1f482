"""Benchmark: memory's disk use after N commits, against what `git gc` reaches.

    python bench/storage.py [--commits 10000]

Run it with the Python cogit is installed in: it imports the installed package (the
checkout's folder is not put on sys.path). bench/run calls `figures(homes, quick)`.

It builds its own memory home the way memory grows in use, because the subject is what
the session-end work keeps it to: N commits, each written as the write path writes
objects (loose, through `store/git/repo.py`) and seeding the parse cache as the write path
does (`loader.remember`), in sessions of 10 commits, each session followed by the
housekeeping `cogit finalize` runs after a session (`store/maintain.maintain`). The
commits are those of a heavy user: a new learning each (the cap of 50 prunes the oldest),
a heuristic used every 4th, the engagement counters every 10th.

Figures: the size of `.git` (disk blocks, as `du` counts them) against a copy of the same
repository after `git gc`; the loose objects left; `runtime/cache/parsed` against its cap;
the longest reflog. One run; sizes do not depend on machine load (the build time does).
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

if __name__ == "__main__" and sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)  # import the installed package, never a module of this folder by accident

from cogit.paths import Home  # noqa: E402
from cogit.store.state import loader, yamlio  # noqa: E402
from cogit.store import maintain, memory  # noqa: E402
from cogit.store.git import repo as git  # noqa: E402
from cogit.store.git import worktree  # noqa: E402
from cogit.store.git.provenance import Provenance, message  # noqa: E402
from cogit.store.state.documents import STATE_FILES, template_text  # noqa: E402

CAP = 50
SESSION = 10
TARGET = 2.0


def _text(section: str, doc: dict) -> bytes:
    return yamlio.canonical(doc, yamlio.header_of(template_text(section))).encode()


def build(root: Path, commits: int, log=print) -> Home:
    home = Home(root)
    memory.init(home)
    repo = git.open_repo(home.memory)
    start = time.time() - commits * 600
    learnings: list[dict] = []
    heuristics = [{"id": f"h-{i:06x}", "text": f"Prefer the small change number {i} that keeps the tests green",
                   "evidence": 0, "use_count": 0, "last_used": None, "created_at": "2026-01-01T00:00:00Z",
                   "updated_at": "2026-01-01T00:00:00Z"} for i in range(20)]
    total = meaningful = 0
    try:
        sha = git.head(repo)
        t0 = time.perf_counter()
        for i in range(commits):
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start + 600 * i))
            learnings.append({"id": f"l-{i:06x}", "text": f"Lesson {i}: the build of module {i % 97} needs the "
                              f"generated headers first; run make gen before make test", "category": "insight",
                              "source": "hook", "created_at": stamp, "updated_at": stamp})
            learnings = learnings[-CAP:]
            docs = {"learnings": {"schema_version": 1, "items": list(learnings)}}
            if i % 4 == 3:
                h = heuristics[i % len(heuristics)]
                h.update(use_count=h["use_count"] + 1, last_used=stamp, updated_at=stamp)
                docs["heuristics"] = {"schema_version": 1, "items": [dict(x) for x in heuristics]}
            if i % 10 == 9:
                total, meaningful = total + 7, meaningful + 3
                docs["engagement"] = {"schema_version": 1, "meaningful_interactions": meaningful,
                                      "total_interactions": total, "last_meaningful_at": stamp}
            files = {f"{s}.yaml": _text(s, d) for s, d in docs.items()}
            for s, d in docs.items():
                loader.remember(repo, s, files[f"{s}.yaml"], d)
            prov = Provenance(event="learning.add", source="hook", agent="bench", session=f"s-{i // SESSION}")
            sha = git.commit(repo, git.MAIN, files, message(f"Add learning l-{i:06x}", "", prov),
                             prov.author_line(), git.machine_committer(repo), sha, when=int(start + 600 * i))
            if i % SESSION == SESSION - 1:
                maintain.maintain(home)  # what `cogit finalize` does after each session
            if log and i and i % 2000 == 0:
                log(f"  {i:,} commits ({i / (time.perf_counter() - t0):.0f}/s)")
        worktree.sync_worktree(repo, home.memory, git.read_files(repo, sha), STATE_FILES)
        worktree.reset_index(repo, home.memory, sha, STATE_FILES)
    finally:
        repo.close()
    return home


def disk_usage(path: Path) -> int:
    """Bytes of disk blocks under `path`, as `du` counts them (a small file takes a block)."""
    total = 0
    for dirpath, _, names in os.walk(path):
        for name in names:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
            except OSError:
                pass
    return total


def _git_env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    return env


def measure(commits: int, log=print) -> dict:
    root = Path(tempfile.mkdtemp(prefix="cogit-bench-storage-"))
    try:
        t0 = time.perf_counter()
        home = build(root / "home", commits, log)
        built = time.perf_counter() - t0
        dot_git = home.memory / ".git"
        copy = root / "gc.git"
        shutil.copytree(dot_git, copy, symlinks=True)
        subprocess.run(["git", "--git-dir", str(copy), "gc", "--quiet"], check=True, env=_git_env())
        logs = dot_git / "logs"
        reflog = max((sum(1 for _ in open(os.path.join(d, n), "rb")) for d, _, ns in os.walk(logs) for n in ns), default=0)
        fsck = subprocess.run(["git", "--git-dir", str(dot_git), "fsck", "--strict"], capture_output=True,
                              env=_git_env()).returncode == 0
        return {"commits": commits, "built_s": built, "size": disk_usage(dot_git), "gc_size": disk_usage(copy),
                "loose": maintain.loose_count(home), "packs": maintain.pack_count(home),
                "cache": disk_usage(home.runtime / "cache" / "parsed"), "reflog": reflog, "fsck": fsck}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def figures(homes: dict[int, Path], quick: bool) -> list[dict]:
    """bench/run's interface. Builds its own home (see the module's docstring); `homes` is not used."""
    r = measure(300 if quick else 10_000, log=None)
    n = f"{r['commits']:,}"
    how = (f"one run; own home of {n} commits in sessions of {SESSION}, housekeeping after each as "
           f"`cogit finalize` does (built in {r['built_s']:.0f}s); ")
    ratio = r["size"] / r["gc_size"]
    mib = 1024 * 1024
    return [
        {"figure": f".git size after {n} commits (MiB, du)", "cogit": round(r["size"] / mib, 2),
         "reference": round(r["gc_size"] / mib, 2), "ratio": round(ratio, 2), "target": f"<= {TARGET:g}x git gc",
         "met": ratio <= TARGET and r["fsck"],
         "method": how + "reference: a copy of the same .git after `git gc`" + ("" if r["fsck"] else "; FSCK FAILED")},
        {"figure": f"loose objects after {n} commits", "cogit": r["loose"], "reference": maintain.LOOSE_LIMIT,
         "ratio": round(r["loose"] / maintain.LOOSE_LIMIT, 2), "target": "<= the packing threshold",
         "met": r["loose"] <= maintain.LOOSE_LIMIT, "method": how + f"{r['packs']} pack(s); reference: LOOSE_LIMIT"},
        {"figure": f"runtime/cache/parsed after {n} commits (MiB)", "cogit": round(r["cache"] / mib, 2),
         "reference": round(maintain.CACHE_BYTES / mib, 2), "ratio": round(r["cache"] / maintain.CACHE_BYTES, 2),
         "target": "<= its cap", "met": r["cache"] <= maintain.CACHE_BYTES, "method": how + "reference: CACHE_BYTES"},
        {"figure": f"longest reflog after {n} commits (entries)", "cogit": r["reflog"],
         "reference": 2 * maintain.REFLOG_KEEP, "ratio": round(r["reflog"] / (2 * maintain.REFLOG_KEEP), 2),
         "target": "<= 2x REFLOG_KEEP", "met": r["reflog"] <= 2 * maintain.REFLOG_KEEP,
         "method": how + "trimmed to REFLOG_KEEP once past twice that"},
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commits", type=int, default=10_000)
    args = parser.parse_args()
    r = measure(args.commits)
    mib = 1024 * 1024
    print(f"cogit storage benchmark: {r['commits']:,} commits in sessions of {SESSION} "
          f"(built in {r['built_s']:.0f}s; git fsck --strict {'passes' if r['fsck'] else 'FAILS'})\n")
    print(f"{'figure':<40} {'cogit':>12} {'reference':>12} {'ratio':>7}")
    print(f"{'.git size (MiB, du)':<40} {r['size'] / mib:>12.2f} {r['gc_size'] / mib:>12.2f} {r['size'] / r['gc_size']:>7.2f}"
          f"   (reference: git gc; target <= {TARGET:g}x)")
    print(f"{'loose objects / packs':<40} {r['loose']:>12} {r['packs']:>12}")
    print(f"{'runtime/cache/parsed (MiB)':<40} {r['cache'] / mib:>12.2f} {maintain.CACHE_BYTES / mib:>12.2f}   (cap)")
    print(f"{'longest reflog (entries)':<40} {r['reflog']:>12} {2 * maintain.REFLOG_KEEP:>12}   (bound)")
    return 0 if r["fsck"] and r["size"] <= TARGET * r["gc_size"] else 1


if __name__ == "__main__":
    sys.exit(main())
