"""Issue 23, proof 1 with OpenClaw: the real `openclaw agent --local` against a scripted
Responses API model that ignores what memory gives at session start and reacts only to what
it is told after its last action (the exec call's output). OpenClaw has no pre-call context
channel, so the reflex about a call comes with that call's result, through the plugin's
agent-tool-result middleware (the result the model reads next). The first session loops four
times and finds the fix; each later session fails at most once before it."""

from __future__ import annotations

import json

from .app_loop import CMD, FIX, OWN_DISCOVERY, PROMPT, calls as _calls, forgetful as _forgetful, make_app, since_last_action
from .app_loop import turn as _turn
from .openclaw_harness import openclaw, openclaw_bin  # noqa: F401 (fixtures)

forgetful = _forgetful(lambda cmd: {"tool": "exec", "args": {"command": cmd}})


def test_later_openclaw_sessions_fail_at_most_once_before_the_fix(openclaw, tmp_path):  # noqa: F811
    oc = openclaw(make_app(tmp_path / "work"), forgetful)
    spawned = oc.spawn_log(tmp_path)
    runs = []
    for n in range(3):
        oc.fake.requests.clear()
        proc = oc.agent(f"oc-reflex-{n}", PROMPT)
        main = oc.fake.main_requests()
        calls = _calls(_turn(main[-1].get("input") or []))
        assert "Fixed: the app runs." in proc.stdout, (calls, proc.stdout[-1500:])
        runs.append((calls, main))
        ended = oc.wait_ended(n + 1)
        assert len(ended) == n + 1
        # Each call recorded once (by the result middleware; after_tool_call skips the calls it saw).
        assert f"{len(calls)} tool calls ({calls.count(CMD)} failed)" in ended[0]["summary"], ended[0]
        if n == 0:
            (rule,) = oc.rules()
            assert FIX in rule["text"], rule
            assert calls.count(CMD) == OWN_DISCOVERY, calls
    (rule,) = oc.rules()
    for calls, main in runs[1:]:
        assert calls.count(CMD) <= 1, calls
        told = [since_last_action(_turn(r.get("input") or [])) for r in main]
        told = [t for t in told if "[cogit:reflex]" in t]
        assert len(told) == 1 and f"[{rule['id']}]" in told[0], calls
    print("OBSERVED:", told[0][:1500])
    # reflex.block_repeats is off (the default): before_tool_call ran no cogit process, the result
    # middleware one per call.
    hooks = spawned()
    assert "before_tool_call" not in hooks and hooks.count("tool_result") == sum(len(calls) for calls, _ in runs), hooks
    # Each reflex is a receipt: the sessions count as shown the rule.
    assert rule["sessions_injected"] >= 2, rule
    log = oc.c.home / "runtime" / "logs" / "hooks.log"
    assert not log.exists() or log.read_text() == ""


def stubborn(body: dict) -> list:
    """Runs the failing command twice whatever it is told, then the fix if it was told it."""
    items = _turn(body.get("input") or [])
    calls = _calls(items)
    pad = [None] * sum(1 for i in items if isinstance(i, dict) and i.get("type") == "function_call_output")
    if calls and calls[-1] == FIX:
        return pad + ["Fixed: the app runs."]
    if calls.count(CMD) < 2:
        return pad + [{"tool": "exec", "args": {"command": CMD}}]
    return pad + [{"tool": "exec", "args": {"command": FIX}} if "PYTHONPATH=src" in json.dumps(items) else "Gave up."]


def test_block_repeats_blocks_the_exact_repeat_in_openclaw(openclaw, tmp_path):  # noqa: F811
    """With this machine's reflex.block_repeats, the real OpenClaw does not run the exact repeat of
    a command that just failed the way a rule is about: the model reads the rule as its result."""
    oc = openclaw(make_app(tmp_path / "work"), forgetful)
    spawned = oc.spawn_log(tmp_path)
    gates = []  # how many before_tool_call processes each session ran
    for n, script in enumerate([forgetful, stubborn]):
        if n == 1:
            (oc.c.home / "machine-settings.json").write_text(json.dumps({"reflex": {"block_repeats": True}}))
        oc.fake.script = script
        oc.fake.requests.clear()
        proc = oc.agent(f"oc-block-{n}", PROMPT)
        assert "Fixed: the app runs." in proc.stdout, proc.stdout[-1500:]
        ended = oc.wait_ended(n + 1)
        assert len(ended) == n + 1
        gates.append(spawned().count("before_tool_call") - sum(gates))
    assert "tool_result" in spawned()
    # Off (the first session): no cogit process for before_tool_call. On: one per call (3).
    assert gates == [0, 3], (gates, spawned())
    items = _turn(oc.fake.main_requests()[-1].get("input") or [])
    outputs = [json.dumps(i) for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]
    assert _calls(items) == [CMD, CMD, FIX]
    print("OBSERVED:", outputs[1][:1500])
    assert "Blocked:" in outputs[1] and "PYTHONPATH=src" in outputs[1] and "(Command exited with code" not in outputs[1]
    # The blocked repeat never ran (no exit code in its result). OpenClaw reports it as a failed call,
    # so it is recorded as one, with the block as its error (another signature than the rule's).
    assert "3 tool calls (2 failed)" in ended[0]["summary"], ended[0]
