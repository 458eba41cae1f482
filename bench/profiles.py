"""Where the time goes: the profiles that explain the figures of bench/run.

bench/run appends `markdown(homes, quick)` to RESULTS.md. It measures floors (what a
process costs before cogit does anything), the import profile of cold commands and of
the hooks (`-X importtime`), and an in-process profile of `why` on the middle home.

    python bench/profiles.py    (prints the section for the homes bench/run built)
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import timing as t


def _imports(argv: list[str], env: dict, stdin: bytes = b"", top: int = 10) -> list[tuple[str, float, float]]:
    """(module, self ms, cumulative ms) of the top-level imports of one run, biggest first."""
    proc = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], input=stdin, capture_output=True, env=env,
                          cwd=tempfile.gettempdir())
    rows = []
    for line in proc.stderr.decode(errors="replace").splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m and len(m.group(3)) <= 1:  # top level only: cumulative times add up
            rows.append((m.group(4), int(m.group(1)) / 1000, int(m.group(2)) / 1000))
    return sorted(rows, key=lambda r: -r[2])[:top]


def _python_of(argv: list[str]) -> list[str]:
    """The console script as `python script` (so -X importtime can be given)."""
    if argv[0].endswith("cogit") and Path(argv[0]).exists():
        return [sys.executable, argv[0], *argv[1:]]
    return argv


def markdown(homes: dict[int, Path], quick: bool) -> str:
    small, mid, _ = t.sizes(homes)
    work = Path(tempfile.mkdtemp(prefix="cogit-bench-profile-"))
    home = t.view(homes[mid], work / "mid")
    env = t.clean_env(home)
    item = t.manifest(homes[mid])["old_item"]
    cogit = t.cogit_argv()
    t.run([*cogit, "why", item], env)  # the item index, as in the timed runs
    runs = 3 if quick else 10
    floors = {
        "python -c pass": ([sys.executable, "-c", "pass"], env),
        "python -c 'import click'": ([sys.executable, "-c", "import click"], env),
        "python -c 'import click, dulwich.repo'": ([sys.executable, "-c", "import click, dulwich.repo"], env),
        # what `add` cannot do without: the repository and the index of its working tree (it skips
        # click: cogit/quickcli.py); `diff` and `rules` still take click too
        "python -c 'import dulwich.repo, dulwich.index'": (
            [sys.executable, "-c", "import dulwich.repo, dulwich.index"], env),
        "python -c 'import click, dulwich.repo, dulwich.index'": (
            [sys.executable, "-c", "import click, dulwich.repo, dulwich.index"], env),
        "cogit --version": ([*cogit, "--version"], env),
        f"git log --grep=ID ({mid:,} commits)": ([*t.git_argv(home), "log", f"--grep={item}"], env),
        f"cogit why ID ({mid:,} commits)": ([*cogit, "why", item], env),
    }
    times = t.measure(floors, runs, 1)
    base = t.med(times["python -c pass"])
    out = ["", "## Where the time goes (profiles)", "",
           f"Floors, {runs} runs round robin (median ms, and × `python -c pass`):", "",
           "| process | ms | × pass |", "|---|---:|---:|"]
    out += [f"| {name} | {t.med(v):.1f} | {t.med(v) / base:.2f} |" for name, v in times.items()]
    writable = t.clean_env(t.copy(homes[small], work / "add"))
    for label, argv, stdin in (
        (f"`cogit status` ({small:,}-commit home)", [*cogit, "status"], b""),
        (f"`cogit why ID` ({mid:,}-commit home)", [*cogit, "why", item], b""),
        (f"`cogit add learning` ({small:,}-commit home, a new learning)", [*cogit, "add", "learning"], b""),
    ):
        envx = t.clean_env(t.view(homes[small], work / "small")) if "status" in label else env
        if "add" in argv:
            envx = writable
            t.run([*argv, "warm-up learning for the profile"], envx)
            argv = [*argv, "the learning whose imports are profiled"]
        t.run(argv, envx)  # warm: the parse cache and the commit counts, as in the timed runs
        rows = _imports(_python_of(argv), envx, stdin)
        out += ["", f"Top-level imports of {label} (`-X importtime`, one run; self / cumulative ms):", ""]
        out += [f"- {name}: {self_ms:.1f} / {cum:.1f}" for name, self_ms, cum in rows]
    from hooks import payload  # the hook payloads of bench/hooks.py
    from cogit.launch import hook_argv

    hook_home = t.copy(homes[small], work / "hook")
    for event, kind in (("PostToolUseFailure", "PostToolUseFailure:small"), ("UserPromptSubmit", "UserPromptSubmit")):
        argv = hook_argv("claude", event, sys.executable)
        proc = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], input=payload(kind, 10**6), capture_output=True,
                              env=t.clean_env(hook_home), cwd=tempfile.gettempdir())
        lines = proc.stderr.decode(errors="replace").splitlines()
        total = sum(int(m.group(1)) for m in (re.match(r"import time:\s+(\d+) \|", x) for x in lines) if m) / 1000
        re_line = next((x for x in lines if re.search(r"\|\s+re$", x)), None)
        re_ms = int(re.match(r"import time:\s+\d+ \|\s+(\d+)", re_line).group(1)) / 1000 if re_line else 0.0
        out += ["", f"Hook {event} (one-line payload, one run): all imports {total:.1f} ms; "
                    + (f"`re` and what it pulls in (enum, functools, the compiler): {re_ms:.1f} ms of it."
                       if re_line else "`re` is not imported.")]
    import cProfile
    import io
    import pstats

    code = ("import cProfile, sys; from cogit.cli import main; import cogit.cli.history; "
            "cProfile.run('main([\"why\", sys.argv[2]])', sys.argv[1])")
    prof = work / "why.prof"
    subprocess.run([sys.executable, "-c", code, str(prof), item], env=env, capture_output=True, cwd=tempfile.gettempdir())
    if prof.exists():
        buf = io.StringIO()
        pstats.Stats(str(prof), stream=buf).sort_stats("tottime").print_stats(8)
        body = [x for x in buf.getvalue().splitlines() if x.strip()][-9:]
        out += ["", f"In-process profile of `why ID` ({mid:,} commits, index kept; imports excluded), top 8 by own time:",
                "", "```", *body, "```"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    import importlib.machinery
    import importlib.util

    loader = importlib.machinery.SourceFileLoader("bench_run", str(Path(__file__).with_name("run")))
    spec = importlib.util.spec_from_loader("bench_run", loader)
    run = importlib.util.module_from_spec(spec)
    loader.exec_module(run)
    quick = "--quick" in sys.argv
    built, _ = run.homes(run.QUICK_SIZES if quick else run.SIZES, lambda text: print(text, file=sys.stderr))
    print(markdown(built, quick))
