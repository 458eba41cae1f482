"""The senses' cost: per call in-process, and Spatial (blast radius) on a 20,000-file repository.

Spatial parses imports to count the files that import a changed module. Each call,
cache loading and saving included, is bounded to `senses.spatial.budget_ms` (200 ms):
its walk of the repository stops at a deadline, keeps its position in the cache and
continues from there on the next edit, so the count grows to the complete one over a
few edits (until then it speaks only if the partial count meets the threshold). This
reports the first edit (no cache), the edits until the count is complete, and a few
after (the walk keeps going round to find changes); the time of an edit is that of
`senses.observe` (the first one includes importing the import analysis) and, in
brackets, that of `blast_radius` itself.

    python bench/senses.py [FILES]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cogit import senses


def make_repo(root: Path, files: int) -> Path:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    pkg = root / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "core.py").write_text("def f():\n    return 1\n")
    for i in range(files - 2):
        sub = pkg / f"m{i // 500}"
        sub.mkdir(exist_ok=True)
        imports = "from pkg import core\n" if i % 10 == 0 else "import os\n"
        (sub / f"mod{i}.py").write_text(f'"""Module {i}."""\n{imports}import json\n\n\ndef g{i}():\n    return {i}\n')
    return root


def edit_call(path: Path, n: int) -> dict:
    return senses.make_call("Edit", {"file_path": str(path), "old_string": "return 1", "new_string": f"return {n}"},
                            {"filePath": str(path)}, None, 5, time.time(), str(path.parent))


def main(files: int = 20_000) -> None:
    root = Path(tempfile.mkdtemp(prefix="cogit-bench-senses-"))
    repo = make_repo(root / "repo", files)
    cache = root / "cache"
    target = repo / "pkg" / "core.py"
    # Import the analysis first (a hook process pays this once; without .pyc files, as under
    # PYTHONDONTWRITEBYTECODE=1, it includes compiling the module) and time blast_radius itself.
    t = time.perf_counter()
    from cogit.senses import imports

    import_ms = (time.perf_counter() - t) * 1000
    blast_radius, own = imports.blast_radius, []

    def timed(*args, **kw):
        result = blast_radius(*args, **kw)
        own.append(result["ms"])
        return result

    imports.blast_radius = timed

    timings, complete_at = [], None
    for n in range(100):  # each edit's walk continues where the cache left off, until complete
        state = {}
        t = time.perf_counter()
        text, _ = senses.observe(state, edit_call(target, n), {}, cwd=str(repo), cache_dir=str(cache), now=time.time())
        timings.append(((time.perf_counter() - t) * 1000, text))
        if complete_at is None and text and "at least" not in text:
            complete_at = n + 1
        if complete_at and n + 1 >= complete_at + 5:
            break
    # Per-call cost of the senses on ordinary reads (what every silent PostToolUse pays).
    state, per_call = {}, []
    for n in range(300):
        call = senses.make_call("Read", {"file_path": f"/tmp/f{n}.py"}, {"file": {"content": "x = 1\n" * 40}}, None, 3, time.time(), "/tmp")
        t = time.perf_counter()
        senses.observe(state, call, {}, cwd="/tmp", cache_dir=str(cache), now=time.time())
        per_call.append((time.perf_counter() - t) * 1000)
    print(f"repository: {files} files ({files // 10} import pkg.core); importing the analysis: {import_ms:.1f} ms")
    shown = {0, 1, len(timings) - 1} | ({complete_at - 2, complete_at - 1} if complete_at else set())
    for i, (ms, text) in enumerate(timings):
        if i not in shown:
            continue
        kind = "cold (no cache)" if i == 0 else f"edit #{i + 1}"
        said = (text or "(silent)").splitlines()[0][:90]
        print(f"Spatial, {kind:<16} {ms:6.1f} ms ({own[i]:5.1f})   {said}")
    slowest = max(range(len(timings)), key=lambda i: timings[i][0])
    print(f"slowest edit: {timings[slowest][0]:.1f} ms (#{slowest + 1}); slowest blast_radius: {max(own):.1f} ms")
    if complete_at:
        print(f"complete count after {complete_at} edits")
    else:
        print(f"count still incomplete after {len(timings)} edits")
    print(f"senses per ordinary call (median of 300): {statistics.median(per_call):.3f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
