"""The real Codex CLI (`codex exec`, from the npm registry via .ci/install-codex) against a
scripted Responses API on 127.0.0.1, with the hooks `cogit install codex` writes.

Codex runs a new command hook only once the user trusted it in `/hooks`; the test does
what /hooks does: it asks Codex's app-server for the hooks it found (`hooks/list`: key
and current hash) and records them as trusted in config.toml (`[hooks.state."KEY"]
trusted_hash`). The digest must reach the model's requests, and the session's lesson,
tool calls and receipts must be in memory afterwards.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from .fake_openai import FakeOpenAI

REPO = Path(__file__).resolve().parents[2]
INSTALL = REPO / ".ci" / "install-codex"
CODEX_TIMEOUT = 120
_LEAKY_PREFIXES = ("OPENAI_", "CODEX_", "COGIT_", "OTEL_")


@pytest.fixture(scope="session")
def codex_bin() -> str:
    explicit = os.environ.get("COGIT_CODEX_BIN")
    if explicit:
        return explicit
    proc = subprocess.run([str(INSTALL)], capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        pytest.fail(f".ci/install-codex failed (exit {proc.returncode}):\n{proc.stderr}\n{proc.stdout}", pytrace=False)
    return lines[-1]


@pytest.fixture
def fake_openai():
    fake = FakeOpenAI().start()
    yield fake
    fake.stop()


def codex_env(c, codex_home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(_LEAKY_PREFIXES)}
    env["COGIT_WITHHOLD_SEED"] = "off"  # no withholding draw in these loops (cogit/hooks/withhold.py)
    env.update(HOME=str(c.home.parent / "userhome"), CODEX_HOME=str(codex_home))
    return env


def trust_hooks(codex_bin: str, env: dict, cwd: Path) -> list[dict]:
    """What the user does in /hooks: mark every hook Codex found as trusted."""
    proc = subprocess.Popen([codex_bin, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env, start_new_session=True)
    try:
        def ask(msg_id, method, params):
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}) + "\n")
            proc.stdin.flush()
            while True:
                line = proc.stdout.readline()
                assert line, "codex app-server closed its output"
                reply = json.loads(line)
                if reply.get("id") == msg_id:
                    return reply["result"]

        ask(1, "initialize", {"clientInfo": {"name": "cogit-tests", "version": "1"}})
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "initialized"}) + "\n")
        hooks = ask(2, "hooks/list", {"cwds": [str(cwd)]})["data"][0]["hooks"]
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    with open(Path(env["CODEX_HOME"]) / "config.toml", "a", encoding="utf-8") as f:
        for hook in hooks:
            f.write(f'\n[hooks.state."{hook["key"]}"]\ntrusted_hash = "{hook["currentHash"]}"\n')
    return hooks


@pytest.fixture
def codex_setup(initialized, codex_bin, fake_openai, tmp_path):
    c = initialized
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    env = codex_env(c, codex_home)
    out = c.run("install", "codex", env={"CODEX_HOME": str(codex_home)}).out
    assert "next: Open Codex and run /hooks" in out
    (codex_home / "config.toml").write_text(
        'model = "gpt-5.3-codex"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
        f'base_url = "{fake_openai.base_url}"\nwire_api = "responses"\n', "utf-8")
    hooks = trust_hooks(codex_bin, env, work)
    assert sorted(h["eventName"] for h in hooks) == sorted(
        ["sessionStart", "userPromptSubmit", "preToolUse", "postToolUse", "stop", "subagentStop", "preCompact", "sessionEnd"])
    return c, env, work


def run_codex(codex_bin, env, work, prompt) -> subprocess.CompletedProcess:
    args = [codex_bin, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", prompt]
    proc = subprocess.Popen(args, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=CODEX_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"codex exec timed out\nstdout: {out[-2000:]}\nstderr: {err[-2000:]}", pytrace=False)
    assert proc.returncode == 0, f"codex exited {proc.returncode}\nstdout: {out[-2000:]}\nstderr: {err[-3000:]}"
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


def developer_texts(body: dict) -> list[str]:
    return [part.get("text", "") for item in body.get("input") or [] if isinstance(item, dict) and item.get("role") == "developer"
            for part in item.get("content") or [] if isinstance(part, dict)]


def wait_for(check, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return check()


def test_codex_session_gets_the_digest_and_its_lesson_reaches_memory(codex_setup, codex_bin, fake_openai):
    c, env, work = codex_setup
    c.run("add", "learning", "Old lesson: run the tests with pytest -q")
    fake_openai.script = [{"bash": "ls"}, "All done."]
    lesson = "the build server is called ci-7"
    proc = run_codex(codex_bin, env, work, f"remember this: {lesson}")
    assert "All done." in proc.stdout

    first = fake_openai.main_requests()[0]
    digest = [t for t in developer_texts(first) if t.startswith("<cogit-memory>")]
    assert len(digest) == 1 and "Old lesson: run the tests with pytest -q" in digest[0]
    assert f'cogit: noted for memory as a feedback learning: "{lesson}"' in developer_texts(first)

    def ended():
        return [e for e in c.json("log", "--event", "session") if e["trailers"].get("Cogit-Agent") == "codex"]

    assert wait_for(lambda: ended()), (c.home / "runtime" / "logs")
    end = ended()[0]
    assert end["trailers"]["Cogit-Digest"].startswith("startup ")
    assert any(i["text"] == lesson for i in c.json("show", "learnings")["learnings"])
    assert c.json("show", "tools")["tools"]["tools"]["Bash"]["calls"] == 1
    log = c.home / "runtime" / "logs" / "hooks.log"
    assert not log.exists() or log.read_text() == ""

    # The next Codex session starts with the lesson in its digest.
    fake_openai.requests.clear()
    fake_openai.script = ["Nothing to do."]
    run_codex(codex_bin, env, work, "what do you know?")
    digest = [t for t in developer_texts(fake_openai.main_requests()[0]) if t.startswith("<cogit-memory>")]
    assert len(digest) == 1 and lesson in digest[0]
    # A prompt with nothing new in memory adds no (empty) developer message.
    assert all(t.strip() for r in fake_openai.main_requests() for t in developer_texts(r)), \
        [developer_texts(r) for r in fake_openai.main_requests()]


# --- the learning loop: a looping mistake becomes a rule, later sessions avoid it -------

LOOP = "python3 -m app"  # fails while the widgets package is missing
FIX = "mkdir -p widgets && touch widgets/__init__.py"


def knows_the_lesson(body: dict) -> bool:
    """What the scripted model acts on: was it shown, in cogit's digest, how this loop ends?"""
    digest = [t for t in developer_texts(body) if t.startswith("<cogit-memory>")]
    return bool(digest) and LOOP in digest[0] and "widgets" in digest[0]


