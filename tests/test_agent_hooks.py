"""`cogit hook <agent> EVENT` for Codex, Gemini CLI, Cursor and OpenClaw: real subprocesses,
payloads shaped as each agent documents them (shared/reference/agent-hooks.md, "Update,
late 2026"), the exact stdout each agent accepts."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import wait_for

SID = "019a7c1e-5b2d-7e41-9c3a-2f1c3e5b7a90"


def hook(c, agent, event, payload):
    data = payload if isinstance(payload, (str, bytes)) else json.dumps(payload)
    return c.run("hook", agent, event, input=data, check=False)


def state(c, sid=SID) -> dict:
    return json.loads((c.home / "runtime" / "sessions" / sid / "state.json").read_text())


def hook_log(c) -> str:
    path = c.home / "runtime" / "logs" / "hooks.log"
    return path.read_text() if path.exists() else ""


def learned(c) -> list[str]:
    return [i["text"] for i in c.json("show", "learnings")["learnings"]]


# --- payloads as each agent sends them ---------------------------------------------

def codex(event, **fields):
    base = {"session_id": SID, "turn_id": None, "transcript_path": None, "cwd": "/tmp", "hook_event_name": event,
            "model": "gpt-5.3-codex", "permission_mode": "default"}
    if event in ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"):
        base["turn_id"] = "019a7c1e-turn-0001"
    base.update(fields)
    return base


def gemini(event, **fields):
    base = {"session_id": SID, "transcript_path": f"/tmp/.gemini/tmp/chats/session-{SID}.json", "cwd": "/tmp",
            "hook_event_name": event, "timestamp": "2026-11-30T10:00:00.000Z"}
    base.update(fields)
    return base


def cursor(event, **fields):
    base = {"conversation_id": SID, "generation_id": "gen-0001", "hook_event_name": event,
            "workspace_roots": ["/tmp"], "model": "claude-4.5-sonnet", "cursor_version": "3.20.17"}
    base.update(fields)
    return base


def openclaw(hook_name, event=None, **ctx):
    base_ctx = {"agentId": "main", "sessionKey": "agent:main:main", "sessionId": SID, "workspaceDir": "/tmp"}
    base_ctx.update(ctx)
    return {"event": event or {}, "ctx": base_ctx}


@pytest.fixture
def remembered(initialized):
    c = initialized
    c.run("add", "learning", "Run tests with python -m pytest -q", "-c", "pattern")
    return c


# --- session start: the digest, in each agent's form --------------------------------

def test_codex_session_start_injects_the_digest_as_additional_context(remembered):
    c = remembered
    proc = hook(c, "codex", "SessionStart", codex("SessionStart", source="startup"))
    assert proc.returncode == 0 and proc.err == ""
    out = json.loads(proc.out)
    assert list(out) == ["hookSpecificOutput"] and list(out["hookSpecificOutput"]) == ["hookEventName", "additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "Run tests with python -m pytest -q" in out["hookSpecificOutput"]["additionalContext"]
    assert state(c)["agent"] == "codex" and state(c)["receipts"][0]["source"] == "startup"


def test_codex_prompt_with_nothing_new_gets_nothing_never_an_empty_context(remembered):
    """An empty additionalContext reached the model as an empty developer message on every
    prompt; nothing at all is what Codex takes as "no context" (and a bare continue it refuses)."""
    c = remembered
    hook(c, "codex", "SessionStart", codex("SessionStart", source="startup"))
    proc = hook(c, "codex", "UserPromptSubmit", codex("UserPromptSubmit", prompt="list the files"))
    assert (proc.returncode, proc.out, proc.err) == (0, "", "")
    assert state(c)["agg"]["prompts"] == 1  # the prompt was seen, only nothing was said
    # PreToolUse and a quiet PostToolUse print nothing at all.
    assert hook(c, "codex", "PreToolUse", codex("PreToolUse", tool_name="Bash", tool_input={"command": "ls"},
                                                 tool_use_id="call_1")).out == ""
    assert hook(c, "codex", "PostToolUse", codex("PostToolUse", tool_name="Bash", tool_input={"command": "ls"},
                                                  tool_response={"exit_code": 0, "output": "a\nb"}, tool_use_id="call_1")).out == ""


def test_gemini_session_start_and_before_agent_print_only_the_json(remembered):
    c = remembered
    proc = hook(c, "gemini", "SessionStart", gemini("SessionStart", source="startup"))
    out = json.loads(proc.out)
    assert out == {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                          "additionalContext": out["hookSpecificOutput"]["additionalContext"]}}
    assert "Run tests with python -m pytest -q" in out["hookSpecificOutput"]["additionalContext"]
    assert hook(c, "gemini", "BeforeAgent", gemini("BeforeAgent", prompt="hello")).out == ""
    proc = hook(c, "gemini", "BeforeAgent", gemini("BeforeAgent", prompt="remember this: the CI cache lives in /var/ci"))
    assert json.loads(proc.out) == {"hookSpecificOutput": {
        "hookEventName": "BeforeAgent",
        "additionalContext": 'cogit: noted for memory as a feedback learning: "the CI cache lives in /var/ci"'}}
    assert wait_for(lambda: "the CI cache lives in /var/ci" in learned(c))
    assert c.json("log", "--event", "learning")[0]["trailers"]["Cogit-Agent"] == "gemini-cli"


def test_cursor_replies_with_top_level_additional_context(remembered):
    c = remembered
    proc = hook(c, "cursor", "sessionStart", cursor("sessionStart", is_background_agent=False, composer_mode="agent"))
    out = json.loads(proc.out)
    assert list(out) == ["additional_context"] and "Run tests with python -m pytest -q" in out["additional_context"]
    proc = hook(c, "cursor", "beforeSubmitPrompt", cursor("beforeSubmitPrompt", prompt="remember this: deploys need a tag",
                                                          attachments=[]))
    assert proc.out == json.dumps({"continue": True, "additional_context":
                                   'cogit: noted for memory as a feedback learning: "deploys need a tag"'}, separators=(",", ":"))
    assert hook(c, "cursor", "beforeSubmitPrompt", cursor("beforeSubmitPrompt", prompt="ok go", attachments=[])).out == ""
    assert wait_for(lambda: "deploys need a tag" in learned(c))
    assert c.json("log", "--event", "learning")[0]["trailers"]["Cogit-Agent"] == "cursor"


def test_openclaw_gives_the_digest_at_the_first_prompt_as_system_context(remembered):
    c = remembered
    assert hook(c, "openclaw", "session_start", openclaw("session_start", {"sessionId": SID})).out == ""
    proc = hook(c, "openclaw", "before_prompt_build", openclaw("before_prompt_build", {"prompt": "hi", "messages": []}))
    out = json.loads(proc.out)
    assert list(out) == ["appendSystemContext"]
    assert out["appendSystemContext"].startswith("<cogit-memory>") and "Run tests with python -m pytest -q" in out["appendSystemContext"]
    assert [r["source"] for r in state(c)["receipts"]] == ["startup"]
    # The next turns: nothing changed, nothing said; a "remember this" is confirmed in the prompt's context.
    assert hook(c, "openclaw", "before_prompt_build", openclaw("before_prompt_build", {"prompt": "and now?"})).out == ""
    proc = hook(c, "openclaw", "before_prompt_build", openclaw("before_prompt_build", {"prompt": "remember this: the gateway restarts at 4am"}))
    assert json.loads(proc.out) == {"prependContext": 'cogit: noted for memory as a feedback learning: "the gateway restarts at 4am"'}
    assert wait_for(lambda: "the gateway restarts at 4am" in learned(c))
    assert c.json("log", "--event", "learning")[0]["trailers"]["Cogit-Agent"] == "openclaw"


# --- tool calls: failures reach the senses in every agent -------------------------

FAILING = "python -m pytest -q tests/test_x.py"


def _fails(c, agent, n):
    err = "E   ModuleNotFoundError: No module named 'x'\n1 error in 0.05s"
    if agent == "codex":
        return hook(c, "codex", "PostToolUse", codex("PostToolUse", tool_name="Bash", tool_input={"command": FAILING},
                                                      tool_response={"exit_code": 1, "output": err}, tool_use_id=f"call_{n}"))
    if agent == "gemini":
        return hook(c, "gemini", "AfterTool", gemini("AfterTool", tool_name="run_shell_command", tool_input={"command": FAILING},
                                                     tool_response={"llmContent": err, "returnDisplay": err,
                                                                    "error": {"message": f"Exit code 1\n{err}"}}))
    if agent == "cursor":
        return hook(c, "cursor", "postToolUseFailure", cursor("postToolUseFailure", tool_name="Shell", tool_input={"command": FAILING},
                                                              tool_use_id=f"tool_{n}", cwd="/tmp", error_message=f"Exit code 1\n{err}",
                                                              failure_type="error", duration=420, is_interrupt=False))
    return hook(c, "openclaw", "after_tool_call", openclaw("after_tool_call", {"toolName": "exec", "params": {"command": FAILING},
                                                                             "toolCallId": f"tc_{n}", "error": f"Exit code 1\n{err}",
                                                                             "durationMs": 420}))


@pytest.mark.parametrize("agent", ["codex", "gemini", "cursor"])
def test_repeated_failures_reach_the_nociceptive_sense(initialized, agent):
    c = initialized
    outs = [_fails(c, agent, n) for n in range(4)]
    assert all(p.returncode == 0 and p.err == "" for p in outs)
    s = state(c)
    assert s["agg"]["tools"]["Bash"] == {**s["agg"]["tools"]["Bash"], "calls": 4, "failures": 4}
    said = [p.out for p in outs if p.out]
    assert said, hook_log(c)  # the same failure again and again: the sense speaks
    out = json.loads(said[0])
    if agent == "cursor":
        assert list(out) == ["additional_context"] and out["additional_context"]
    else:
        key = {"codex": "PostToolUse", "gemini": "AfterTool"}[agent]
        assert out == {"hookSpecificOutput": {"hookEventName": key, "additionalContext": out["hookSpecificOutput"]["additionalContext"]}}
        assert out["hookSpecificOutput"]["additionalContext"]


def test_openclaw_after_tool_call_never_prints(initialized):
    """OpenClaw's after_tool_call is observe-only: its return value is ignored, so cogit says nothing."""
    c = initialized
    outs = [_fails(c, "openclaw", n) for n in range(4)]
    assert [p.out for p in outs] == ["", "", "", ""]
    assert state(c)["agg"]["tools"]["Bash"]["failures"] == 4


