"""Bounded work through the real hook entrypoint: a payload as big as hooks.max_payload_bytes
(4 MB by default) made of one long token costs a hook little more than a tiny payload, the
call is still recorded, and a hook busy with a huge payload never makes a concurrent hook
of the same session lose its record.

Times are ratios against the same hook with a tiny payload, measured in the same test (the
best of a few runs each): the huge run may cost 3x the tiny one plus 0.5 s for reading and
parsing 4 MB of JSON, generous enough for a loaded 2-core machine. The quadratic code
this guards against took 20 s on 40 KB.
"""

from __future__ import annotations

import base64
import json
import os
import random
import subprocess
import sys
import threading
import time

import pytest

from cogit.hooks.claude import DEFAULT_MAX_PAYLOAD

SID = "5b1f3c2e-0d4a-4e8b-9a61-7c2d9e4f1a30"


def payload(event: str, **fields) -> dict:
    base = {"session_id": SID, "transcript_path": f"/tmp/{SID}.jsonl", "cwd": "/tmp", "hook_event_name": event,
            "permission_mode": "default"}
    base.update(fields)
    return base


def fill(body: dict, make) -> bytes:
    """`body` with its "@" placeholder replaced by make(n): a text whose JSON takes as many
    bytes as the payload limit leaves room for (escapes such as \\n count twice)."""
    room = DEFAULT_MAX_PAYLOAD - len(json.dumps(body).encode()) - 64
    n = room
    for _ in range(6):
        encoded = json.dumps(make(n))
        if room - 200 < len(encoded) <= room:
            break
        n = int(n * room / len(encoded)) - 50
    data = json.dumps(body).replace('"@"', encoded).encode()
    assert DEFAULT_MAX_PAYLOAD - 400 < len(data) <= DEFAULT_MAX_PAYLOAD, len(data)
    return data


