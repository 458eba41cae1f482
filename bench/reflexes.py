"""Hook speed with reflexes on (issue 23), as ratios against `python -c pass` in one run.

A memory home learns one error_loop rule from a real session (the hooks, then `cogit
finalize`: the write path writes the reflex table beside the digest cache). Then, round
robin with `python -c pass`, with the exact command `cogit install claude` writes:

- a PreToolUse that gives nothing (a command no rule is about, in a memory with rules),
- a PreToolUse that gives a reflex (the command the rule is about; a fresh session each
  round, since a reflex is given once per episode),
- a PostToolUseFailure whose error matches the rule (fresh session each round: the
  first-failure reflex),
- and, for comparison, the same PreToolUse and PostToolUseFailure in a memory without rules
  (no reflex table): what the reflex itself costs (target 1.2x).

Target: each at most 1.5x `python -c pass`, like every other hook event (bench/hooks.py).
Figures are the CPU time (user + system) of each process, as in bench/hooks_real.py.

    python bench/run --only reflexes      (or python bench/reflexes.py, which does that)
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

SID = "bench-reflex-4b7e-9d0a-2f1c3e5b7a90"
CMD = "python3 app.py"
FIX = "PYTHONPATH=src python3 app.py"
ERR = ("Exit code 1\nTraceback (most recent call last):\n  File \"/tmp/app.py\", line 1, in <module>\n"
       "ModuleNotFoundError: No module named 'dih_helpers'")


def _body(event: str, sid: str, n: int, **fields) -> bytes:
    body = {"session_id": sid, "cwd": "/tmp", "hook_event_name": event, "permission_mode": "default"}
    body.update(fields)
    return json.dumps(body).encode()


def pre(sid: str, n: int, cmd: str) -> bytes:
    return _body("PreToolUse", sid, n, tool_name="Bash", tool_input={"command": cmd, "description": "run"}, tool_use_id=f"p{n}")


def failure(sid: str, n: int, cmd: str = CMD) -> bytes:
    return _body("PostToolUseFailure", sid, n, tool_name="Bash", tool_input={"command": cmd, "description": "run"},
                 tool_use_id=f"f{n}", error=ERR, is_interrupt=False, duration_ms=20)


def learn(home: Path, py: str) -> Path:
    """A home whose memory learned the rule `When python3 app.py fails ..., run FIX instead`."""
    import timing as t
    from cogit.launch import hook_argv

    env = t.clean_env(home)
    t.run(t.cogit_argv() + ["init"], env)
    sid = SID + "-learn"
    for n in range(3):
        t.run(hook_argv("claude", "PostToolUseFailure", py), env, failure(sid, n))
    ok = _body("PostToolUse", sid, 9, tool_name="Bash", tool_input={"command": FIX, "description": "run"}, tool_use_id="ok",
               duration_ms=20, tool_response={"stdout": "app ran", "stderr": "", "interrupted": False})
    t.run(hook_argv("claude", "PostToolUse", py), env, ok)
    t.run(hook_argv("claude", "SessionEnd", py), env, _body("SessionEnd", sid, 0, reason="other"))
    t.run(t.cogit_argv() + ["finalize"], env)
    table = home / "runtime" / "digest" / "main.reflex.json"
    rules = json.loads(table.read_text())["rules"] if table.exists() else []
    if not rules or rules[0].get("fix") != FIX:
        raise RuntimeError(f"the bench home learned no reflex: {rules}")
    return home


def _measure_cpu(variants: dict, runs: int, warmup: int) -> dict[str, list[float]]:
    """Round robin like timing.measure, but the CPU time (user + system) of each process, as
    bench/hooks_real.py: on a shared machine wall time measures the scheduler."""
    import resource

    import timing as t

    times: dict[str, list[float]] = {k: [] for k in variants}
    for n in range(warmup + runs):
        for name, spec in variants.items():
            argv, env = spec[0], spec[1]
            data = spec[2](n) if len(spec) > 2 else b""
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t.run(argv, env, data)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if n >= warmup:
                times[name].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return times


def figures(homes: dict, quick: bool) -> list[dict]:
    """bench/run's interface (it does not use the shared homes: it needs one that learned a rule)."""
    import compileall
    import importlib.util

    import timing as t
    from cogit.launch import hook_argv

    compileall.compile_dir(str(Path(importlib.util.find_spec("cogit").origin).parent), quiet=1)
    py = sys.executable
    work = Path(tempfile.mkdtemp(prefix="cogit-bench-reflexes-"))
    learned = learn(work / "learned", py)
    bare = work / "bare"
    t.run(t.cogit_argv() + ["init"], t.clean_env(bare))
    rounds, warmup = (3, 1) if quick else (30, 2)

    def hook(event, home, data):
        return (hook_argv("claude", event, py), t.clean_env(home), data)

    variants = {
        "python -c pass": ([py, "-c", "pass"], t.clean_env(bare)),
        "PreToolUse, no rules (no reflex table)": hook("PreToolUse", bare, lambda n: pre(f"{SID}-bare-{n}", n, CMD)),
        "PreToolUse that gives nothing (rules, none about this command)":
            hook("PreToolUse", learned, lambda n: pre(f"{SID}-quiet-{n}", n, "ls -la src")),
        "PreToolUse that gives a reflex": hook("PreToolUse", learned, lambda n: pre(f"{SID}-pre-{n}", n, CMD)),
        "PostToolUseFailure matching a rule (first-failure reflex)":
            hook("PostToolUseFailure", learned, lambda n: failure(f"{SID}-fail-{n}", n)),
        "PostToolUseFailure, no rules": hook("PostToolUseFailure", bare, lambda n: failure(f"{SID}-bfail-{n}", n)),
    }
    # Each variant must do what its name says, once, before it is timed.
    checks = {"PreToolUse that gives a reflex": True, "PostToolUseFailure matching a rule (first-failure reflex)": True,
              "PreToolUse that gives nothing (rules, none about this command)": False,
              "PreToolUse, no rules (no reflex table)": False, "PostToolUseFailure, no rules": False}
    for name, gives in checks.items():
        argv, env, data = variants[name]
        _, proc = t.run(argv, env, data(10_000))
        if ("[cogit:reflex]" in proc.stdout.decode()) != gives:
            raise RuntimeError(f"{name}: unexpected reply {proc.stdout[:300]!r}")
    times = _measure_cpu(variants, rounds, warmup)
    base = t.med(times["python -c pass"])
    rows = []
    for name in [k for k in variants if k != "python -c pass"]:
        argv, env, data = variants[name]
        kib = t.peak_kib(argv, env, data(rounds + warmup + 1)) or 0
        rows.append(t.row(f"hook {name} vs `python -c pass`", t.med(times[name]), base, 1.5,
                          method=t.method(times, ["python -c pass", name], warmup,
                                          f"the exact command `cogit install claude` writes; a memory that learned one "
                                          f"error_loop rule from a real session; peak memory {kib / 1024:.1f} MB")))
    # What the reflex itself costs: the same events without a reflex table.
    for with_, without in (("PreToolUse that gives a reflex", "PreToolUse, no rules (no reflex table)"),
                           ("PostToolUseFailure matching a rule (first-failure reflex)", "PostToolUseFailure, no rules")):
        rows.append(t.row(f"hook {with_} vs the same event in a memory without rules", t.med(times[with_]), t.med(times[without]), 1.2,
                          method=t.method(times, [without, with_], warmup, "the reflex's own cost: the table read, the match, the receipt")))
    return rows


if __name__ == "__main__":
    # The table comes from bench/run.
    sys.exit(subprocess.call([sys.executable, str(Path(__file__).with_name("run")), "--only", "reflexes", *sys.argv[1:]]))
