"""Hook speed and size, as ratios against `python -c pass` measured in the same run.

Targets (issue 3): a silent PostToolUse at most 1.5x `python -c pass`; a failing Bash
call whose error is one 4 MB token (a payload at hooks.max_payload_bytes) at most 3x the
same call with a one-line error (issue 5: it took minutes); SessionStart
with injection at most 2x; the same cost with 10 or 10,000 commits of memory (within
10%); peak memory of a hook process at most 25 MB. Runs are interleaved round robin
so machine noise hits every variant alike.

    python bench/hooks.py [ROUNDS]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The timing loop runs in a lean process: forking a parent that has dulwich and
# friends loaded is slower and noisier, so the memories are built in a subprocess.
HOOK = ["-E", "-P", "-c", "import sys; from cogit.hooks import run; sys.exit(run(sys.argv[1:]))"]  # as cogit/launch.py writes it

SID = "bench-0000-4b7e-9d0a-2f1c3e5b7a90"


def make_home(root: Path, commits: int):
    from cogit.paths import Home
    from cogit.store import memory
    from cogit.store import repo as git
    from cogit.store.provenance import COMMITTER, Provenance, message
    from cogit.store.state import STATE_FILES

    home = Home(root)
    memory.init(home)
    for i in range(5):
        memory.write(home, Provenance(event="learning.add"), memory.add_item("learnings", f"learning {i} for the digest"))
    memory.write(home, Provenance(event="heuristic.add"), memory.add_item("heuristics", "Reproduce before fixing"))
    # Grow history fast on the object layer: the hooks never walk it, which is the point.
    repo = git.open_repo(home.memory)
    try:
        prov = Provenance(event="bench.grow", source="cli")
        # Memory's tree holds only state files: history grows by a comment in one of them.
        name = "engagement.yaml"
        original = git.read_files(repo, git.head(repo))[name]
        for i in range(max(0, commits - 7)):
            head = git.head(repo)
            git.commit(repo, git.MAIN, {name: original + f"# grow {i}\n".encode()}, message(f"grow {i}", "", prov),
                       b"b <b@x>", COMMITTER, head)
        if commits > 7:
            git.sync_worktree(repo, home.memory, {name: git.read_files(repo, git.head(repo))[name]}, STATE_FILES)
    finally:
        repo.close()
    from cogit.store import digest

    repo = git.open_repo(home.memory)
    digest.refresh(home, repo, git.MAIN)
    repo.close()
    return home


def payload(event: str, n: int) -> bytes:
    # PostToolUse: a fresh session per round (a first read, not a re-read the senses would
    # flag). SessionStart: one session resumed, so it finds no other session to finalize
    # and starts no background process that would disturb the next measurement.
    sid = f"{SID}-{n}" if event.startswith("PostToolUse") else SID
    body = {"session_id": sid, "cwd": "/tmp", "hook_event_name": event}
    if event == "PostToolUse":
        body.update(tool_name="Read", tool_input={"file_path": f"/tmp/x{n}.py"}, tool_use_id=f"t{n}", duration_ms=3,
                    tool_response={"type": "text", "file": {"filePath": f"/tmp/x{n}.py", "content": "x = 1\n"}})
    elif event == "PostToolUseFailure:small":
        body.update(hook_event_name="PostToolUseFailure", tool_name="Bash", tool_input={"command": f"./decode.sh {n}"},
                    tool_use_id=f"f{n}", duration_ms=30, error="Exit code 1\ndecode.sh: invalid input")
    elif event == "PostToolUseFailure:4MB":
        # one failing Bash call whose error is a single 4 MB token (a base64 blob), filling the
        # default hooks.max_payload_bytes: parsed in full, analysed only in part (cogit/bounds.py)
        body.update(hook_event_name="PostToolUseFailure", tool_name="Bash", tool_input={"command": f"./decode.sh {n}"},
                    tool_use_id=f"f{n}", duration_ms=30, error="@")
        room = 4_000_000 - len(json.dumps(body)) - 64
        return json.dumps(body).replace('"@"', json.dumps("Exit code 1\n" + _token(room - 20))).encode()
    elif event == "PostToolUse:Bash":
        body.update(hook_event_name="PostToolUse", tool_name="Bash", tool_input={"command": f"ls -la src/{n}"}, tool_use_id=f"b{n}",
                    duration_ms=12, tool_response={"stdout": "a\nb\n", "stderr": "", "interrupted": False, "isImage": False})
    else:
        body.update(source="startup")
    return json.dumps(body).encode()


_TOKENS: dict = {}


def _token(n: int) -> str:
    if n not in _TOKENS:
        import base64

        _TOKENS[n] = base64.b64encode(os.urandom(n * 3 // 4 + 3)).decode()[:n]
    return _TOKENS[n]


TIME = "/usr/bin/time"


def run_once(argv: list[str], env: dict, data: bytes) -> tuple[float, bytes]:
    t = time.perf_counter()
    proc = subprocess.run(argv, input=data, capture_output=True, env=env)
    return (time.perf_counter() - t) * 1000, proc.stdout


def peak_kib(argv: list[str], env: dict, data: bytes) -> int | None:
    """Peak RSS of the process itself. Measured through GNU time, which forks from a
    small process: a child forked from this (large) Python would report our RSS."""
    if not os.path.exists(TIME):
        return None
    proc = subprocess.run([TIME, "-f", "%M", *argv], input=data, capture_output=True, env=env)
    return int(proc.stderr.decode().strip().splitlines()[-1])


def main(rounds: int = 30) -> int:
    # An installed wheel has compiled bytecode; a checkout may not (and this workplace sets
    # PYTHONDONTWRITEBYTECODE). Compile once so the hook is measured as users run it.
    import compileall
    import importlib.util

    compileall.compile_dir(str(Path(importlib.util.find_spec("cogit").origin).parent), quiet=1)
    root = Path(tempfile.mkdtemp(prefix="cogit-bench-hooks-"))
    for name, commits in (("small", 10), ("big", 10_000)):
        subprocess.run([sys.executable, __file__, "--setup", str(root / name), str(commits)], check=True)
        # PostToolUse gets its own copy: its sessions must not be seen by SessionStart.
        subprocess.run(["cp", "-a", str(root / name), str(root / f"{name}-post")], check=True)
    small, big, small_post, big_post = root / "small", root / "big", root / "small-post", root / "big-post"
    py = sys.executable
    variants = {
        "python -c pass": ([py, "-c", "pass"], small, None),
        # The command `cogit install claude` writes into the agent's settings:
        "PostToolUse (silent), 10 commits": ([py, *HOOK, "claude", "PostToolUse"], small_post, "PostToolUse"),
        "PostToolUse (silent), 10k commits": ([py, *HOOK, "claude", "PostToolUse"], big_post, "PostToolUse"),
        "PostToolUse Bash (silent), 10 commits": ([py, *HOOK, "claude", "PostToolUse"], small_post, "PostToolUse:Bash"),
        "PostToolUseFailure Bash, one-line error": ([py, *HOOK, "claude", "PostToolUseFailure"], small_post,
                                                     "PostToolUseFailure:small"),
        "PostToolUseFailure Bash, 4 MB token error": ([py, *HOOK, "claude", "PostToolUseFailure"], small_post,
                                                      "PostToolUseFailure:4MB"),
        "SessionStart (inject), 10 commits": ([py, *HOOK, "claude", "SessionStart"], small, "SessionStart"),
        "SessionStart (inject), 10k commits": ([py, *HOOK, "claude", "SessionStart"], big, "SessionStart"),
    }
    times = {k: [] for k in variants}
    rss = {k: 0 for k in variants}
    for n in range(rounds):
        for name, (argv, home, event) in variants.items():
            data = payload(event, n) if event else b""
            env = dict(os.environ, COGIT_HOME=str(home))
            ms, out = run_once(argv, env, data)
            times[name].append(ms)
            if name.startswith("PostToolUse"):
                assert out == b"", out  # silent, as measured
            if name.startswith("SessionStart"):
                assert b"additionalContext" in out, out
    for name, (argv, home, event) in variants.items():
        rss[name] = peak_kib(argv, dict(os.environ, COGIT_HOME=str(home)), payload(event, rounds) if event else b"") or 0
    base = statistics.median(times["python -c pass"])
    print(f"rounds: {rounds}; memory with 10 and with 10,000 commits")
    print(f"{'variant':<40} {'median ms':>10} {'x pass':>8} {'peak MB':>8}")
    for name in variants:
        med = statistics.median(times[name])
        print(f"{name:<40} {med:>10.1f} {med / base:>8.2f} {rss[name] / 1024:>8.1f}")
    post = statistics.median(times["PostToolUse (silent), 10 commits"]) / base
    bash = statistics.median(times["PostToolUse Bash (silent), 10 commits"]) / base
    fail = statistics.median(times["PostToolUseFailure Bash, one-line error"])
    huge = statistics.median(times["PostToolUseFailure Bash, 4 MB token error"]) / fail
    start = statistics.median(times["SessionStart (inject), 10 commits"]) / base
    growth = statistics.median(times["SessionStart (inject), 10k commits"]) / statistics.median(times["SessionStart (inject), 10 commits"])
    peak = max(v for k, v in rss.items() if k != "python -c pass") / 1024
    checks = [
        (f"silent PostToolUse (Read) {post:.2f}x pass", post <= 1.5),
        (f"silent PostToolUse (Bash) {bash:.2f}x pass", bash <= 1.5),
        # reading and parsing 4 MB of JSON is paid; the analysis after it is cut to KBs
        (f"failing Bash, 4 MB single-token error {huge:.2f}x the one-line error", huge <= 3.0),
        (f"SessionStart {start:.2f}x pass", start <= 2.0),
        (f"10k vs 10 commits {growth:.2f}x", 0.9 <= growth <= 1.1),
        (f"peak memory {peak:.1f} MB", peak <= 25),
    ]
    for text, ok in checks:
        print(f"{'PASS' if ok else 'MISS'}  {text}")
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["--setup"]:
        make_home(Path(sys.argv[2]), int(sys.argv[3]))
        sys.exit(0)
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 30))
