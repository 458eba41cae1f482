"""Issue 23, proof 1 with OpenClaw: the real `openclaw agent --local` against a scripted
Responses API model that ignores what memory gives at session start and reacts only to what
it is told after its last action (the exec call's output). OpenClaw has no pre-call context
channel, so the reflex about a call comes with that call's result, through the plugin's
agent-tool-result middleware (the result the model reads next). The first session loops four
times and finds the fix; each later session fails at most once before it."""

from __future__ import annotations

import json
import os
import subprocess
import time

from .test_openclaw import openclaw_bin  # noqa: F401 (fixture)

CMD = "python3 app.py"
FIX = "PYTHONPATH=src python3 app.py"
OWN_DISCOVERY = 4


def spawn_log(state, tmp_path):
    """Put a wrapper before the plugin's cogit command that notes each hook it is run for (the
    plugin appends the hook's name last): the proof of which hooks spawn a cogit process."""
    log, wrapper = tmp_path / "spawned.log", tmp_path / "note-hook.sh"
    wrapper.write_text(f'#!/bin/sh\nfor last; do :; done\necho "$last" >> {log}\nexec "$@"\n')
    wrapper.chmod(0o755)
    cfg = json.loads((state / "openclaw.json").read_text())
    entry = cfg["plugins"]["entries"]["cogit"]["config"]
    entry["command"] = [str(wrapper), *entry["command"]]
    (state / "openclaw.json").write_text(json.dumps(cfg, indent=2))
    return lambda: log.read_text().split() if log.exists() else []


def _turn(items):
    users = [k for k, i in enumerate(items) if isinstance(i, dict) and i.get("role") == "user"]
    return items[users[-1] + 1:] if users else items


def _calls(items) -> list[str]:
    return [json.loads(i.get("arguments") or "{}").get("command") for i in items
            if isinstance(i, dict) and i.get("type") == "function_call"]


def since_last_action(items) -> str:
    last = max((k for k, i in enumerate(items) if isinstance(i, dict) and i.get("type") == "function_call"), default=-1)
    return json.dumps(items[last + 1:])


def forgetful(body: dict) -> list:
    items = _turn(body.get("input") or [])
    calls = _calls(items)
    told = since_last_action(items) if calls else ""
    pad = [None] * sum(1 for i in items if isinstance(i, dict) and i.get("type") == "function_call_output")
    if calls and calls[-1] == FIX:
        return pad + ["Fixed: the app runs." if "app ran" in told else "Not fixed."]
    cmd = FIX if ("PYTHONPATH=src" in told or calls.count(CMD) >= OWN_DISCOVERY) else CMD
    return pad + [{"tool": "exec", "args": {"command": cmd}}]


def test_later_openclaw_sessions_fail_at_most_once_before_the_fix(initialized, openclaw_bin, tmp_path):  # noqa: F811
    from .fake_openai import FakeOpenAI

    c = initialized
    state, work, home = tmp_path / "openclaw-state", tmp_path / "work", c.home.parent / "userhome"
    (work / "src").mkdir(parents=True)
    (work / "app.py").write_text("import dih_helpers\nprint('app ran')\n")
    (work / "src" / "dih_helpers.py").write_text("")
    c.run("install", "openclaw", env={"OPENCLAW_STATE_DIR": str(state)})
    spawned = spawn_log(state, tmp_path)
    fake = FakeOpenAI(script=forgetful).start()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENCLAW_", "COGIT_", "OPENAI_"))}
    env["COGIT_WITHHOLD_SEED"] = "off"  # no withholding draw in these loops (cogit/hooks/withhold.py)
    env.update(HOME=str(home), OPENCLAW_STATE_DIR=str(state))

    def ended():
        return [e for e in c.json("log", "--event", "session") if e["trailers"].get("Cogit-Agent") == "openclaw"]

    def rules():  # OpenClaw makes its workspace a repository: the rule lives in that project's scope
        return c.json("rules", "--project", str(work)) if (work / ".git").exists() else c.json("rules")

    runs = []
    try:
        cfg = json.loads((state / "openclaw.json").read_text())
        cfg["models"] = {"providers": {"fake": {"baseUrl": fake.base_url, "apiKey": "dummy", "api": "openai-responses",
                                                "models": [{"id": "m1", "name": "m1", "contextWindow": 128000, "maxTokens": 4096}]}}}
        cfg["agents"] = {"defaults": {"model": {"primary": "fake/m1"}, "workspace": str(work)}}
        (state / "openclaw.json").write_text(json.dumps(cfg, indent=2))
        for n in range(3):
            fake.requests.clear()
            proc = subprocess.run([openclaw_bin, "agent", "--local", "--session-id", f"oc-reflex-{n}", "-m",
                                   "make `python3 app.py` work", "--json", "--timeout", "120"], cwd=work, env=env,
                                  capture_output=True, text=True, timeout=400, stdin=subprocess.DEVNULL)
            assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
            main = fake.main_requests()
            calls = _calls(_turn(main[-1].get("input") or []))
            assert "Fixed: the app runs." in proc.stdout, (calls, proc.stdout[-1500:])
            runs.append((calls, main))
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and len(ended()) < n + 1:
                time.sleep(0.5)
            assert len(ended()) == n + 1
            # Each call recorded once (by the result middleware; after_tool_call skips the calls it saw).
            assert f"{len(calls)} tool calls ({calls.count(CMD)} failed)" in ended()[0]["summary"], ended()[0]
            if n == 0:
                (rule,) = rules()
                assert FIX in rule["text"], rule
                assert calls.count(CMD) == OWN_DISCOVERY, calls
    finally:
        fake.stop()
    (rule,) = rules()
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
    log = c.home / "runtime" / "logs" / "hooks.log"
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


