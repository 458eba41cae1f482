"""Codex's PostToolUse carries a shell call's output without its exit code (seen from the
real Codex 0.171 in tests/e2e/test_codex.py): cogit reads the exit code from the session's
rollout record, read as hostile data, else from the output's own ending, and a command
that succeeds while printing "error" is no failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from cogit.hooks import codex, shell_output

SID = "01a23266-7896-79c0-ac1b-cda3894be7ef"
TRACEBACK = ("Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"
             "ModuleNotFoundError: No module named 'widgets'\n")


def completed(call_id, exit_code, output="", status=None):
    """One rollout line as Codex 0.171 writes it when a command finishes (compact JSON)."""
    item = {"type": "CommandExecution", "id": call_id, "process_id": "86008",
            "command": ["/bin/bash", "-lc", "python3 -m app"], "cwd": "file:///tmp/work", "source": "unified_exec_startup",
            "status": status or ("completed" if exit_code == 0 else "failed"), "aggregated_output": output,
            "exit_code": exit_code, "duration": {"secs": 0, "nanos": 4767}}
    line = {"timestamp": "2026-12-01T16:18:26.341Z", "ordinal": 11, "type": "event_msg",
            "payload": {"type": "item_completed", "thread_id": SID, "turn_id": "t1", "item": item}}
    return json.dumps(line, separators=(",", ":"))


def call(call_id, cmd="python3 -m app"):
    args = json.dumps({"cmd": cmd})
    return json.dumps({"type": "response_item", "payload": {"type": "function_call", "name": "exec_command",
                                                            "arguments": args, "call_id": call_id}}, separators=(",", ":"))


def rollout(tmp_path, *lines, name=f"rollout-2026-12-01T16-18-26-{SID}.jsonl"):
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines))
    return path


def payload(response, call_id="call_0", transcript=None, cmd="python3 -m app"):
    return {"session_id": SID, "turn_id": "t1", "transcript_path": str(transcript) if transcript else None,
            "cwd": "/tmp/work", "hook_event_name": "PostToolUse", "model": "gpt-5.3-codex",
            "permission_mode": "bypassPermissions", "tool_name": "Bash", "tool_input": {"command": cmd},
            "tool_response": response, "tool_use_id": call_id}


def event(response, **kw):
    return codex.to_event("PostToolUse", payload(response, **kw))


# --- the rollout record --------------------------------------------------------------

def test_the_rollout_record_gives_the_exit_code_of_this_call(tmp_path):
    path = rollout(tmp_path, call("call_0"), completed("call_0", 1, TRACEBACK), call("call_1", "echo hi"),
                   completed("call_1", 0, "hi\n"), call("call_2", "ls /x"), completed("call_2", 2))
    assert [codex.rollout_exit_code(str(path), f"call_{i}") for i in range(4)] == [1, 0, 2, None]
    ev = event(TRACEBACK, transcript=path)
    assert ev["event"] == "PostToolUseFailure" and ev["failed"]
    assert ev["error"] == "Exit code 1\n" + TRACEBACK


def test_exit_code_zero_in_the_rollout_is_a_success_whatever_the_output_says(tmp_path):
    out = "error: nothing wrong\n" + TRACEBACK  # a program that prints what a failure would
    path = rollout(tmp_path, completed("call_0", 0, out))
    ev = event(out, transcript=path)
    assert ev["event"] == "PostToolUse" and not ev["failed"] and ev["error"] is None


def test_only_an_item_completed_command_of_this_id_counts(tmp_path):
    other = json.dumps({"type": "event_msg", "payload": {"type": "item_started", "item": {
        "type": "CommandExecution", "id": "call_0", "exit_code": 9}}}, separators=(",", ":"))
    quoted = json.dumps({"type": "response_item", "payload": {"type": "message", "content": [
        {"text": '"item_completed" "id":"call_0" exit_code 7'}]}}, separators=(",", ":"))
    wrong_type = completed("call_0", 5).replace('"CommandExecution"', '"McpToolCall"')
    path = rollout(tmp_path, other, quoted, wrong_type)
    assert codex.rollout_exit_code(str(path), "call_0") is None
    # ... and the newest line of this call wins over an older one
    path = rollout(tmp_path, completed("call_0", 4), completed("call_0", 0), name="rollout-b.jsonl")
    assert codex.rollout_exit_code(str(path), "call_0") == 0


def test_a_line_still_being_written_or_cut_by_the_tail_is_not_read(tmp_path, monkeypatch):
    path = tmp_path / "rollout-partial.jsonl"
    path.write_text(completed("call_0", 1))  # no newline yet: Codex is still writing it
    assert codex.rollout_exit_code(str(path), "call_0") is None
    monkeypatch.setattr(codex, "ROLLOUT_TAIL", len(completed("call_0", 3)) + 50)
    path = rollout(tmp_path, completed("call_0", 1, "x" * 1000), name="rollout-long.jsonl")
    assert codex.rollout_exit_code(str(path), "call_0") is None
    path = rollout(tmp_path, "x" * 1000, completed("call_0", 3), name="rollout-tail.jsonl")
    assert codex.rollout_exit_code(str(path), "call_0") == 3


def test_the_rollout_path_is_hostile(tmp_path):
    real = rollout(tmp_path, completed("call_0", 1))
    link = tmp_path / "rollout-link.jsonl"
    link.symlink_to(real)
    folder = tmp_path / "rollout-dir.jsonl"
    folder.mkdir()
    fifo = tmp_path / "rollout-fifo.jsonl"
    os.mkfifo(fifo)
    other = tmp_path / "notes.txt"
    other.write_text(completed("call_0", 1) + "\n")
    for path in (link, folder, fifo, other, "/dev/zero", "/nonexistent/rollout-x.jsonl", "", "\0rollout-x.jsonl"):
        assert codex.rollout_exit_code(str(path), "call_0") is None, path
    for call_id in ("", '"', "call_0\"}", "x" * 200, None, 7):
        assert codex.rollout_exit_code(str(real), call_id) is None
    assert codex.rollout_exit_code(str(real), "call_0") == 1


def test_a_fifo_as_the_rollout_never_blocks_the_hook(initialized, tmp_path):
    """Through the real hook process: a FIFO nobody writes to would block a plain open()."""
    c = initialized
    fifo = tmp_path / "rollout-fifo.jsonl"
    os.mkfifo(fifo)
    proc = c.run("hook", "codex", "PostToolUse", input=json.dumps(payload("ok\n", transcript=fifo)), check=False, timeout=20)
    assert (proc.returncode, proc.out, proc.err) == (0, "", "")


# --- the output text, when the rollout says nothing -----------------------------------

FAILED_OUTPUTS = [
    TRACEBACK,
    "Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n    main()\nKeyError: 'x'\n",
    "Traceback (most recent call last):\n  File \"x.py\", line 1\nrequests.exceptions.ConnectionError: refused\n",
    "Traceback (most recent call last):\n  File \"x.py\", line 1\nKeyboardInterrupt\n",
    "bash: line 1: pyhton: command not found\n",
    "/bin/bash: line 1: ./run.sh: Permission denied\n",
    "bash: line 1: ./nope: No such file or directory\n",
    "F.\n=================================== FAILURES ===================================\n"
    "___ test_x ___\n>   assert 1 == 2\nE   assert 1 == 2\n=========== 1 failed, 1 passed in 0.03s ===========\n",
    "1 failed, 4 passed in 0.12s\n",
    "==================== 2 errors in 0.30s ====================\n",
    "cc -o app app.c\nmake: *** [Makefile:2: app] Error 1\n",
    "make[1]: *** [sub/Makefile:4: all] Error 2\n",
    "# command-line-arguments\n./main.go:3:2: undefined: x\nexit status 1\n",
    "npm ERR! code ELIFECYCLE\nnpm ERR! errno 1\n",
    "npm error Missing script: \"tset\"\n",
    "error[E0425]: cannot find value `x`\nerror: could not compile `app` (bin \"app\") due to 1 previous error\n",
    "/w/x.js:1\nthrow new Error('boom')\n^\n\nError: boom\n    at Object.<anonymous> (/w/x.js:1:7)\n"
    "    at node:internal/main/run_main_module:28:49\n\nNode.js v20.11.0\n",
]
OK_OUTPUTS = [
    "",
    "error: nothing wrong\nTraceback\n",
    "Exit code: 1\n",
    "Exit code 1\nModuleNotFoundError: No module named 'x'\n",  # printed, not a traceback
    "grep: found 3 lines with error\nERROR: this is a log line\n",
    "Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: logged and handled\nretrying... ok\n",
    "  Traceback (most recent call last):\n    KeyError: indented, so quoted\n",
    "Traceback (most recent call last):\n  File \"x.py\", line 1\n    ValueError: quoted in a report\n",
    "=========== 5 passed in 0.10s ===========\n",
    "0 failed, 5 passed in 0.10s\n",
    "bash: line 1: foo: command not found\nfalling back to bar\ndone\n",
    "exit status 0\n",
    "make: Nothing to be done for 'all'.\n",
    "Node.js v20.11.0\n",
    "failed to find a reason to fail; everything passed\n",
    "error_count=0 errors=0 failures=0\n",
]


@pytest.mark.parametrize("text", FAILED_OUTPUTS)
def test_outputs_that_only_a_failed_command_ends_with(text):
    assert shell_output.failed(text)
    ev = event(text)
    assert ev["event"] == "PostToolUseFailure" and ev["error"] == text


@pytest.mark.parametrize("text", OK_OUTPUTS)
def test_outputs_of_commands_that_succeeded(text):
    assert shell_output.failed(text) is None
    assert event(text)["event"] == "PostToolUse"


def test_only_the_tail_of_a_huge_output_is_read():
    assert shell_output.failed(TRACEBACK + "x" * 10_000_000 + "\nok\n") is None
    assert shell_output.failed("x\n" * 5_000_000 + TRACEBACK)


def test_codex_own_exit_forms_in_the_response():
    """The `shell` tool's JSON answer and unified exec's header carry the exit code."""
    as_json = json.dumps({"output": "ls: /x: No such file or directory\n", "metadata": {"exit_code": 2, "duration_seconds": 0.1}})
    ev = event(as_json)
    assert ev["event"] == "PostToolUseFailure" and ev["error"].startswith("Exit code 2\nls: /x")
    header = "Chunk ID: 438625\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 8\nOutput:\n" + TRACEBACK
    assert event(header)["event"] == "PostToolUse"
    assert event(header.replace("code 0", "code 1"))["error"] == "Exit code 1\n" + TRACEBACK
    assert event({"exit_code": 0, "output": TRACEBACK})["event"] == "PostToolUse"


def test_other_tools_are_not_judged_by_their_text():
    ev = codex.to_event("PostToolUse", dict(payload(TRACEBACK), tool_name="read_file", tool_input={"path": "/x"}))
    assert ev["event"] == "PostToolUse"


def test_the_failure_path_imports_no_re_or_json(initialized, tmp_path):
    c = initialized
    path = rollout(tmp_path, completed("call_0", 1, TRACEBACK))
    code = ("import sys; before = set(sys.modules); from cogit.hooks import run; run(sys.argv[1:]); "
            "sys.stdout.write('\\n' + ' '.join(sorted(set(sys.modules) - before)))")
    for body in (payload(TRACEBACK, transcript=path), payload(TRACEBACK), payload("all fine\n")):
        proc = subprocess.run([sys.executable, "-E", "-P", "-c", code, "codex", "PostToolUse"], input=json.dumps(body).encode(),
                              capture_output=True, env=dict(os.environ, COGIT_HOME=str(c.home)))
        loaded = {m.split(".")[0] for m in proc.stdout.decode().splitlines()[-1].split()}
        assert "cogit" in loaded and not loaded & {"re", "json", "pathlib", "click", "dulwich", "ruamel", "jsonschema"}, loaded
    sessions = c.home / "runtime" / "sessions" / SID / "state.json"
    bash = json.loads(sessions.read_text())["agg"]["tools"]["Bash"]
    assert (bash["calls"], bash["failures"]) == (3, 2)
