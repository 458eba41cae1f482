"""Replays the recorded scenario traces through make_call / observe / on_prompt, in process.

Each trace (tests/senses/traces/*.json, written by make_traces.py) is a sequence of Claude Code
hook payloads; each step says which senses speak at that index (`expect`, in message order;
silence when absent), substrings the message holds (`contains`) and the motor learning the
step returns (`learning`). The state is round-tripped through JSON after every step, as the
hook persists it. `now` comes from the trace's timestamps, so the replay is deterministic.
"""

import glob
import json
import os
import re
import subprocess

import pytest

from cogit import senses
from cogit.senses import import_index

HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = sorted(glob.glob(os.path.join(HERE, "traces", "*.json")))
T0 = 1_780_000_000.0
TOOL_EVENTS = ("PostToolUse", "PostToolUseFailure")
# messages are statements and questions; shouted "system" language trips prompt-injection defences
SHOUTING = re.compile(r"\b(?:SYSTEM|IMPORTANT|MUST|NEVER|ALWAYS|WARNING|CRITICAL|INTERRUPT)\b")


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def substitute(value, repo):
    if isinstance(value, str):
        return value.replace("$REPO", repo) if repo else value
    if isinstance(value, list):
        return [substitute(v, repo) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, repo) for k, v in value.items()}
    return value


def make_repo(setup, tmp_path):
    spec = (setup or {}).get("git_repo")
    if not spec:
        return None
    repo = tmp_path / "repo"
    for rel, content in spec["files"].items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env)
    return str(repo)


def replay(trace, tmp_path):
    """Yields (index, step, text, learnings, state) for each step of a trace."""
    repo = make_repo(trace.get("setup"), tmp_path)
    cache_dir = str(tmp_path / "cache")
    if repo:  # the Spatial sense reads the import index the detached builder makes; made here first
        import_index.build(repo, cache_dir)
    state = {}
    for index, step in enumerate(trace["steps"]):
        payload = substitute(step["payload"], repo)
        now = T0 + step["t"]
        event = payload["hook_event_name"]
        text, learnings = None, []
        if event == "UserPromptSubmit":
            senses.on_prompt(state, payload["prompt"], now)
        elif event in TOOL_EVENTS:
            call = senses.make_call(
                payload["tool_name"],
                payload.get("tool_input"),
                payload.get("tool_response"),
                payload.get("error"),
                payload.get("duration_ms"),
                now,
                payload.get("cwd"),
                tool_use_id=payload.get("tool_use_id"),
            )
            json.dumps(call)
            text, learnings = senses.observe(state, call, trace.get("config") or {}, cwd=payload.get("cwd"),
                                             cache_dir=cache_dir, now=now)
        state = json.loads(json.dumps(state))  # what the hook persists between calls
        yield index, substitute(step, repo), text, learnings, state