# --- fail open ----------------------------------------------------------------------

@pytest.mark.parametrize("agent,event,payload", [
    ("codex", "NoSuchEvent", codex("NoSuchEvent")),
    ("gemini", "BeforeModel", gemini("BeforeModel")),
    ("cursor", "sessionStart", {"generation_id": "x"}),
    ("openclaw", "before_prompt_build", {"event": {"prompt": "x"}, "ctx": {}}),
    ("codex", "SessionStart", "not json"),
    ("nobody", "SessionStart", codex("SessionStart")),
])
def test_bad_input_fails_open_and_silent(initialized, agent, event, payload):
    c = initialized
    proc = hook(c, agent, event, payload)
    assert (proc.returncode, proc.out, proc.err) == (0, "", "")
    assert hook_log(c).strip()


@pytest.mark.parametrize("agent,event,payload", [
    ("codex", "UserPromptSubmit", codex("UserPromptSubmit", prompt="remember this: x y z")),
    ("codex", "PostToolUse", codex("PostToolUse", tool_name="Bash", tool_input={"command": "ls"},
                                   tool_response={"exit_code": 2, "output": "ls: x: No such file"}, tool_use_id="c1")),
    ("gemini", "AfterTool", gemini("AfterTool", tool_name="read_file", tool_input={"absolute_path": "/tmp/x"},
                                   tool_response={"llmContent": "x", "returnDisplay": "x"})),
    ("cursor", "beforeSubmitPrompt", cursor("beforeSubmitPrompt", prompt="hello there", attachments=[])),
    ("openclaw", "before_prompt_build", openclaw("before_prompt_build", {"prompt": "hello"})),
    ("openclaw", "after_tool_call", openclaw("after_tool_call", {"toolName": "read", "params": {"path": "/tmp/x"}, "result": "x"})),
])
def test_adapters_import_nothing_slow(initialized, agent, event, payload):
    """The per-call path of every adapter: no json, pathlib, contextlib, click, dulwich,
    ruamel or jsonschema (each costs milliseconds on every tool call)."""
    c = initialized
    code = ("import sys; before = set(sys.modules); from cogit.hooks import run; run(sys.argv[1:]); "
            "sys.stdout.write('\\n' + ' '.join(sorted(set(sys.modules) - before)))")
    proc = subprocess.run([sys.executable, "-E", "-P", "-c", code, agent, event], input=json.dumps(payload).encode(),
                          capture_output=True, env=dict(os.environ, COGIT_HOME=str(c.home)))
    loaded = {m.split(".")[0] for m in proc.stdout.decode().splitlines()[-1].split()}
    assert f"cogit" in loaded
    assert not loaded & {"json", "pathlib", "contextlib", "click", "dulwich", "ruamel", "jsonschema"}, loaded


