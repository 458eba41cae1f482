"""Issue 23, proof 1 with Codex: the real `codex exec` against a scripted model that ignores
the session-start digest and reacts only to what it is told after its last action (the
function call's output and whatever Codex put after it, the PreToolUse context among it).
The first session loops four times and finds the fix; later sessions fail at most once."""

from __future__ import annotations

from .app_loop import CMD, FIX, OWN_DISCOVERY, PROMPT, calls as _calls, forgetful as _forgetful, make_app, since_last_action
from .app_loop import turn as _turn
from .test_codex import codex_bin, codex_setup, fake_openai, run_codex, wait_for  # noqa: F401 (fixtures)

forgetful = _forgetful(lambda cmd: {"bash": cmd})


def test_later_codex_sessions_fail_at_most_once_before_the_fix(codex_setup, codex_bin, fake_openai):  # noqa: F811
    c, env, work = codex_setup
    make_app(work)
    fake_openai.script = forgetful

    def ended():
        return [e for e in c.json("log", "--event", "session") if e["trailers"].get("Cogit-Agent") == "codex"]

    runs = []
    for n in range(3):
        fake_openai.requests.clear()
        proc = run_codex(codex_bin, env, work, PROMPT)
        main = fake_openai.main_requests()
        calls = _calls(_turn(main[-1].get("input") or []))
        assert "Fixed: the app runs." in proc.stdout, (calls, proc.stdout[-1500:], proc.stderr[-1500:])
        runs.append((calls, main))
        assert wait_for(lambda: len(ended()) == n + 1)
        if n == 0:
            (rule,) = c.json("rules")
            assert FIX in rule["text"], rule
            assert calls.count(CMD) == OWN_DISCOVERY, calls
    rule = c.json("rules")[0]
    for calls, main in runs[1:]:
        assert calls.count(CMD) <= 1, calls
        reflex = [since_last_action(_turn(r.get("input") or [])) for r in main]
        reflex = [t for t in reflex if "[cogit:reflex]" in t]
        assert len(reflex) == 1 and f"[{rule['id']}]" in reflex[0], calls
    print("OBSERVED:", reflex[0][:1500])
    log = c.home / "runtime" / "logs" / "hooks.log"
    assert not log.exists() or log.read_text() == ""
