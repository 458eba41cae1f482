"""Cold commands: a whole `cogit ...` process against `python -c pass`, same Python.

Targets: `show`, `status` and `log -n 20` at most 4x `python -c pass` (issue 25 part 3;
they answer without click, cogit/quickcli.py); `why ID`, `diff` and `rules` at most 5x
(issue 25); `log --event E -n 20` and `--help` at most 5x (issue 11); `add` at most 8x.
Run in the smallest benchmark home
(the commands do not grow with history; bench/query.py checks that). `add` writes,
so it runs in a copy, each run adding a new learning (a real commit every time).
Peak memory (GNU time's max RSS) is reported for each.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import timing as t


NOTES = {
    "add": "answered without click (cogit/quickcli.py); the floor is dulwich's repository layer "
           "(`import dulwich.repo, dulwich.index` is ~4x `python -c pass` by itself, see the floors below) "
           "plus the whole write path (lock, absorb hand edits, apply, caps, dedupe, redact, validate, "
           "canonical YAML, commit, working tree and index, digest, snapshot); it imports neither "
           "jsonschema nor ruamel.yaml. Under 8x would take a write path without dulwich's repository layer",
    "diff": "answered without click (cogit/quickcli.py): the last commit's changes from the history index "
            "(the full path indexes a head a few commits away, so the run after a write reads it there too)",
    "rules": "answered without click (cogit/quickcli.py): from the snapshots when no scope has a rule; "
             "with rules, the full path (click and dulwich: each rule's ledger is read from history)",
}


def figures(homes: dict[int, Path], quick: bool) -> list[dict]:
    small = t.sizes(homes)[0]
    runs, warmup = (2, 1) if quick else (20, 2)
    work = Path(tempfile.mkdtemp(prefix="cogit-bench-cold-"))
    home = t.view(homes[small], work / "read")
    writable = t.copy(homes[small], work / "write")
    m = t.manifest(homes[small])
    event, item = m["event"], m["old_item"]
    cogit = t.cogit_argv()
    env, wenv = t.clean_env(home), t.clean_env(writable)
    counter = iter(range(10**9))
    variants = {
        "python -c pass": ([sys.executable, "-c", "pass"], env),
        "--help": ([*cogit, "--help"], env),
        "show": ([*cogit, "show"], env),
        "status": ([*cogit, "status"], env),
        "log -n 20": ([*cogit, "log", "-n", "20"], env),
        f"log --event {event} -n 20": ([*cogit, "log", "--event", event, "-n", "20"], env),
        "why ID": ([*cogit, "why", item], env),
        "diff": ([*cogit, "diff"], env),
        "rules": ([*cogit, "rules"], env),
    }
    targets = {"show": 4, "status": 4, "log -n 20": 4}
    times = t.measure(variants, runs, warmup)
    # add: its own round robin with pass (each run a new learning, so a real commit)
    add_times: dict[str, list[float]] = {"python -c pass": [], "add": []}
    for n in range(warmup + runs):
        for name in add_times:
            argv = [sys.executable, "-c", "pass"] if name != "add" else [*cogit, "add", "learning",
                                                                         f"cold add number {next(counter)}"]
            ms, _ = t.run(argv, wenv)
            if n >= warmup:
                add_times[name].append(ms)
    base = t.med(times["python -c pass"])
    rows = []
    for name in variants:
        if name == "python -c pass":
            continue
        kib = t.peak_kib(variants[name][0], variants[name][1])
        rows.append(t.row(f"cold `{name}` vs `python -c pass`", t.med(times[name]), base, targets.get(name, 5),
                          method=t.method(times, ["python -c pass", name], warmup,
                                          f"home of {small:,} commits; peak memory {kib / 1024:.1f} MB" if kib else ""),
                          note=NOTES.get(name, "the floor: Python with the console script (which imports `re`) "
                                               "and click; see the floors and import profiles below")))
    kib = t.peak_kib([*cogit, "add", "learning", "cold add peak"], wenv)
    rows.append(t.row("cold `add learning` vs `python -c pass`", t.med(add_times["add"]), t.med(add_times["python -c pass"]), 8,
                      method=t.method(add_times, ["python -c pass", "add"], warmup,
                                      "a new learning per run (one commit each)" + (f"; peak memory {kib / 1024:.1f} MB" if kib else "")),
                      note=NOTES["add"]))
    return rows
