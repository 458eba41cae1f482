"""`cogit doctor` on a healthy memory and on each broken state; `--fix` repairs what it
says it repaired, checked afterwards with the real `git fsck` and a second doctor."""

from __future__ import annotations

import http.server
import json
import os
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

SID = "7a1b2c3d-doctor-4e5f-8a9b-0c1d2e3f4a5b"


def doctor(c, *args) -> tuple[int, list[dict]]:
    proc = c.run("doctor", "--json", *args, check=False)
    return proc.returncode, json.loads(proc.out)


def statuses(findings, name: str) -> set[str]:
    return {f["status"] for f in findings if f["name"] == name}


def only(findings, name: str, status: str) -> dict:
    (found,) = [f for f in findings if f["name"] == name and f["status"] == status]
    return found


def assert_all_ok(c, *args) -> list[dict]:
    rc, findings = doctor(c, *args)
    assert rc == 0 and {f["status"] for f in findings} == {"ok"}, [f for f in findings if f["status"] != "ok"]
    return findings


def dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def settings_file(c) -> Path:
    return c.home.parent / "userhome" / ".claude" / "settings.json"


def test_a_healthy_memory_is_all_ok_and_fast(initialized):
    c = initialized
    c.run("install", "claude")  # so the installed hook commands are run and judged too
    c.run("add", "learning", "doctor checks everything")
    started = time.monotonic()
    findings = assert_all_ok(c)
    elapsed = time.monotonic() - started
    names = {f["name"] for f in findings}
    assert names >= {"memory", "fsck", "state", "edits", "sessions", "staleness", "repository", "remotes", "endpoint",
                     "hook-log", "crash-log", "reflect-log", "runtime", "disk", "hooks"}, names
    assert only(findings, "fsck", "ok")["tool"] == "git"
    assert "start cogit" in only(findings, "hooks", "ok")["detail"]
    # About a second on an idle machine (0.3 s of CPU): a subprocess with imports, `git fsck` and
    # one probe of the hook command. The bound is loose because test machines are shared.
    assert elapsed < 20, elapsed
    # Running the installed hook command is a probe: it leaves no trace in memory or the hook log.
    assert not (c.home / "runtime" / "logs" / "hooks.log").exists()
    assert len(c.json("log")) == 2
    proc = c.run("doctor")
    assert "FAIL" not in proc.out and "warn" not in proc.out


def test_a_corrupt_object_fails_with_git_and_without_it(initialized):
    c = initialized
    c.run("add", "learning", "first")
    blob = c.git("rev-parse", "HEAD~1:learnings.yaml").strip()  # the init commit's file, still in history
    path = c.home / "memory" / ".git" / "objects" / blob[:2] / blob[2:]
    path.chmod(0o644)
    path.write_bytes(b"\x78\x9cgarbage, not zlib")
    rc, findings = doctor(c)
    assert rc == 1 and only(findings, "fsck", "fail")["tool"] == "git"
    assert blob in only(findings, "fsck", "fail")["detail"]
    # No git on PATH: dulwich reads every object and finds the same damage.
    proc = c.run("doctor", "--json", check=False, env={"PATH": os.path.dirname(sys.executable)})
    findings = json.loads(proc.out)
    bad = only(findings, "fsck", "fail")
    assert proc.returncode == 1 and bad["tool"] == "dulwich" and blob in bad["detail"], bad
    # --fix does not pretend: damage stays a failure, and nothing is packed over it.
    proc = c.run("doctor", "--fix", check=False)
    assert proc.returncode == 1 and "\nfixed" not in "\n" + proc.out and "cogit clone" in proc.out
    # A damaged head commit: every check that reads it says so; doctor itself does not crash.
    head = c.git("rev-parse", "HEAD").strip()
    path = c.home / "memory" / ".git" / "objects" / head[:2] / head[2:]
    path.chmod(0o644)
    path.write_bytes(b"\x78\x9cgarbage, not zlib")
    for env in (None, {"PATH": os.path.dirname(sys.executable)}):
        proc = c.run("doctor", "--json", check=False, env=env)
        assert proc.returncode == 1, proc.err
        findings = json.loads(proc.out)
        assert {"fsck", "state"} <= {f["name"] for f in findings if f["status"] == "fail"}
    assert not (c.home / "runtime" / "logs" / "crash.log").exists()


