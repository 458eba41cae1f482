"""Shared by the benchmarks of bench/run: timing processes side by side, and rows.

Every figure is measured as a ratio in one run: the variants of a figure run round robin
(A B C A B C ...) after warm-up rounds, so machine load hits all alike; the median is
reported, with the spread (25th to 75th percentile) in the method text.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def cogit_argv() -> list[str]:
    """The command users run: the console script next to this Python, else `-m cogit`."""
    script = Path(sys.executable).with_name("cogit")
    return [str(script)] if script.exists() else [sys.executable, "-m", "cogit"]


def git_argv(home: Path) -> list[str]:
    return ["git", "-C", str(home / "memory")]


def clean_env(home: Path | None = None, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "COGIT_", "PYTHON"))}
    env.update(LC_ALL="C", GIT_PAGER="cat", PAGER="cat")
    if home is not None:
        env["COGIT_HOME"] = str(home)
    env.update(extra)
    return env


def view(home: Path, where: Path) -> Path:
    """A home to run read commands in: the built home's repository (a symlink: read
    commands do not write it) with a fresh copy of its runtime folder, so caches a command
    keeps (item index, recent commits, commit counts) start empty in every run and the built home stays
    as built."""
    if where.exists():
        shutil.rmtree(where)
    where.mkdir(parents=True)
    (where / "memory").symlink_to(home / "memory")
    shutil.copytree(home / "runtime", where / "runtime", ignore=shutil.ignore_patterns("parsed", "history.idx", "history.dat",
                                                                                       "recent", "commit-counts.json"))
    return where


def settle(home: Path, timeout: float = 60.0) -> None:
    """Wait until no process runs for `home` (the detached work a hook started: its argv
    names the home): a copy taken meanwhile can catch a session folder half removed."""
    end = time.monotonic() + timeout
    while subprocess.run(["pgrep", "-f", str(home)], capture_output=True).returncode == 0:
        if time.monotonic() > end:
            raise RuntimeError(f"the detached work of {home} did not end within {timeout:.0f} s")
        time.sleep(0.05)


def copy(home: Path, where: Path) -> Path:
    """A full copy, for benchmarks that write (once the home's detached work is done)."""
    if where.exists():
        shutil.rmtree(where)
    settle(home)
    shutil.copytree(home, where, symlinks=True)
    return where


def run(argv: list[str], env: dict, stdin: bytes = b"", check: bool = True) -> tuple[float, subprocess.CompletedProcess]:
    t = time.perf_counter()
    proc = subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=tempfile.gettempdir())
    ms = (time.perf_counter() - t) * 1000
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-500:]}")
    return ms, proc


def measure(variants: dict[str, tuple], runs: int, warmup: int = 1) -> dict[str, list[float]]:
    """name -> (argv, env[, stdin or callable(n) -> stdin]); round robin, warm-up rounds dropped."""
    times: dict[str, list[float]] = {k: [] for k in variants}
    for n in range(warmup + runs):
        for name, spec in variants.items():
            argv, env = spec[0], spec[1]
            stdin = spec[2] if len(spec) > 2 else b""
            if callable(stdin):
                stdin = stdin(n)
            ms, _ = run(argv, env, stdin)
            if n >= warmup:
                times[name].append(ms)
    return times


def med(values: list[float]) -> float:
    return statistics.median(values)


def spread(values: list[float]) -> str:
    if len(values) < 4:
        return f"{min(values):.1f}-{max(values):.1f} ms (min-max)"
    q = statistics.quantiles(values, n=4)
    return f"{q[0]:.1f}-{q[2]:.1f} ms (p25-p75)"


def method(times: dict[str, list[float]], names: list[str], warmup: int, extra: str = "") -> str:
    runs = len(times[names[0]])
    parts = [f"{runs} runs after {warmup} warm-up, round robin with the other variants of this group; median"]
    parts.append("; ".join(f"{n}: median {med(times[n]):.1f} ms, {spread(times[n])}" for n in names))
    if extra:
        parts.append(extra)
    return ". ".join(parts)


def row(figure: str, cogit: float, reference: float | None, target: float | None, *, method: str,
        kind: str = "x", note: str | None = None) -> dict:
    """A table row; `ratio` is cogit / reference, `met` whether it is at most `target`."""
    ratio = cogit / reference if reference else None
    met = None if target is None or ratio is None else ratio <= target
    out = {"figure": figure, "cogit": round(cogit, 1), "reference": None if reference is None else round(reference, 1),
           "ratio": None if ratio is None else round(ratio, 2), "target": f"<= {target}{kind}" if target else "reported",
           "met": met, "method": method}
    if note and met is False:
        out["note"] = note
    return out


def peak_kib(argv: list[str], env: dict, stdin: bytes = b"") -> int | None:
    """Peak RSS of the process, through GNU time (a child forked from a small process)."""
    if not os.path.exists("/usr/bin/time"):
        return None
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], input=stdin, capture_output=True, env=env,
                          cwd=tempfile.gettempdir())
    try:
        return int(proc.stderr.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None


def manifest(home: Path) -> dict:
    import json

    return json.loads((home / "manifest.json").read_text())


def sizes(homes: dict[int, Path]) -> tuple[int, int, int]:
    """(small, middle, big) commit counts of the homes bench/run built."""
    keys = sorted(homes)
    return keys[0], keys[len(keys) // 2], keys[-1]
