"""bench/run in quick mode, so the benchmarks cannot rot: it builds small homes through
cogit's write code, runs every benchmark module, prints the table and writes
RESULTS-shaped Markdown. Numbers are not checked here (CI machines vary); that every
figure is produced, with its method, is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def test_bench_run_quick_produces_the_table_and_results(tmp_path):
    out, rows_json = tmp_path / "RESULTS.md", tmp_path / "rows.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("COGIT_")}
    env["COGIT_BENCH_WORK"] = str(tmp_path / "work")
    proc = subprocess.run([sys.executable, str(BENCH / "run"), "--quick", "--only", "query,cold,hooks,hooks_real",
                           "--out", str(out), "--json", str(rows_json)],
                          capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines()[0].split()[:2] == ["figure", "cogit"]
    rows = json.loads(rows_json.read_text())
    modules = {r["module"] for r in rows}
    assert modules == {"homes", "query", "cold", "hooks", "hooks_real"}
    assert not [r for r in rows if r["method"].startswith("not run")], rows
    for r in rows:
        assert set(r) >= {"figure", "cogit", "reference", "ratio", "target", "met", "method"}
        assert isinstance(r["cogit"], (int, float)) and r["method"]
        if r["reference"] is not None:
            assert abs(r["ratio"] - r["cogit"] / r["reference"]) <= 0.02 * r["ratio"] + 0.01  # rounded values
    figures = " ".join(r["figure"] for r in rows)
    for needed in ("why ID", "log --item ID", "log -n 20", "log --event", "status", "cold `add",
                   "cold `--help`", "UserPromptSubmit", "PostToolUseFailure", "peak memory", "building a home",
                   "in a real project: SessionStart", "in a real project: PostToolUse Edit", "remember this"):
        assert needed in figures, needed
    text = out.read_text()
    assert text.startswith("# Benchmark results")
    assert "| figure | cogit | reference | ratio | target | met |" in text
    assert "## Method of each figure" in text and "median" in text and "warm-up" in text
    # a rerun reuses the built homes (building is skipped: no "building" on stderr)
    again = subprocess.run([sys.executable, str(BENCH / "run"), "--quick", "--only", "none"],
                           capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert again.returncode == 0 and "building" not in again.stderr, again.stderr


def test_a_missing_or_broken_module_is_listed_not_dropped(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("COGIT_")}
    env["COGIT_BENCH_WORK"] = str(tmp_path / "work")
    proc = subprocess.run([sys.executable, str(BENCH / "run"), "--quick", "--only", "no_such_bench",
                           "--json", str(tmp_path / "rows.json")], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads((tmp_path / "rows.json").read_text())
    assert any(r["module"] == "no_such_bench" and r["method"].startswith("not run") for r in rows)


def test_the_detector_bench_is_a_plug_in_of_bench_run(tmp_path):
    """bench/detectors.py through bench/run --quick: the ordinary corpus's false detections and
    each measured detector's precision and recall, as figures with their method."""
    rows_json = tmp_path / "rows.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("COGIT_")}
    env["COGIT_BENCH_WORK"] = str(tmp_path / "work")
    proc = subprocess.run([sys.executable, str(BENCH / "run"), "--quick", "--only", "detectors", "--json", str(rows_json)],
                          capture_output=True, text=True, env=env, timeout=900, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [r for r in json.loads(rows_json.read_text()) if r["module"] == "detectors"]
    assert not [r for r in rows if r["method"].startswith("not run")], rows
    figures = {r["figure"]: r for r in rows}
    (ordinary,) = [r for f, r in figures.items() if f.startswith("detections on the ordinary corpus")]
    assert ordinary["cogit"] == 0 and ordinary["met"] is True
    for d in ("error_loop", "repeated_read", "circular_search", "edits_without_tests"):
        for key in ("precision", "recall"):
            row = figures[f"detector {d}: {key} (%)"]
            assert row["cogit"] == 100.0 and row["met"] is True and "learning_corpus" in row["method"], row
