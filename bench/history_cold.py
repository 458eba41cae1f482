"""History where users really are: fresh clones (no caches) and rare events (issue 25 parts 1, 4).

Figures:
* `log --event init -n 20` (the event of the very first commit: the rarest, oldest one)
  at the middle and the big home against `git log --grep=init -n 20` on the same
  repository, fresh runtime folder (no recent file, no index) in every run. Target 2x.
* The first `why ID`, `log --item ID`, `search --history` and `report` on a fresh clone
  (`git clone --no-local` of the home's repository into a new home: no runtime folder at
  all) against the warm one (what the first left behind), at the big home (the middle one
  in --quick): time ratio (target 10x) and peak RSS (target 100 MB, through GNU time).
* `cogit clone` of the middle home against `git clone --no-local` of its repository, in
  CPU (user + system of the process and its children). Target 3x.

Each cogit command is a whole process, as a person runs it. The homes are bench/run's;
clones go to a temporary folder and are removed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import timing as t


def _cpu(argv, env) -> float:
    """CPU seconds (user + system) of one process and all its children, in ms."""
    before = os.times()
    subprocess.run(argv, env=env, capture_output=True, cwd=tempfile.gettempdir(), check=True)
    after = os.times()
    return (after.children_user - before.children_user + after.children_system - before.children_system) * 1000


def _fresh_clone(src: Path, where: Path) -> Path:
    if where.exists():
        shutil.rmtree(where)
    where.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", "--no-local", str(src / "memory"), str(where / "memory")], check=True,
                   capture_output=True, env=t.clean_env())
    return where


def figures(homes: dict[int, Path], quick: bool) -> list[dict]:
    small, mid, big = t.sizes(homes)
    runs, warmup = (2, 1) if quick else (7, 1)
    work = Path(tempfile.mkdtemp(prefix="cogit-bench-cold-"))
    cogit = t.cogit_argv()
    rows = []
    try:
        # log --event for the rarest event, no caches
        for n in (mid, big):
            view = work / f"event-{n}"
            t.view(homes[n], view)
            env = t.clean_env(view)

            def fresh(_n, view=view):  # every run starts with no recent file and no index
                shutil.rmtree(view / "runtime" / "cache", ignore_errors=True)
                return b""

            times = t.measure({
                "cogit log --event": ([*cogit, "log", "--event", "init", "-n", "20"], env, fresh),
                "git log --grep": ([*t.git_argv(view), "log", "--grep=init", "-n", "20"], env),
            }, runs, warmup)
            rows.append(t.row(f"`log --event init -n 20` (the oldest event) at {n:,} commits, no caches, vs "
                              "`git log --grep`", t.med(times["cogit log --event"]), t.med(times["git log --grep"]), 2,
                              method=t.method(times, list(times), warmup, "runtime/cache removed before every cogit run"),
                              note="git does the walk (rev-list --grep next to rev-list --parents, then cat-file "
                                   "of the hits); what is left is Python's start-up and cogit's imports"))

        # the first history query on a fresh clone, against the warm one (and its peak RSS): at
        # the big home (100,000 commits) in a full run, where part 4 sets its targets
        at = mid if quick else big
        m = t.manifest(homes[at])
        item = m["old_item"]
        clone = _fresh_clone(homes[at], work / "clone")
        q_runs = runs if quick else 3  # a first `search --history` at 100,000 commits takes some 20 s
        env = t.clean_env(clone)
        queries = [("why ID", ["why", item]), ("log --item ID", ["log", "--item", item]),
                   ("search --history", ["search", "--history", "lesson 42"]),
                   ("report", ["report", "--out", str(work / "report.html")])]
        for name, args in queries:
            shutil.rmtree(clone / "runtime", ignore_errors=True)
            peak = t.peak_kib([*cogit, *args], env)  # a first run: no runtime folder
            shutil.rmtree(clone / "runtime", ignore_errors=True)
            first, _ = t.run([*cogit, *args], env)
            warm = t.measure({f"warm {name}": ([*cogit, *args], env)}, q_runs, warmup)
            rows.append(t.row(f"first `{name}` on a fresh clone of {at:,} commits vs the warm one", first,
                              t.med(warm[f"warm {name}"]), 10,
                              method="one cold run (no runtime folder), then the warm runs: "
                                     + t.method(warm, [f"warm {name}"], warmup),
                              note="why / log --item: one item's history read through git (history/itemwalk.py); "
                                   "see docs/benchmarks.md"))
            if peak is not None:
                mb = peak / 1024
                rows.append({"figure": f"peak RSS of the first `{name}` on a fresh clone of {at:,} commits (MB)",
                             "cogit": round(mb, 1), "reference": None, "ratio": None, "target": "<= 100 MB",
                             "met": mb <= 100, "method": "GNU time's maximum resident set size of the cogit process "
                                                         "and of each git process it ran (the largest)"})

        # the first fold on a fresh clone: the session-end work (`cogit finalize`, which folds and
        # then indexes history for `why`) after a write, against the same after the next write
        clone = _fresh_clone(homes[at], work / "fold")
        env = t.clean_env(clone)
        n_add = iter(range(10_000))

        def write(_n):
            t.run([*cogit, "add", "learning", f"a lesson of the fold bench {next(n_add)}"], env)
            return b""

        write(0)
        peak = t.peak_kib([*cogit, "finalize", "--quiet"], env)  # the first: no index at all
        shutil.rmtree(clone, ignore_errors=True)
        clone = _fresh_clone(homes[at], work / "fold")
        write(0)
        first, _ = t.run([*cogit, "finalize", "--quiet"], env)
        warm = t.measure({"warm fold": ([*cogit, "finalize", "--quiet"], env, write)}, q_runs, warmup)
        rows.append(t.row(f"first fold (`cogit finalize` after a write) on a fresh clone of {at:,} commits vs the warm one",
                          first, t.med(warm["warm fold"]), 10,
                          method="one cold run (no runtime folder, one `add` before it), then the warm runs, an `add` "
                                 "before each: " + t.method(warm, ["warm fold"], warmup),
                          note="the session-end work indexes at most history.log.FOLD_BUDGET commits, the oldest first"))
        if peak is not None:
            rows.append({"figure": f"peak RSS of the first fold on a fresh clone of {at:,} commits (MB)",
                         "cogit": round(peak / 1024, 1), "reference": None, "ratio": None, "target": "<= 100 MB",
                         "met": peak / 1024 <= 100,
                         "method": "GNU time's maximum resident set size of `cogit finalize --quiet` and its git processes"})

        # cogit clone against git clone --no-local, CPU
        src = homes[small if quick else mid]
        n = small if quick else mid
        cpu_c, cpu_g = [], []
        for i in range(runs):
            target = work / f"cc-{i}"
            cpu_c.append(_cpu([*cogit, "clone", str(src / "memory")], t.clean_env(target)))
            shutil.rmtree(target, ignore_errors=True)
            cpu_g.append(_cpu(["git", "clone", "-q", "--no-local", str(src / "memory"), str(work / f"gc-{i}")],
                              t.clean_env()))
            shutil.rmtree(work / f"gc-{i}", ignore_errors=True)
        rows.append(t.row(f"`cogit clone` of {n:,} commits vs `git clone --no-local`, CPU", t.med(cpu_c), t.med(cpu_g), 3,
                          method=f"{runs} runs, alternating; CPU ms (user + system of the process and its children), "
                                 f"median; cogit: {sorted(round(c) for c in cpu_c)}, git: {sorted(round(c) for c in cpu_g)}",
                          note="cogit clone validates every pulled commit (sync/incoming.py) and builds its caches"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rows


if __name__ == "__main__":
    import sys

    start = time.time()
    built = {t.manifest(p)["commits"]: p for p in map(Path, sys.argv[1:])}  # python bench/history_cold.py HOME...
    for r in figures(built, quick=True):
        print(r["figure"], r["cogit"], r["reference"], r["ratio"], r["met"])
    print(f"{time.time() - start:.0f} s")