def test_gemini_shell_command_that_ran_and_failed_counts_as_failed(initialized):
    """Gemini CLI reports a command that ran and exited non-zero without `error`: its
    llmContent ends in `Exit Code: N` (seen from the real CLI in tests/e2e/test_gemini.py)."""
    c = initialized
    for code, n in ((2, 0), (0, 1)):
        content = f"Output: ls: cannot access '/x': No such file or directory\nExit Code: {code}\nProcess Group PGID: 5848"
        hook(c, "gemini", "AfterTool", gemini("AfterTool", tool_name="run_shell_command", tool_input={"command": "ls /x"},
                                             tool_response={"llmContent": content, "returnDisplay": content}))
    assert state(c)["agg"]["tools"]["Bash"] == {**state(c)["agg"]["tools"]["Bash"], "calls": 2, "failures": 1}


def test_gemini_tool_calls_are_timed_from_before_tool_to_after_tool(initialized):
    """Gemini CLI sends no duration and no call id: the core times the call from BeforeTool
    (its tool and input name the call) to AfterTool."""
    c = initialized
    call = {"tool_name": "run_shell_command", "tool_input": {"command": "sleep 0.3; ls", "description": "list"}}
    hook(c, "gemini", "SessionStart", gemini("SessionStart", source="startup"))
    hook(c, "gemini", "BeforeTool", gemini("BeforeTool", **call))
    import time

    time.sleep(0.3)
    proc = hook(c, "gemini", "AfterTool", gemini("AfterTool", **call, tool_response={"llmContent": "a\nb", "returnDisplay": "a\nb"}))
    assert (proc.returncode, proc.err) == (0, "")
    (record,) = [json.loads(line) for line in (c.home / "runtime" / "sessions" / SID / "calls.jsonl").read_text().splitlines()]
    assert record["tool"] == "Bash" and record["ms"] >= 300
    assert state(c)["agg"]["tools"]["Bash"]["timed_calls"] == 1
    # Another call, with no BeforeTool seen: counted, not timed.
    hook(c, "gemini", "AfterTool", gemini("AfterTool", tool_name="read_file", tool_input={"absolute_path": "/tmp/x"},
                                          tool_response={"llmContent": "x", "returnDisplay": "x"}))
    assert state(c)["agg"]["tools"]["Read"] == {**state(c)["agg"]["tools"]["Read"], "calls": 1, "timed_calls": 0}


