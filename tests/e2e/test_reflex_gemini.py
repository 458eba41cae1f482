"""Issue 23, proof 1 for a second agent: the real Gemini CLI (`gemini -p`) against a
scripted model that ignores what memory gives at session start and reacts only to what it
is told after its last action (the function response, where gemini-cli appends the hooks'
AfterTool context). gemini-cli reads no context from BeforeTool, so cogit gives the reflex
decided before the call with that call's result. The first session loops four times and
finds the fix; each later session fails at most once before it."""

from __future__ import annotations

import json

from .app_loop import CMD, FIX, OWN_DISCOVERY, PROMPT, make_app
from .fake_gemini import USAGE, FakeGemini
from .test_gemini import fake_gemini, gemini_entry, gemini_setup, run_gemini, wait_for  # noqa: F401 (fixtures)


def _calls(contents) -> list[str]:
    return [p["functionCall"]["args"]["command"] for c in contents if c.get("role") == "model"
            for p in c.get("parts") or [] if "functionCall" in p]


def since_last_action(contents) -> str:
    last = max((k for k, c in enumerate(contents) if c.get("role") == "model"), default=-1)
    return json.dumps(contents[last + 1:])


class ForgetfulGemini(FakeGemini):
    def _answer(self, body: dict) -> dict:
        if not body.get("tools"):
            return super()._answer(body)
        contents = body.get("contents") or []
        prompt = max((k for k, c in enumerate(contents) if c.get("role") == "user"
                      and any("text" in p and "make" in p["text"] for p in c.get("parts") or [])), default=-1)
        contents = contents[prompt + 1:]  # this session's own turn
        calls = _calls(contents)
        told = since_last_action(contents) if calls else ""
        if calls and calls[-1] == FIX:
            part = {"text": "Fixed: the app runs." if "app ran" in told else "Not fixed."}
        else:
            cmd = FIX if ("PYTHONPATH=src" in told or calls.count(CMD) >= OWN_DISCOVERY) else CMD
            part = {"functionCall": {"name": "run_shell_command", "args": {"command": cmd}}}
        return {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": USAGE}


def test_later_gemini_sessions_fail_at_most_once_before_the_fix(initialized, gemini_entry, fake_gemini, tmp_path):  # noqa: F811
    fake_gemini.__class__ = ForgetfulGemini
    c = initialized
    work = make_app(tmp_path / "work")
    env = gemini_setup(c, fake_gemini)

    def ended():
        return [e for e in c.json("log", "--event", "session") if e["trailers"].get("Cogit-Agent") == "gemini-cli"]

    runs = []
    for n in range(3):
        fake_gemini.requests.clear()
        proc = run_gemini(gemini_entry, env, work, PROMPT)
        main = fake_gemini.main_requests()
        contents = main[-1].get("contents") or []
        calls = _calls(contents)
        assert "Fixed: the app runs." in proc.stdout, (calls, proc.stdout[-1000:])
        runs.append((calls, main))
        assert wait_for(lambda: len(ended()) == n + 1, timeout=30)
        if n == 0:
            (rule,) = c.json("rules")
            assert FIX in rule["text"], rule
            assert calls.count(CMD) == OWN_DISCOVERY, calls
    rule = c.json("rules")[0]
    for calls, main in runs[1:]:
        assert calls.count(CMD) <= 1, calls
        reflex = [r for r in main if "[cogit:reflex]" in since_last_action(r.get("contents") or [])]
        assert reflex and f"[{rule['id']}]" in json.dumps(reflex[0]), calls
