"""History queries at scale: `why`, `log --item`, `log -n 20`, `log --event E -n 20`, `status`.

Targets (issue 11): `why ID` and `log --item ID` at 10,000 commits at most 2x
`git log --grep=ID` on the same repository; `log -n 20`, `log --event E -n 20` and
`status` the same within 20% at 100 and at 100,000 commits. Each command is a whole
process (the console script), as a person runs it. ID is the benchmark home's old
heuristic (added in the first commits, used every 97 commits since); E is `focus.set`
(about one commit in seven). The homes are used through `timing.view`: the repository
as built, with a fresh runtime folder: the first `why` reads the item through git, then
the session-end work (`cogit finalize`) runs until the item index is whole, as it is in
real use, and the warm queries read it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import timing as t


def figures(homes: dict[int, Path], quick: bool) -> list[dict]:
    small, mid, big = t.sizes(homes)
    runs, warmup = (2, 1) if quick else (15, 2)
    work = Path(tempfile.mkdtemp(prefix="cogit-bench-query-"))
    views = {n: t.view(homes[n], work / f"home-{n}") for n in (small, mid, big)}
    cogit = t.cogit_argv()
    rows = []

    # why / log --item at the middle size, against git log --grep
    m = t.manifest(homes[mid])
    item, home = m["old_item"], views[mid]
    env = t.clean_env(home)
    first, _ = t.run([*cogit, "why", item], env)  # reads the item through git: the index is the session ends' work
    rows.append(t.row(f"first `why ID` at {mid:,} commits (no item index yet)", first, None, None,
                      method="one run, fresh runtime folder: the item's history read through git "
                             "(store/history/itemwalk.py); the item index is built by the session-end work"))
    idx = home / "runtime" / "cache" / "history.idx"
    ends, spent, size = 0, 0.0, -1
    while size != (idx.stat().st_size if idx.exists() else 0) and ends < 500:
        size = idx.stat().st_size if idx.exists() else 0
        ms, _ = t.run([*cogit, "finalize", "--quiet"], env)  # the session-end work: indexes FOLD_BUDGET commits
        ends, spent = ends + 1, spent + ms
    rows.append(t.row(f"session ends that index a fresh history of {mid:,} commits (count)", ends - 1, None, None,
                      method=f"`cogit finalize --quiet` run until history.idx stops growing ({spent / 1000:.1f} s in "
                             "all); each indexes at most history.log.FOLD_BUDGET commits, the oldest first, so no "
                             "session end after a fresh clone diffs the whole history"))
    times = t.measure({
        "cogit why": ([*cogit, "why", item], env),
        "cogit log --item": ([*cogit, "log", "--item", item], env),
        "git log --grep": ([*t.git_argv(home), "log", f"--grep={item}"], env),
    }, runs, warmup)
    meth = t.method(times, list(times), warmup)
    ref = t.med(times["git log --grep"])
    note = ("below the floor of a Python process: `git log --grep` over a packed repository costs about what "
            "`python -c pass` does, while `cogit --version` (Python, the console script's `re`, click) alone costs "
            "several times that, and reading commits needs dulwich (see the floors under profiles). What cogit adds "
            "on top is the item index: read, walked and filtered in one pass (in-process profile below)")
    rows.append(t.row(f"`why ID` at {mid:,} commits vs `git log --grep=ID`", t.med(times["cogit why"]), ref, 2,
                      method=meth, note=note))
    rows.append(t.row(f"`log --item ID` at {mid:,} commits vs `git log --grep=ID`", t.med(times["cogit log --item"]), ref, 2,
                      method=meth, note=note))

    # growth from the small to the big home: the same commands, side by side
    event = m["event"]
    groups = {
        "log -n 20": ["log", "-n", "20"],
        f"log --event {event} -n 20": ["log", "--event", event, "-n", "20"],
        "status": ["status"],
    }
    for label, args in groups.items():
        variants = {f"{n:,} commits": ([*cogit, *args], t.clean_env(views[n])) for n in (small, big)}
        if label == "log -n 20":
            variants[f"git log -n 20 at {big:,}"] = ([*t.git_argv(views[big]), "log", "-n", "20"], t.clean_env())
        times = t.measure(variants, runs, warmup)
        a, b = t.med(times[f"{small:,} commits"]), t.med(times[f"{big:,} commits"])
        rows.append(t.row(f"`{label}` at {big:,} vs {small:,} commits", b, a, 1.2,
                          method=t.method(times, list(times), warmup, "reference: the same command at the small home"),
                          note="see the profiles: the command reads the same few objects whatever the history"))
        if label == "log -n 20":
            g = t.med(times[f"git log -n 20 at {big:,}"])
            rows.append(t.row(f"`log -n 20` at {big:,} commits vs `git log -n 20`", b, g, None,
                              method="the same runs; no target (reported: most of it is Python start-up)"))
    return rows
