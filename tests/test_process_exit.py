"""A cogit process leaves as soon as its work is done, without the interpreter's teardown,
and loses nothing it wrote or said: the installed hook command (cogit/hooks/__init__.py
`run(leave=True)`, cogit/launch.py HOOK_CODE; a command written before, `sys.exit(run(...))`,
still works) and every CLI command (cogit/entry.py, through cogit/hooks/__init__.py `leave_now`)."""

import io
import json
import os
import subprocess
import sys

from test_hooks import bash_fail, payload

from cogit.launch import HOOK_CODE, hook_argv

OLD_CODE = "import sys; sys.path.append(sys.argv[1]); from cogit.hooks import run; sys.exit(run(sys.argv[2:]))"


def _hook(c, event: str, body: dict, code: str = HOOK_CODE):
    argv = hook_argv("claude", event)
    assert argv[argv.index("-c") + 1] == HOOK_CODE
    argv[argv.index("-c") + 1] = code
    # -v: an interpreter that tears itself down says "# cleanup ..." for each module it frees
    argv.insert(1, "-v")
    proc = subprocess.run(argv, input=json.dumps(body).encode(), capture_output=True,
                          env=dict(os.environ, COGIT_HOME=str(c.home)), timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.decode(), proc.stderr.decode()


def test_the_hook_process_leaves_without_teardown_and_keeps_what_it_wrote(initialized):
    c = initialized
    c.run("add", "learning", "Run the parser tests with -x first")
    out, err = _hook(c, "SessionStart", dict(payload("SessionStart", source="startup"), session_id="leave-1"))
    assert "# cleanup" not in err
    reply = json.loads(out)  # whole: flushed before the process left
    assert "Run the parser tests with -x first" in reply["hookSpecificOutput"]["additionalContext"]
    out, err = _hook(c, "PostToolUseFailure", dict(bash_fail(n=1), session_id="leave-1"))
    assert "# cleanup" not in err
    state = json.loads((c.home / "runtime" / "sessions" / "leave-1" / "state.json").read_text())
    assert state["agg"]["tools"]["Bash"]["calls"] == 1
    assert not (c.home / "runtime" / "logs" / "hooks.log").exists()


def test_a_command_written_before_still_runs_and_tears_down(initialized):
    c = initialized
    c.run("add", "learning", "Run the parser tests with -x first")
    out, err = _hook(c, "SessionStart", dict(payload("SessionStart", source="startup"), session_id="old-1"), OLD_CODE)
    assert "# cleanup" in err
    assert "Run the parser tests with -x first" in json.loads(out)["hookSpecificOutput"]["additionalContext"]


def test_cogit_hook_from_the_console_script_leaves_too(initialized, monkeypatch):
    """`cogit hook claude EVENT` (older installs, and the tests' own hook calls): the same."""
    c = initialized
    c.run("add", "learning", "Run the parser tests with -x first")
    env = dict(os.environ, COGIT_HOME=str(c.home))
    body = json.dumps(dict(payload("SessionStart", source="startup"), session_id="console-1")).encode()
    proc = subprocess.run([sys.executable, "-v", "-m", "cogit", "hook", "claude", "SessionStart"], input=body,
                          capture_output=True, env=env, timeout=60)
    assert proc.returncode == 0 and "# cleanup" not in proc.stderr.decode()
    assert "Run the parser tests with -x first" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    # in-process, it returns
    from cogit.entry import main
    monkeypatch.setenv("COGIT_HOME", str(c.home))
    saved = sys.stdin, sys.stdout
    try:
        sys.stdin, sys.stdout = io.TextIOWrapper(io.BytesIO(body)), io.StringIO()
        assert main(["hook", "claude", "SessionStart"]) == 0
    finally:
        sys.stdin, sys.stdout = saved


def test_a_cli_command_leaves_without_teardown_and_its_commit_and_output_are_whole(initialized):
    c = initialized
    env = dict(os.environ, COGIT_HOME=str(c.home))
    proc = subprocess.run([sys.executable, "-v", "-m", "cogit", "add", "learning", "Pin the linter version"],
                          capture_output=True, env=env, timeout=60, cwd=c.home.parent)
    assert proc.returncode == 0 and "# cleanup" not in proc.stderr.decode(), proc.stderr[-1000:]
    assert "Add learning" in proc.stdout.decode()
    assert "Pin the linter version" in c.git("log", "-1", "--format=%s")
    assert c.json("show", "learnings")["learnings"][0]["text"] == "Pin the linter version"
    c.assert_healthy()
    # an error keeps its exit code and its message
    proc = subprocess.run([sys.executable, "-m", "cogit", "revert", "zzzz"], capture_output=True, env=env,
                          timeout=60, cwd=c.home.parent)
    assert proc.returncode == 1 and proc.stderr.decode().startswith("Error: unknown revision 'zzzz'"), proc.stderr
    assert "cogit log" in proc.stderr.decode()  # the hint, after the error: both flushed


def test_a_reader_that_goes_away_is_no_error(initialized):
    """`cogit log | head -1`: the pipe closes under the command; it ends quietly, exit 0."""
    c = initialized
    for n in range(30):
        c.run("add", "learning", f"lesson number {n} about the build")
    env = dict(os.environ, COGIT_HOME=str(c.home))
    proc = subprocess.run(f"{sys.executable} -m cogit log | head -1", shell=True, capture_output=True, env=env,
                          timeout=60, cwd=c.home.parent, executable="/bin/bash")
    assert proc.stdout.decode().count("\n") == 1
    assert "Traceback" not in proc.stderr.decode() and "Exception ignored" not in proc.stderr.decode(), proc.stderr