def test_an_invalid_state_file_on_a_project_branch_fails(initialized, tmp_path):
    c = initialized
    c.run("add", "learning", "project lesson", "--project", "proj")
    branch = "project/proj"
    assert branch in c.git("branch", "--list")
    # Someone commits a broken learnings.yaml to the project branch with plain git.
    work = tmp_path / "wt"
    c.git("worktree", "add", "-q", str(work), branch)
    (work / "learnings.yaml").write_text("schema_version: 1\nitems:\n  - id: l-123456\n    text: 42\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    import subprocess

    subprocess.run(["git", "-C", str(work), "-c", "user.name=x", "-c", "user.email=x@y", "commit", "-qam", "break"],
                   check=True, env=env)
    c.git("worktree", "remove", "--force", str(work))
    rc, findings = doctor(c)
    bad = only(findings, "state", "fail")
    assert rc == 1 and bad["branch"] == branch and bad["file"] == "learnings.yaml", bad
    assert "learnings.yaml:3" in bad["detail"] and "created_at" in bad["detail"], bad
    assert statuses(findings, "fsck") == {"ok"}  # git is fine with it: only cogit's schema is not
    proc = c.run("doctor", "--fix", check=False)
    assert proc.returncode == 1 and "\nfixed" not in "\n" + proc.out  # a person's data is never "repaired"
    # The hint works: it commits the last valid version on top.
    assert bad["last_valid"] == c.git("rev-parse", f"{branch}~1").strip()
    command = bad["hint"].split("(history keeps the rest): ", 1)[1]
    who = {"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@x"}
    subprocess.run(["sh", "-c", command], check=True, env={**env, **who}, capture_output=True)
    assert_all_ok(c)
    assert "project lesson" in c.run("show", "learnings", "--project", branch).out
    c.git("fsck", "--strict")


def test_a_missing_state_file_is_restored_as_a_commit(initialized):
    c = initialized
    c.git("rm", "-q", "reflections.yaml")
    c.git("-c", "user.name=x", "-c", "user.email=x@y", "commit", "-qm", "remove by hand")
    rc, findings = doctor(c)
    missing = only(findings, "state", "warn")
    assert rc == 0 and missing["files"] == ["reflections.yaml"] and missing["branch"] == "main", missing
    out = c.run("doctor", "--fix").out
    assert "fixed state: main: restored reflections.yaml from the defaults" in out, out
    assert "Cogit-Event: doctor.restore" in c.git("log", "-1", "--format=%B")
    assert (c.home / "memory" / "reflections.yaml").read_text() == c.git("show", "HEAD:reflections.yaml")
    c.git("fsck", "--strict")
    assert_all_ok(c)
    assert c.git("status", "--porcelain") == ""


def test_hand_edits_waiting_and_set_aside(initialized):
    c = initialized
    learnings = c.home / "memory" / "learnings.yaml"
    learnings.write_text(learnings.read_text() + "# a note\n")
    rc, findings = doctor(c)
    assert rc == 0 and "waits to be committed" in only(findings, "edits", "warn")["detail"], [f for f in findings if f["status"] != "ok"]
    learnings.write_text("schema_version: 1\nitems: 5\n")
    rc, findings = doctor(c)
    assert rc == 1 and "learnings.yaml:2" in only(findings, "edits", "fail")["detail"]
    c.run("add", "learning", "a write of the section sets the invalid edit aside")
    rc, findings = doctor(c)
    assert rc == 0 and "set aside" in only(findings, "edits", "warn")["detail"]


def test_a_stale_git_lock_is_cleared_by_fix(initialized):
    c = initialized
    (c.home / "memory" / ".git" / "index.lock").write_text("")
    rc, findings = doctor(c)
    assert rc == 0 and "index.lock" in only(findings, "memory", "warn")["detail"]
    assert "fixed memory: cleared what a killed cogit process left: index.lock" in c.run("doctor", "--fix").out
    assert not (c.home / "memory" / ".git" / "index.lock").exists()
    c.git("fsck", "--strict")
    assert_all_ok(c)


def test_log_errors_are_reported_once_since_the_last_check(initialized):
    c = initialized
    assert_all_ok(c)
    proc = c.run("hook", "claude", "PostToolUse", input="{not json", check=False)  # a real hook failure
    assert proc.returncode == 0 and proc.out == ""
    logs = c.home / "runtime" / "logs"
    with open(logs / "crash.log", "a") as f:  # as cogit/cli/__init__.py writes one
        f.write(f"--- {time.strftime('%Y-%m-%dT%H:%M:%S')} cogit 0.1.0 python 3.11\nargs: ['x']\n"
                "Traceback (most recent call last):\nZeroDivisionError: division by zero\n")
    with open(logs / "reflect.log", "a") as f:
        f.write(f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} reflect failed: connection refused\n")
    rc, findings = doctor(c)
    assert rc == 1
    hook = only(findings, "hook-log", "warn")
    assert hook["entries"] == 1 and "PostToolUse" in hook["detail"], hook
    assert only(findings, "crash-log", "fail")["entries"] == 1
    assert "connection refused" in only(findings, "reflect-log", "warn")["detail"]
    assert_all_ok(c)  # the same entries are not news a second time
    c.run("hook", "claude", "Stop", input="", check=False)
    rc, findings = doctor(c)
    assert rc == 0 and only(findings, "hook-log", "warn")["entries"] == 1


def test_an_unwritable_runtime_folder_fails(initialized):
    c = initialized
    runtime = c.home / "runtime"
    moved = c.home / "runtime.moved"
    if os.geteuid() == 0:  # root writes through any mode: put a file where the folder should be
        runtime.rename(moved)
        runtime.write_text("not a folder")
    else:
        runtime.chmod(0o500)
    try:
        rc, findings = doctor(c)
        assert rc == 1 and "cannot be written" in only(findings, "runtime", "fail")["detail"]
    finally:
        if moved.exists():
            runtime.unlink()
            moved.rename(runtime)
        runtime.chmod(0o700)
    assert_all_ok(c)


def test_remotes_dead_and_alive_and_offline(initialized, tmp_path):
    c = initialized
    bare = tmp_path / "bare.git"
    import subprocess

    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    c.run("remote", "add", "backup", str(bare))
    c.run("push", "backup")
    assert "backup" in only(assert_all_ok(c), "remotes", "ok")["detail"]
    c.run("remote", "add", "origin", f"git://127.0.0.1:{dead_port()}/memory.git")
    started = time.monotonic()
    rc, findings = doctor(c)
    assert time.monotonic() - started < 20
    dead = only(findings, "remotes", "warn")
    assert rc == 0 and dead["remote"] == "origin" and "unreachable" in dead["detail"], dead
    rc, findings = doctor(c, "--offline")
    assert rc == 0 and statuses(findings, "remotes") == {"skipped"}


class Models(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802
        body = json.dumps({"object": "list", "data": [{"id": "smollm2-135m", "object": "model"}]}).encode()
        self.send_response(200 if self.path == "/v1/models" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def set_config(c, text: str = "", **doctor_settings) -> None:
    """Append `text` to config.yaml and set `doctor.KEY: VALUE` lines; commit the hand edit."""
    import re

    cfg = c.home / "memory" / "config.yaml"
    data = cfg.read_text() + text
    for key, value in doctor_settings.items():
        data, n = re.subn(rf"(?m)^  {key}: .*$", f"  {key}: {value}", data)
        assert n == 1, key
    cfg.write_text(data)
    c.run("commit")


def test_the_reflection_endpoint_alive_dead_and_offline(initialized):
    c = initialized
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Models)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        cfg = c.home / "memory" / "config.yaml"
        cfg.write_text(cfg.read_text().replace("  endpoint: null", f"  endpoint: http://127.0.0.1:{server.server_address[1]}/v1", 1))
        set_config(c)
        assert statuses(doctor(c)[1], "endpoint") == {"ok"} and "no reflection endpoint" in only(doctor(c)[1], "endpoint", "ok")["detail"]
        c.confirm_waiting()  # the endpoint is this machine's decision: not contacted until confirmed
        assert "smollm2-135m" in only(assert_all_ok(c), "endpoint", "ok")["detail"]
    finally:
        server.shutdown()
        server.server_close()
    cfg = c.home / "memory" / "config.yaml"
    cfg.write_text(cfg.read_text().replace(f":{server.server_address[1]}/", f":{dead_port()}/"))
    c.run("commit")
    c.confirm_waiting()
    rc, findings = doctor(c)
    assert rc == 0 and "unreachable" in only(findings, "endpoint", "warn")["detail"]
    rc, findings = doctor(c, "--offline")
    assert statuses(findings, "endpoint") == {"skipped"}


def test_a_broken_installed_hook_command_fails_and_fix_reinstalls_it(initialized):
    c = initialized
    c.run("install", "claude")
    path = settings_file(c)
    path.write_text(path.read_text().replace(sys.executable, "/nonexistent/venv/bin/python"))
    rc, findings = doctor(c)
    bad = only(findings, "hooks", "fail")
    assert rc == 1 and "does not start cogit" in bad["detail"] and "/nonexistent/venv/bin/python" in bad["detail"], bad
    assert bad["agent"] == "claude"
    out = c.run("doctor", "--fix").out
    assert "fixed hooks: reinstalled cogit's hook commands" in out, out
    assert "/nonexistent" not in path.read_text() and sys.executable in path.read_text()
    assert_all_ok(c)
    # A Python without cogit fails the same way.
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else None
    if python and os.path.realpath(python) != os.path.realpath(sys.executable):
        path.write_text(path.read_text().replace(sys.executable, python))
        rc, findings = doctor(c)
        assert rc == 1 and "cogit" in only(findings, "hooks", "fail")["detail"]


def test_many_loose_objects_are_packed_by_fix(initialized):
    c = initialized
    set_config(c, max_loose_objects=5)
    for n in range(3):
        c.run("add", "learning", f"lesson {n}")
    rc, findings = doctor(c)
    loose = only(findings, "repository", "warn")
    assert rc == 0 and loose["loose_objects"] > 5, loose
    out = c.run("doctor", "--fix").out
    assert "fixed repository: packed" in out, out
    objects = c.home / "memory" / ".git" / "objects"
    assert not [d for d in objects.iterdir() if len(d.name) == 2 and any(d.iterdir())]
    c.git("fsck", "--strict")
    assert_all_ok(c)
    c.run("add", "learning", "writes after packing work")
    c.assert_healthy()
    assert len(c.json("log")) == 6


def test_an_unfinished_session_is_finalized_by_fix(initialized, tmp_path):
    c = initialized
    folder = tmp_path / "proj"
    folder.mkdir()
    payload = {"session_id": SID, "transcript_path": "/tmp/x.jsonl", "cwd": str(folder), "hook_event_name": "PostToolUse",
               "tool_name": "Read", "tool_input": {"file_path": f"{folder}/a.py"}, "tool_use_id": "t1",
               "tool_response": {"type": "text", "file": {"content": "x"}}}
    assert c.hook("PostToolUse", payload).returncode == 0
    state_path = c.home / "runtime" / "sessions" / SID / "state.json"
    rc, findings = doctor(c)
    assert rc == 0 and "1 session(s) running" in only(findings, "sessions", "ok")["detail"]
    state = json.loads(state_path.read_text())
    state["last_event_at"] = time.time() - 3 * 3600  # the agent was killed hours ago
    state_path.write_text(json.dumps(state))
    rc, findings = doctor(c)
    assert rc == 0 and only(findings, "sessions", "warn")["unfinished"] == 1
    out = c.run("doctor", "--fix").out
    assert "fixed sessions: finalized 1 of 1 unfinished session(s)" in out, out
    assert "session.fold" in c.git("log", "-1", "--format=%B")
    c.git("fsck", "--strict")
    assert_all_ok(c)


def test_staleness_thresholds_come_from_config(initialized):
    c = initialized
    set_config(c, stale_days=0, reflection_stale_days=0)
    time.sleep(1.1)
    rc, findings = doctor(c)
    warned = [f["detail"] for f in findings if f["name"] == "staleness" and f["status"] == "warn"]
    assert rc == 0 and len(warned) == 2 and "doctor.stale_days = 0" in warned[0], warned
    assert "no reflection" in warned[1]


def test_status_points_to_doctor_when_something_is_wrong(initialized):
    c = initialized
    assert "cogit doctor" not in c.run("status").out
    assert c.json("status")["attention"] == []
    c.run("hook", "claude", "PostToolUse", input="{not json", check=False)
    out = c.run("status").out
    assert "cogit doctor" in out and "hook error" in out, out
    c.run("doctor")  # the check reads the news; status is quiet again
    assert "cogit doctor" not in c.run("status").out
    (c.home / "memory" / "learnings.yaml").write_text("items: 5\n")
    assert any("invalid hand edit" in a for a in c.json("status")["attention"])


def test_doctor_without_memory_still_checks_the_machine(cogit):
    rc, findings = doctor(cogit)
    assert rc == 1 and "cogit init" in only(findings, "memory", "fail")["hint"]
    assert statuses(findings, "disk") == {"ok"} and statuses(findings, "hooks") == {"ok"}


# --- the hooks check when one of cogit's events was taken out ----------------------------

def test_a_removed_hook_event_is_named_with_what_it_costs_and_fix_adds_it_back(initialized):
    c = initialized
    c.run("install", "claude")
    path = settings_file(c)
    data = json.loads(path.read_text())
    del data["hooks"]["SessionEnd"]
    path.write_text(json.dumps(data, indent=2))
    rc, findings = doctor(c)
    bad = only(findings, "hooks", "warn")
    assert "older version" not in bad["detail"] and "import code" not in bad["detail"], bad
    assert bad["detail"].startswith(f"cogit's SessionEnd hook is missing from {path} (the other 8 are current): ")
    assert "only after hooks.session_stale_minutes of silence" in bad["detail"] and bad["missing"] == ["SessionEnd"]
    assert "adds it back" in bad["hint"]
    out = c.run("doctor", "--fix").out
    assert "fixed hooks: added back cogit's SessionEnd hook" in out, out
    assert "SessionEnd" in json.loads(path.read_text())["hooks"]
    assert_all_ok(c)


def test_a_removed_codex_event_is_named_too(initialized):
    c = initialized
    codex_home = c.home.parent / "codex-home"
    env = {"CODEX_HOME": str(codex_home)}
    c.run("install", "codex", env=env)
    path = codex_home / "hooks.json"
    data = json.loads(path.read_text())
    del data["hooks"]["PostToolUse"], data["hooks"]["PreToolUse"]
    path.write_text(json.dumps(data, indent=2))
    proc = c.run("doctor", "--json", check=False, env=env)
    bad = only(json.loads(proc.out), "hooks", "warn")
    assert bad["agent"] == "codex" and bad["missing"] == ["PostToolUse", "PreToolUse"], bad
    assert "tool calls are not recorded" in bad["detail"] and "durations are not measured" in bad["detail"]
    assert "older version" not in bad["detail"]


def test_an_old_command_form_is_still_called_older(initialized):
    c = initialized
    c.run("install", "claude")
    path = settings_file(c)
    path.write_text(path.read_text().replace(" -E -P", ""))  # the form before -E -P
    bad = only(doctor(c)[1], "hooks", "fail")
    assert "older version" in bad["detail"], bad


# --- what the hooks delivered: failures and session ends from runtime evidence ------------

def evidence(c, agent, records):
    from cogit import __version__

    path = c.home / "runtime" / "agents.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data[agent] = [dict({"id": f"s{i}:p:f1", "t": 1, "v": __version__, "calls": 30, "shell": 25, "failures": 0,
                         "end": "ended"}, **r) for i, r in enumerate(records)]
    path.write_text(json.dumps(data))


