"""The real OpenClaw (from the npm registry via .ci/install-openclaw) accepts cogit's plugin
as `cogit install openclaw` installs it: `openclaw plugins inspect cogit --runtime` loads
the entry and every hook registers (agent_end and before_prompt_build only with the
allowConversationAccess the installer sets)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from .openclaw_harness import clean_env, openclaw, openclaw_bin  # noqa: F401 (fixtures)


def inspect(openclaw_bin, state: Path, home: Path) -> dict:  # noqa: F811
    env = clean_env(state, home)
    proc = subprocess.run([openclaw_bin, "plugins", "inspect", "cogit", "--json", "--runtime"], capture_output=True,
                          text=True, env=env, timeout=300, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(proc.stdout[proc.stdout.index("{"):])


def test_openclaw_loads_the_installed_plugin_with_every_hook(initialized, openclaw_bin, tmp_path):  # noqa: F811
    c = initialized
    state = tmp_path / "openclaw-state"
    c.run("install", "openclaw", env={"OPENCLAW_STATE_DIR": str(state)})
    report = inspect(openclaw_bin, state, c.home.parent / "userhome")
    plugin = report["plugin"]
    assert plugin["id"] == "cogit" and plugin["status"] == "loaded" and plugin["enabled"] is True
    assert sorted(h["name"] for h in report["typedHooks"]) == sorted(
        ["session_start", "before_prompt_build", "before_tool_call", "after_tool_call", "agent_end", "before_compaction", "session_end"])
    # The only diagnostic allowed: OpenClaw cannot verify where a copied plugin came from.
    assert [d for d in report["diagnostics"] if "can't verify where this plugin came from" not in d["message"]] == []


def test_openclaw_agent_turn_gets_the_digest_and_its_lesson_reaches_memory(initialized, openclaw, tmp_path):  # noqa: F811
    """`openclaw agent --local` (the embedded agent) against a scripted Responses API: the
    digest arrives as plugin-injected system context, the "remember this" note in the
    turn's prompt, the tool call in the session's records, the lesson in memory."""
    c = initialized
    c.run("add", "learning", "Old lesson: the gateway restarts at 4am")
    work = tmp_path / "work"
    work.mkdir()
    oc = openclaw(work, [{"tool": "exec", "args": {"command": "ls"}}, "All done."])
    fake = oc.fake
    lesson = "the staging gateway listens on 18790"
    oc.agent("oc-e2e-1", f"remember this: {lesson}")
    first = fake.main_requests()[0]
    system = " ".join(p["text"] for i in first["input"] if i.get("role") == "system" for p in i["content"])
    user = " ".join(p["text"] for i in first["input"] if i.get("role") == "user" for p in i["content"] if "text" in p)
    assert system.count("<cogit-memory>") == 1 and "Old lesson: the gateway restarts at 4am" in system
    assert f'cogit: noted for memory as a feedback learning: "{lesson}"' in user
    # The process is gone, so the session ended (the plugin said so at exit) and is in memory.
    def ended():
        return [e for e in c.json("log", "--event", "session") if e["trailers"].get("Cogit-Session") == "oc-e2e-1"]

    import time

    for _ in range(30):
        if ended():
            break
        time.sleep(1)
    (end,) = ended()
    assert end["trailers"]["Cogit-Event"] == "session.end" and end["trailers"]["Cogit-Agent"] == "openclaw"
    assert end["trailers"]["Cogit-Digest"].startswith("startup ") and "; " not in end["trailers"]["Cogit-Digest"]
    assert "1 tool calls (0 failed), 1 prompts" in end["summary"], end

    def stored():  # the workspace is a repository, so the lesson is in its project's scope
        return c.json("log", "--event", "learning", "--session", "oc-e2e-1", "--project", str(work))

    for _ in range(30):
        if stored():
            break
        time.sleep(1)
    assert stored() and stored()[0]["trailers"]["Cogit-Agent"] == "openclaw"
    log = c.home / "runtime" / "logs" / "hooks.log"
    assert not log.exists() or log.read_text() == ""


# --- the learning loop: a looping mistake becomes a rule, later sessions avoid it -------

LOOP = "python3 -m app"  # fails while the widgets package is missing
FIX = "mkdir -p widgets && touch widgets/__init__.py"


def system_text(body: dict) -> str:
    return " ".join(p.get("text", "") for i in body.get("input") or [] if isinstance(i, dict) and i.get("role") == "system"
                    for p in i.get("content") or [] if isinstance(p, dict))


def knows_the_lesson(body: dict) -> bool:
    """What the scripted model acts on: was it shown, in cogit's digest, how this loop ends?"""
    digest = system_text(body).partition("<cogit-memory>")[2]
    return LOOP in digest and "widgets" in digest


def loops_unless_told(body: dict) -> list:
    run = lambda cmd: {"tool": "exec", "args": {"command": cmd}}  # noqa: E731
    if knows_the_lesson(body):
        return [run(FIX), run(LOOP), "Done: the app runs."]
    return [run(LOOP), run(LOOP), run(LOOP), run(FIX), run(LOOP), "Fixed it."]


def test_openclaw_failures_become_a_rule_that_later_sessions_avoid(initialized, openclaw, tmp_path):  # noqa: F811
    """`openclaw agent --local` reports a failed command only in its result
    (`details.exitCode: 1`) and sends no session_end: cogit reads the exit code, the
    plugin ends the session when the process exits, so the session is folded at once
    (not after 30 minutes) with its failures; three identical ones become an error_loop
    rule, and the next two sessions, shown the rule, avoid the loop (a suppression each)."""
    import shutil
    import time

    c = initialized
    work = tmp_path / "work"
    work.mkdir()
    (work / "app.py").write_text("import widgets\nprint('app ran')\n")
    oc = openclaw(work, loops_unless_told)
    fake, folded, rules = oc.fake, oc.ended, oc.rules
    for n in range(3):
        shutil.rmtree(work / "widgets", ignore_errors=True)
        fake.requests.clear()
        oc.agent(f"oc-loop-{n}", "make `python3 -m app` work")
        assert knows_the_lesson(fake.main_requests()[0]) == (n > 0)
        # Watched with git itself: any cogit command would fold a session whose process
        # is gone, and this is about the plugin ending it without one.
        def ends():
            return c.git("log", "--all", "--format=%s").count("Session oc-loop- ended")

        exited = time.monotonic()
        while time.monotonic() - exited < 30 and ends() < n + 1:
            time.sleep(0.5)
        assert ends() == n + 1, "the session was not folded when its process exited"
        assert len(folded()) == n + 1
        end = folded()[0]
        assert end["trailers"]["Cogit-Event"] == "session.end" and end["trailers"]["Cogit-Session"] == f"oc-loop-{n}"
        if n == 0:
            assert "5 tool calls (3 failed)" in end["summary"], end
            (rule,) = rules()
            assert (rule["detector"], rule["detections"], rule["suppressions"]) == ("error_loop", 1, 0)
        else:
            assert "2 tool calls (0 failed)" in end["summary"], end
    (rule,) = rules()
    assert (rule["detections"], rule["suppressions"], rule["sessions_injected"]) == (1, 2, 2)
    assert not (c.home / "runtime" / "sessions" / "oc-loop-2").exists()
    log = c.home / "runtime" / "logs" / "hooks.log"
    assert not log.exists() or log.read_text() == ""
