"""In-process commit throughput of cogit against the git binary, same change per commit.

Each round adds one learning to learnings.yaml (after a warm-up of 40 learnings, a
file near the default cap of 50) and commits it three ways, round robin in one run so
machine noise hits all alike:

- cogit commit: the store's commit step on the object layer (blob, tree, commit with
  provenance trailers, compare-and-swap of the branch), plus the working tree and
  index update that keeps `git status` clean;
- cogit write path: everything a `cogit add` does in-process: lock, absorb hand
  edits, load, apply, caps, redact, validate, canonical YAML, the commit step above,
  and the digest cache;
- git: `git add` + `git commit` of the same file (two processes).

    python bench/commit_throughput.py [N]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cogit.paths import Home
from cogit.store import memory
from cogit.store.git import repo as git
from cogit.store.git import worktree
from cogit.store.git.provenance import COMMITTER, Provenance, message
from cogit.store.state.documents import STATE_FILES


def main(n: int = 200) -> None:
    root = Path(tempfile.mkdtemp(prefix="cogit-bench-"))
    home = Home(root / "home")
    memory.init(home)
    for i in range(40):
        memory.write(home, Provenance(event="learning.add"), memory.add_item("learnings", f"warm-up lesson {i} about the code"))
    plain = Home(root / "plain")
    memory.init(plain)
    gitdir = root / "git"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@x", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@x")
    subprocess.run(["git", "init", "-q", str(gitdir)], check=True, env=env)
    subprocess.run(["git", "-C", str(gitdir), "config", "gc.auto", "0"], check=True, env=env)
    learnings = home.memory / "learnings.yaml"
    prov = Provenance(event="learning.add", source="cli", agent="bench", session="s-bench")
    kept = Home(root / "kept")
    memory.init(kept)
    kept_repo = git.open_repo(kept.memory)  # a long-lived process keeps its repository open
    times: dict[str, list[float]] = {"cogit commit (object layer + index)": [], "cogit commit, repository kept open": [],
                                     "cogit write path (whole `add`)": [], "git add + git commit (binary)": []}
    for i in range(n):
        t = time.perf_counter()
        memory.write(home, Provenance(event="learning.add"), memory.add_item("learnings", f"lesson {i} from the bench run"))
        times["cogit write path (whole `add`)"].append((time.perf_counter() - t) * 1000)
        data = learnings.read_bytes()  # the same change, committed the other ways

        t = time.perf_counter()
        repo = git.open_repo(plain.memory)
        files = {"learnings.yaml": data}
        git.commit(repo, git.MAIN, files, message(f"Add lesson {i}", "", prov), prov.author_line(), COMMITTER, git.head(repo))
        worktree.sync_worktree(repo, plain.memory, files, STATE_FILES)
        repo.close()
        times["cogit commit (object layer + index)"].append((time.perf_counter() - t) * 1000)

        t = time.perf_counter()
        git.commit(kept_repo, git.MAIN, files, message(f"Add lesson {i}", "", prov), prov.author_line(), COMMITTER, git.head(kept_repo))
        worktree.sync_worktree(kept_repo, kept.memory, files, STATE_FILES)
        times["cogit commit, repository kept open"].append((time.perf_counter() - t) * 1000)

        t = time.perf_counter()
        (gitdir / "learnings.yaml").write_bytes(data)
        subprocess.run(["git", "-C", str(gitdir), "add", "learnings.yaml"], check=True, env=env)
        subprocess.run(["git", "-C", str(gitdir), "commit", "-q", "--no-verify", "-m", f"lesson {i}"], check=True, env=env)
        times["git add + git commit (binary)"].append((time.perf_counter() - t) * 1000)
    g = statistics.median(times["git add + git commit (binary)"])
    print(f"commits per method: {n}")
    print(f"{'method':<40} {'median ms':>10} {'p90 ms':>8} {'git / this':>11}")
    for name, xs in times.items():
        med = statistics.median(xs)
        print(f"{name:<40} {med:>10.2f} {sorted(xs)[int(n * 0.9)]:>8.2f} {g / med:>10.2f}x")
    c = statistics.median(times["cogit commit (object layer + index)"])
    print(f"{'PASS' if g / c >= 2 else 'MISS'}  cogit's in-process commit is {g / c:.2f}x faster than git (goal: >= 2x)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