def test_an_agent_whose_hooks_never_report_a_failure_or_an_end(initialized):
    c = initialized
    codex_home = c.home.parent / "codex-home"
    env = {"CODEX_HOME": str(codex_home)}
    c.run("install", "codex", env=env)
    c.run("install", "claude")
    evidence(c, "codex", [{"end": "silent"}] * 3)  # 75 shell commands, no failure, no end
    evidence(c, "claude-code", [{"failures": 2}, {}, {"end": "gone"}])
    proc = c.run("doctor", "--json", check=False, env=env)
    agents = [f for f in json.loads(proc.out) if f["name"] == "agents"]
    warns = [f for f in agents if f["status"] == "warn"]
    assert [f["agent"] for f in warns] == ["codex", "codex"], agents
    assert "Codex's hooks never reported a failed tool call: 0 failures in 75 shell commands over the last 3 sessions" in warns[0]["detail"]
    assert "Codex's sessions never end: the last 3 were folded into memory only after 30 minutes of silence" in warns[1]["detail"]
    assert [f["agent"] for f in agents if f["status"] == "ok"] == ["claude"]


@pytest.mark.parametrize("records", [
    [{}] * 2,                                         # too few sessions to say
    [{"shell": 19}] * 3,                              # too few commands to say
    [{"failures": 1}, {}, {}],                        # a failure was reported
    [{"v": "0.0.1"}] * 3,                             # evidence from another version's hooks
    [{"end": "gone", "failures": 1}] * 3,             # its process went away each time: that is an end
])
def test_no_verdict_without_enough_evidence_of_silence(initialized, records):
    c = initialized
    codex_home = c.home.parent / "codex-home"
    env = {"CODEX_HOME": str(codex_home)}
    c.run("install", "codex", env=env)
    evidence(c, "codex", records)
    proc = c.run("doctor", "--json", check=False, env=env)
    assert not [f for f in json.loads(proc.out) if f["name"] == "agents" and f["status"] != "ok"]