# --- OpenClaw: a failed command's exit code, a session whose process is gone -----------

def _exec_result(code, text, signal=None):
    """The real exec tool's result (OpenClaw 2026, tests/e2e/test_openclaw.py)."""
    aggregated = text if code == 0 else f"{text}\n\n(Command exited with code {code})"
    return {"content": [{"type": "text", "text": aggregated}],
            "details": {"status": "completed", "exitCode": code, "exitSignal": signal, "exitReason": "exit",
                        "durationMs": 30, "aggregated": aggregated, "noOutputTimedOut": False, "cwd": "/tmp"}}


def test_openclaw_reads_the_exit_code_of_a_command_that_ran_and_failed(initialized):
    c = initialized
    err = "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nModuleNotFoundError: No module named 'widgets'"
    results = [
        _exec_result(1, err),                                                      # failed
        _exec_result(0, "error: fine"),                                            # ran and succeeded
        {"content": [{"type": "text", "text": "x: not found\n\n(Command exited with code 2)"}]},  # no details: failed
        {"content": [{"type": "text", "text": "printed (Command exited with code 0)"}]},           # succeeded
        _exec_result(None, "sleeping", signal="SIGKILL"),                          # killed
        _exec_result(0, "Traceback (most recent call last):\nKeyError: 'x'"),       # exit 0 wins over the text
    ]
    for n, result in enumerate(results):
        proc = hook(c, "openclaw", "after_tool_call", openclaw("after_tool_call", {
            "toolName": "exec", "params": {"command": "python3 -m app"}, "toolCallId": f"call_{n}|fc_{n}", "result": result,
            "durationMs": 40}, toolName="exec"))
        assert (proc.returncode, proc.out, proc.err) == (0, "", "")
    bash = state(c)["agg"]["tools"]["Bash"]
    assert (bash["calls"], bash["failures"]) == (6, 3), hook_log(c)