@pytest.mark.parametrize("path", TRACES, ids=[os.path.basename(p)[:-5] for p in TRACES])
def test_trace(path, tmp_path):
    trace = load(path)
    problems = []
    for index, step, text, learnings, state in replay(trace, tmp_path):
        expect = step.get("expect", [])
        got = senses.fired(text)
        if got != expect:
            problems.append("step %d (%s): expected %s, got %s: %s" % (
                index, step["payload"]["hook_event_name"], expect, got, text))
            continue
        for needle in step.get("contains", []):
            if needle not in (text or ""):
                problems.append("step %d: %r not in %r" % (index, needle, text))
        if text is not None:
            assert isinstance(text, str) and text.strip()
            lines = text.split("\n")
            assert lines[0].startswith("[cogit:"), text
            assert len(text) <= senses.resolve(trace.get("config"))["max_chars"], text
            assert not SHOUTING.search(text), text
        want = step.get("learning")
        if want:
            if len(learnings) != 1:
                problems.append("step %d: expected one learning, got %r" % (index, learnings))
            else:
                got_l = learnings[0]
                assert set(got_l) == {"text", "category", "context"}, got_l
                if got_l["category"] != want["category"]:
                    problems.append("step %d: category %r != %r" % (index, got_l["category"], want["category"]))
                for needle in want.get("contains", []):
                    if needle not in got_l["text"]:
                        problems.append("step %d: %r not in learning %r" % (index, needle, got_l["text"]))
        elif learnings:
            problems.append("step %d: unexpected learnings %r" % (index, learnings))
        assert "err" not in state, state.get("err")
        assert len(json.dumps(state)) < 60000, "state grew to %d chars" % len(json.dumps(state))
        assert len(state.get("win", [])) <= 20
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", TRACES, ids=[os.path.basename(p)[:-5] for p in TRACES])
def test_trace_payloads_have_claude_code_shape(path):
    trace = load(path)
    assert isinstance(trace["description"], str) and trace["description"]
    assert isinstance(trace.get("config", {}), dict)
    last_t = None
    ids = {}
    for index, step in enumerate(trace["steps"]):
        p = step["payload"]
        assert set(step) <= {"payload", "t", "expect", "contains", "learning"}, step.keys()
        assert isinstance(step["t"], (int, float))
        assert all(name in senses.SENSES for name in step.get("expect", []))
        for key in ("session_id", "transcript_path", "cwd", "hook_event_name"):
            assert isinstance(p.get(key), str), (index, key)
        event = p["hook_event_name"]
        if event == "UserPromptSubmit":
            assert isinstance(p["prompt"], str)
        elif event == "PostToolUse":
            assert "tool_response" in p and "error" not in p
        elif event == "PostToolUseFailure":
            assert isinstance(p["error"], str) and "tool_response" not in p
            if p["tool_name"] == "Bash":
                assert re.match(r"Exit code \d+", p["error"])
        else:
            assert event == "SessionStart", event
        if event in TOOL_EVENTS:
            for key in ("tool_name", "tool_use_id"):
                assert isinstance(p[key], str) and p[key], (index, key)
            assert isinstance(p["tool_input"], dict)
            assert isinstance(p["duration_ms"], int)
            # a repeated tool_use_id is a duplicate delivery: the very same payload
            if p["tool_use_id"] in ids:
                assert ids[p["tool_use_id"]] == p, "tool_use_id reused for a different call"
            ids[p["tool_use_id"]] = p
        last_t = step["t"]
    assert last_t is not None


def test_there_are_enough_traces():
    names = {os.path.basename(p)[:-5] for p in TRACES}
    assert len(names) >= 12
    assert {"failing_command_loop", "exploring_failures", "three_large_reads", "long_run_without_user",
            "repeated_rereads", "repeated_passing_tests", "blast_radius", "scope_drift", "interrupt_recovery",
            "parallel_calls", "normal_session_100", "echo_edits_without_tests"} <= names


def test_normal_session_is_long_and_silent(tmp_path):
    trace = load(os.path.join(HERE, "traces", "normal_session_100.json"))
    calls = [s for s in trace["steps"] if s["payload"]["hook_event_name"] in TOOL_EVENTS]
    assert len(calls) == 100
    assert not any(s.get("expect") for s in trace["steps"])
    kinds = {s["payload"]["tool_name"] for s in calls}
    assert {"Read", "Edit", "Write", "Bash", "Grep", "TodoWrite"} <= kinds
    assert all(text is None for _, _, text, _, _ in replay(trace, tmp_path))


def test_every_sense_is_exercised_by_some_trace():
    seen = set()
    for path in TRACES:
        for step in load(path)["steps"]:
            seen.update(step.get("expect", []))
    assert seen == set(senses.SENSES)


def test_traces_are_current():
    """The JSON files are what make_traces.py writes (regenerate them after editing it)."""
    import importlib.util
    import tempfile

    spec = importlib.util.spec_from_file_location("make_traces", os.path.join(HERE, "make_traces.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with tempfile.TemporaryDirectory() as tmp:
        mod.OUT = tmp
        mod.main()
        for path in TRACES:
            with open(os.path.join(tmp, os.path.basename(path)), encoding="utf-8") as f:
                fresh = f.read()
            with open(path, encoding="utf-8") as f:
                assert f.read() == fresh, "%s is stale: run python tests/senses/make_traces.py" % path