def loops_unless_told(body: dict) -> list:
    if knows_the_lesson(body):
        return [{"bash": FIX}, {"bash": LOOP}, "Done: the app runs."]
    return [{"bash": LOOP}, {"bash": LOOP}, {"bash": LOOP}, {"bash": FIX}, {"bash": LOOP}, "Fixed it."]


def test_codex_failures_become_a_rule_that_later_sessions_avoid(codex_setup, codex_bin, fake_openai):
    """Codex sends a shell call's output without its exit code: cogit reads it (from the
    rollout record Codex writes first), so three identical failures are a loop, the loop
    becomes an error_loop rule, and the next three sessions, shown the rule, avoid it:
    each earns the rule a suppression, none a detection."""
    import shutil

    c, env, work = codex_setup
    (work / "app.py").write_text("import widgets\nprint('app ran')\n")
    fake_openai.script = loops_unless_told

    def folded():
        return [e for e in c.json("log", "--event", "session") if e["trailers"].get("Cogit-Agent") == "codex"]

    for n in range(4):
        shutil.rmtree(work / "widgets", ignore_errors=True)
        fake_openai.requests.clear()
        run_codex(codex_bin, env, work, "make `python3 -m app` work")
        assert knows_the_lesson(fake_openai.main_requests()[0]) == (n > 0)
        assert wait_for(lambda: len(folded()) == n + 1), (c.home / "runtime" / "logs")
        if n == 0:
            bash = c.json("show", "tools")["tools"]["tools"]["Bash"]
            assert (bash["calls"], bash["failures"]) == (5, 3)
            assert "(3 failed)" in folded()[0]["summary"], folded()[0]
            (rule,) = c.json("rules")
            assert (rule["detector"], rule["detections"], rule["suppressions"]) == ("error_loop", 1, 0)
            assert "widgets" in rule["signature"]
    (rule,) = c.json("rules")
    assert (rule["detections"], rule["suppressions"], rule["sessions_injected"]) == (1, 3, 3)
    assert c.json("show", "tools")["tools"]["tools"]["Bash"]["failures"] == 3  # later sessions: no failure at all
    log = c.home / "runtime" / "logs" / "hooks.log"
    assert not log.exists() or log.read_text() == ""