def test_an_agent_not_installed_gets_no_verdict(initialized):
    c = initialized
    evidence(c, "codex", [{"end": "silent"}] * 5)
    assert not [f for f in doctor(c)[1] if f["name"] == "agents"]


def test_finalize_records_what_each_session_delivered(initialized):
    """The evidence comes from real hook sessions: shell calls, failures, how each ended."""
    c = initialized

    def codex_hook(event, sid, **fields):
        body = {"session_id": sid, "turn_id": "t", "transcript_path": None, "cwd": "/tmp", "hook_event_name": event,
                "model": "gpt-5.3-codex", "permission_mode": "default", **fields}
        assert c.run("hook", "codex", event, input=json.dumps(body), check=False).returncode == 0

    tb = "Traceback (most recent call last):\n  File \"x\", line 1\nModuleNotFoundError: No module named 'w'\n"
    for sid, end in (("cx-ended", True), ("cx-silent", False)):
        codex_hook("UserPromptSubmit", sid, prompt="run the app please")
        for n, out in enumerate((tb, "ok\n")):
            codex_hook("PostToolUse", sid, tool_name="Bash", tool_input={"command": "python3 -m app"},
                       tool_response=out, tool_use_id=f"call_{n}")
        if end:
            codex_hook("SessionEnd", sid, reason="other")
    state = c.home / "runtime" / "sessions" / "cx-silent" / "state.json"
    s = json.loads(state.read_text())
    s["last_event_at"] -= 3600  # silent for an hour
    state.write_text(json.dumps(s))
    c.run("finalize")
    records = json.loads((c.home / "runtime" / "agents.json").read_text())["codex"]
    got = sorted((r["id"].split(":")[0], r["shell"], r["failures"], r["end"]) for r in records)
    assert got == [("cx-ended", 2, 1, "ended"), ("cx-silent", 2, 1, "silent")]


def test_the_form_before_leave_is_called_slower_not_unsafe_and_fix_upgrades_it(initialized):
    """The hook command before `run(..., leave=True)` (cogit/launch.py EARLIER_HOOK_CODES) works:
    a warning that says what it costs, and `--fix` writes today's form."""
    from cogit.launch import EARLIER_HOOK_CODES, HOOK_CODE

    c = initialized
    c.run("install", "claude")
    path = settings_file(c)
    assert HOOK_CODE in path.read_text()
    path.write_text(path.read_text().replace(HOOK_CODE, EARLIER_HOOK_CODES[0]))
    bad = only(doctor(c)[1], "hooks", "warn")
    assert "earlier form" in bad["detail"] and "older version" not in bad["detail"], bad
    assert "fixed hooks: upgraded cogit's hook commands" in c.run("doctor", "--fix").out
    assert HOOK_CODE in path.read_text() and EARLIER_HOOK_CODES[0] not in path.read_text()
