"""Cold commands: a whole `cogit ...` process against `python -c pass`, same Python.

Targets: `show`, `status` and `log -n 20` at most 4x `python -c pass` (issue 25 part 3;
they answer without click, cogit/quickcli.py); `why ID`, `diff` and `rules` at most 5x
(issue 25); `log --event E -n 20` and `--help` at most 5x (issue 11); `add` at most 8x.
`rules` also runs in a copy with a few learned rules and their evidence (`learned`), so
its ledger path is measured, not only the home without rules. Run in the smallest benchmark home
(the commands do not grow with history; bench/query.py checks that). `add` writes,
so it runs in a copy, each run adding a new learning (a real commit every time).
Peak memory (GNU time's max RSS) is reported for each.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import timing as t


NOTES = {
    "add": "answered without click (cogit/quickcli.py) and without dulwich: the write path opens memory through "
           "cogit/store/git/lite.py (objects, refs, reflog, index with the standard library), the same function "
           "(lock, absorb hand edits, apply, caps, dedupe, redact, validate, canonical YAML, commit, working tree "
           "and index, digest, snapshot); it imports neither jsonschema, ruamel.yaml nor dulwich",
    "diff": "answered without click (cogit/quickcli.py): the last commit's changes from the history index "
            "(the full path indexes a head a few commits away, so the run after a write reads it there too)",
    "rules": "answered without click (cogit/quickcli.py): the bench home has no rule, so this reads only the snapshots",
    "rules with learned rules": "answered without click or dulwich (cogit/quickrules.py): the rules from the snapshots, "
                                "every scope's ledger and the measured effect's controls from the history index's records "
                                "(each commit reachable from the heads: a longer history reads more records)",
}
ERR = "Exit code 1\nModuleNotFoundError: No module named 'widgets'"


def _hook(cogit: list[str], env: dict, sid: str, event: str, **fields) -> None:
    body = {"session_id": sid, "transcript_path": f"/tmp/{sid}.jsonl", "cwd": "/tmp", "hook_event_name": event, **fields}
    t.run([*cogit, "hook", "claude", event], env, stdin=json.dumps(body).encode())


def learned(home: Path, cogit: list[str], env: dict) -> None:
    """A few learned rules with evidence, through cogit's real paths: sessions through the
    Claude Code hooks and `cogit finalize` (an error loop makes a rule and its detection; a
    session shown the rule that runs the command and works, a suppression), and a person's
    rule (`cogit add rule`). Then the history index, as the session-end work leaves it."""
    for n, (module, ok) in enumerate([("widgets", False), ("widgets", True), ("gadgets", False), ("widgets", True),
                                      ("gadgets", True), ("sprockets", False)]):
        sid = f"bench-rules-{n}"
        cmd = f"python -m {module}"
        _hook(cogit, env, sid, "SessionStart", source="startup")
        _hook(cogit, env, sid, "UserPromptSubmit", prompt=f"Fix the import of the {module} module please")
        for i in range(1 if ok else 3):
            if ok:
                _hook(cogit, env, sid, "PostToolUse", tool_name="Bash", tool_input={"command": cmd}, tool_use_id=f"t{i}",
                      tool_response={"stdout": "ok", "stderr": "", "interrupted": False}, duration_ms=30)
            else:
                _hook(cogit, env, sid, "PostToolUseFailure", tool_name="Bash", tool_input={"command": cmd}, tool_use_id=f"t{i}",
                      error=ERR.replace("widgets", module), is_interrupt=False, duration_ms=30)
        _hook(cogit, env, sid, "SessionEnd", reason="prompt_input_exit")
        t.run([*cogit, "finalize"], env)
    # (after the sessions: a person's general error_loop rule would take every loop's detection)
    t.run([*cogit, "add", "rule", "Read the error message before running the command again", "--detector", "error_loop"], env)
    t.run([*cogit, "why", "l-000000"], env)  # the whole history index (cogit/store/history/log.catch_up's work)
    rows = json.loads(t.run([*cogit, "rules", "--json"], env)[1].stdout)
    if len(rows) < 2 or not any(r["detections"] for r in rows) or not any(r["suppressions"] for r in rows):
        raise RuntimeError(f"the learned-rules home has no ledger to read: {rows}")


def figures(homes: dict[int, Path], quick: bool) -> list[dict]:
    small = t.sizes(homes)[0]
    runs, warmup = (2, 1) if quick else (20, 2)
    work = Path(tempfile.mkdtemp(prefix="cogit-bench-cold-"))
    home = t.view(homes[small], work / "read")
    writable = t.copy(homes[small], work / "write")
    ruled = t.copy(homes[small], work / "rules")
    m = t.manifest(homes[small])
    event, item = m["event"], m["old_item"]
    cogit = t.cogit_argv()
    env, wenv, renv = t.clean_env(home), t.clean_env(writable), t.clean_env(ruled)
    learned(ruled, cogit, renv)
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
        "rules with learned rules": ([*cogit, "rules"], renv),
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
        label = "`rules` with learned rules" if name == "rules with learned rules" else f"`{name}`"
        rows.append(t.row(f"cold {label} vs `python -c pass`", t.med(times[name]), base, targets.get(name, 5),
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