def test_block_repeats_blocks_the_exact_repeat_in_openclaw(initialized, openclaw_bin, tmp_path):  # noqa: F811
    """With this machine's reflex.block_repeats, the real OpenClaw does not run the exact repeat of
    a command that just failed the way a rule is about: the model reads the rule as its result."""
    from .fake_openai import FakeOpenAI

    c = initialized
    state, work, home = tmp_path / "openclaw-state", tmp_path / "work", c.home.parent / "userhome"
    (work / "src").mkdir(parents=True)
    (work / "app.py").write_text("import dih_helpers\nprint('app ran')\n")
    (work / "src" / "dih_helpers.py").write_text("")
    c.run("install", "openclaw", env={"OPENCLAW_STATE_DIR": str(state)})
    spawned = spawn_log(state, tmp_path)
    fake = FakeOpenAI(script=forgetful).start()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENCLAW_", "COGIT_", "OPENAI_"))}
    env["COGIT_WITHHOLD_SEED"] = "off"  # no withholding draw in these loops (cogit/hooks/withhold.py)
    env.update(HOME=str(home), OPENCLAW_STATE_DIR=str(state))

    def ended():
        return [e for e in c.json("log", "--event", "session") if e["trailers"].get("Cogit-Agent") == "openclaw"]

    gates = []  # how many before_tool_call processes each session ran
    try:
        cfg = json.loads((state / "openclaw.json").read_text())
        cfg["models"] = {"providers": {"fake": {"baseUrl": fake.base_url, "apiKey": "dummy", "api": "openai-responses",
                                                "models": [{"id": "m1", "name": "m1", "contextWindow": 128000, "maxTokens": 4096}]}}}
        cfg["agents"] = {"defaults": {"model": {"primary": "fake/m1"}, "workspace": str(work)}}
        (state / "openclaw.json").write_text(json.dumps(cfg, indent=2))
        for n, script in enumerate([forgetful, stubborn]):
            if n == 1:
                (c.home / "machine-settings.json").write_text(json.dumps({"reflex": {"block_repeats": True}}))
            fake.script = script
            fake.requests.clear()
            proc = subprocess.run([openclaw_bin, "agent", "--local", "--session-id", f"oc-block-{n}", "-m",
                                   "make `python3 app.py` work", "--json", "--timeout", "120"], cwd=work, env=env,
                                  capture_output=True, text=True, timeout=400, stdin=subprocess.DEVNULL)
            assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
            assert "Fixed: the app runs." in proc.stdout, proc.stdout[-1500:]
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and len(ended()) < n + 1:
                time.sleep(0.5)
            assert len(ended()) == n + 1
            gates.append(spawned().count("before_tool_call") - sum(gates))
    finally:
        fake.stop()
    assert "tool_result" in spawned()
    # Off (the first session): no cogit process for before_tool_call. On: one per call (3).
    assert gates == [0, 3], (gates, spawned())
    items = _turn(fake.main_requests()[-1].get("input") or [])
    outputs = [json.dumps(i) for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]
    assert _calls(items) == [CMD, CMD, FIX]
    print("OBSERVED:", outputs[1][:1500])
    assert "Blocked:" in outputs[1] and "PYTHONPATH=src" in outputs[1] and "(Command exited with code" not in outputs[1]
    # The blocked repeat never ran (no exit code in its result). OpenClaw reports it as a failed call,
    # so it is recorded as one, with the block as its error (another signature than the rule's).
    assert "3 tool calls (2 failed)" in ended()[0]["summary"], ended()[0]