def test_openclaw_session_whose_process_is_gone_is_over_at_once(initialized):
    """A killed `openclaw agent --local` says nothing at all: its session is folded by the
    next cogit command, not after hooks.session_stale_minutes, once its process is gone."""
    c = initialized
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    for sid, pid in (("oc-dead", dead.pid), ("oc-alive", os.getpid())):
        body = openclaw("before_prompt_build", {"prompt": "list the files"}, sessionId=sid)
        body["process"] = {"pid": pid}
        assert hook(c, "openclaw", "before_prompt_build", body).returncode == 0
        assert state(c, sid)["owner"]["pid"] == pid
    c.run("finalize")
    sessions = c.home / "runtime" / "sessions"
    assert not (sessions / "oc-dead").exists() and (sessions / "oc-alive").exists()
    (end,) = [e for e in c.json("log", "--event", "session") if e["trailers"]["Cogit-Session"] == "oc-dead"]
    assert end["trailers"]["Cogit-Event"] == "session.end"
    # A pid from another machine's runtime (a shared home) proves nothing here.
    body = openclaw("before_prompt_build", {"prompt": "hi"}, sessionId="oc-elsewhere")
    body["process"] = {"pid": dead.pid}
    hook(c, "openclaw", "before_prompt_build", body)
    path = sessions / "oc-elsewhere" / "state.json"
    s = json.loads(path.read_text())
    s["owner"]["host"] = "another-machine"
    path.write_text(json.dumps(s))
    c.run("finalize")
    assert path.exists()


@pytest.mark.parametrize("process", [{"pid": True}, {"pid": 1}, {"pid": -5}, {"pid": 2 ** 40}, {"pid": "12"}, "x", [1]])
def test_openclaw_process_field_is_hostile(initialized, process):
    c = initialized
    body = openclaw("before_prompt_build", {"prompt": "hi"})
    body["process"] = process
    proc = hook(c, "openclaw", "before_prompt_build", body)
    assert proc.returncode == 0 and "owner" not in state(c)