def blob(n: int) -> str:
    """One base64 token of n characters without + and / (one run of word characters)."""
    raw = base64.b64encode(random.Random(n).randbytes(n * 3 // 4 + 3)).decode()
    return raw.replace("+", "k").replace("/", "q")[:n]


def run_hook(c, event: str, data: bytes) -> tuple[float, subprocess.CompletedProcess]:
    env = dict(os.environ, COGIT_HOME=str(c.home))
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cogit", "hook", "claude", event], input=data, capture_output=True,
                          env=env, timeout=120)
    return time.perf_counter() - t, proc


def state(c, sid=SID) -> dict:
    return json.loads((c.home / "runtime" / "sessions" / sid / "state.json").read_text())


def calls(c, sid=SID) -> list[dict]:
    path = c.home / "runtime" / "sessions" / sid / "calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def hook_log(c) -> str:
    path = c.home / "runtime" / "logs" / "hooks.log"
    return path.read_text() if path.exists() else ""


def compare(c, event: str, tiny, huge, rounds: int = 3) -> tuple[float, float]:
    """Best times of the tiny and the huge payload, interleaved; every run must exit 0 silently."""
    t_tiny, t_huge = [], []
    for n in range(rounds):
        for data, times in ((tiny(n), t_tiny), (huge(n), t_huge)):
            elapsed, proc = run_hook(c, event, data)
            assert (proc.returncode, proc.stderr) == (0, b""), proc.stderr
            times.append(elapsed)
    small, big = min(t_tiny), min(t_huge)
    print(f"{event}: tiny payload {small:.3f} s, 4 MB payload {big:.3f} s")
    assert big < 3 * small + 0.5, f"{event}: tiny payload {small:.3f} s, 4 MB payload {big:.3f} s"
    return small, big


def bash_failure(n: int, error: str) -> dict:
    return payload("PostToolUseFailure", tool_name="Bash", tool_input={"command": "make build", "description": "build"},
                   tool_use_id=f"toolu_fail_{n}", error=error, is_interrupt=False, duration_ms=40)


def test_a_4mb_single_token_error_is_recorded_fast(initialized):
    c = initialized
    tiny = lambda n: json.dumps(bash_failure(100 + n, "Exit code 1\nmake: *** [build] Error 2")).encode()  # noqa: E731
    huge = lambda n: fill(bash_failure(n, "@"), lambda room: "Exit code 1\n" + blob(room - 12))  # noqa: E731
    compare(c, "PostToolUseFailure", tiny, huge)
    st = state(c)
    assert st["n_calls"] == 6 and st["agg"]["tools"]["Bash"]["failures"] == 6
    assert sorted(r["n"] for r in calls(c)) == list(range(1, 7)) and all(r["ok"] is False for r in calls(c))
    win = {w["id"]: w for w in st["senses"]["win"]}
    assert set(win) == {f"toolu_fail_{n}" for n in (0, 1, 2, 100, 101, 102)}
    # the record kept of a 4 MB error is small: a signature and a line, both cut
    assert all(len(json.dumps(w)) < 2000 for w in win.values())
    assert len((c.home / "runtime" / "sessions" / SID / "state.json").read_bytes()) < 100_000
    assert hook_log(c) == ""


@pytest.mark.parametrize("interrupted", [False, True], ids=["stderr", "interrupted"])
def test_a_4mb_stderr_of_a_bash_call_is_recorded_fast(initialized, interrupted):
    c = initialized

    def body(n, stderr):
        return payload("PostToolUse", tool_name="Bash", tool_input={"command": "./gen.sh", "description": "gen"},
                       tool_response={"stdout": "", "stderr": stderr, "interrupted": interrupted, "isImage": False},
                       tool_use_id=f"toolu_{n}", duration_ms=12)

    compare(c, "PostToolUse", lambda n: json.dumps(body(100 + n, "warning: x")).encode(),
            lambda n: fill(body(n, "@"), blob))
    st = state(c)
    assert st["n_calls"] == 6 and st["agg"]["tools"]["Bash"]["calls"] == 6
    assert st["agg"]["tools"]["Bash"]["failures"] == 0  # the hook event was PostToolUse: counted as it came
    assert len(calls(c)) == 6
    sizes = {w["id"]: w["size"] for w in st["senses"]["win"]}
    # what entered the context: the input, and the output as far as Claude Code shows it
    assert sizes["toolu_0"] == len("./gen.sh") + len("gen") + 30000
    assert all(w["ok"] is (not interrupted) for w in st["senses"]["win"])
    assert hook_log(c) == ""


def test_a_4mb_prompt_is_analysed_fast(initialized):
    c = initialized

    def body(text):
        return payload("UserPromptSubmit", prompt=text)

    def huge_prompt(room):
        # blank lines and spaces (the old request pattern rescanned every run), then one token
        third = room // 3
        return "Perfect, now refactor the exporter module.\n" + "\n" * third + " " * third + blob(room - 2 * third - 60)

    compare(c, "UserPromptSubmit", lambda n: json.dumps(body("Perfect, now refactor the exporter module.")).encode(),
            lambda n: fill(body("@"), huge_prompt))
    st = state(c)
    assert st["agg"]["prompts"] == 6
    assert st["agg"]["engagement"] == {**st["agg"]["engagement"], "total": 6, "meaningful": 6}
    summary = st["senses"]["prompt"]["summary"]  # of the last, huge prompt: its head, the cut, its tail
    assert summary.startswith("Perfect, now refactor the exporter module. … ") and len(summary) == 120
    assert "exporter" in st["senses"]["prompt"]["terms"]
    assert hook_log(c) == ""


def test_a_request_at_the_end_of_a_4mb_prompt_is_still_noted(initialized):
    c = initialized
    body = payload("UserPromptSubmit", prompt="@")
    data = fill(body, lambda room: "Here is the log:\n" + "\n" * (room - 80) + "remember this: deploys need the VPN")
    elapsed, proc = run_hook(c, "UserPromptSubmit", data)
    out = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert out == 'cogit: noted for memory as a feedback learning: "deploys need the VPN"'


def test_a_huge_payload_never_costs_a_concurrent_hook_its_record(initialized):
    """While one hook handles a 4 MB single-token error, small hook calls of the same session
    keep coming; every one of them gets its record in (none waits out the lock)."""
    c = initialized
    env = dict(os.environ, COGIT_HOME=str(c.home))
    argv = [sys.executable, "-m", "cogit", "hook", "claude"]
    big = subprocess.Popen(argv + ["PostToolUseFailure"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=env)
    data = fill(bash_failure(0, "@"), lambda room: "Exit code 1\n" + blob(room - 12))
    writer = threading.Thread(target=lambda: (big.stdin.write(data), big.stdin.close()))
    writer.start()
    small = []
    try:
        for n in range(8):  # spread over the time the big one reads, parses and analyses
            p = subprocess.Popen(argv + ["PostToolUse"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
            body = payload("PostToolUse", tool_name="Read", tool_input={"file_path": f"/tmp/f{n}.py"},
                           tool_response={"type": "text", "file": {"content": "x = 1\n"}}, tool_use_id=f"r{n}")
            p.communicate(json.dumps(body).encode(), timeout=60)
            small.append(p.returncode)
            time.sleep(0.05)
        assert big.wait(60) == 0
    finally:
        if big.poll() is None:
            big.kill()
            big.wait()
        writer.join()
    assert small == [0] * 8
    st = state(c)
    assert "LockTimeout" not in hook_log(c)
    assert st["n_calls"] == 9 and st["agg"]["tools"]["Read"]["calls"] == 8 and st["agg"]["tools"]["Bash"]["failures"] == 1
    assert len(calls(c)) == 9
