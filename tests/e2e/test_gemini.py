"""The real Gemini CLI (`gemini -p`, from the npm registry via .ci/install-gemini) against a
scripted Gemini API on 127.0.0.1, with the hooks `cogit install gemini` writes to the
user's settings.json. The digest must reach the model's requests, and the session's
lesson, tool calls (a failed shell command counted as failed) and receipts must be in
memory afterwards."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from .fake_gemini import FakeGemini

REPO = Path(__file__).resolve().parents[2]
INSTALL = REPO / ".ci" / "install-gemini"
GEMINI_TIMEOUT = 120
_LEAKY_PREFIXES = ("GEMINI_", "GOOGLE_", "COGIT_", "OTEL_", "CLOUD_SHELL")


@pytest.fixture(scope="session")
def gemini_entry() -> str:
    explicit = os.environ.get("COGIT_GEMINI_ENTRY")
    if explicit:
        return explicit
    proc = subprocess.run([str(INSTALL)], capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        pytest.fail(f".ci/install-gemini failed (exit {proc.returncode}):\n{proc.stderr}\n{proc.stdout}", pytrace=False)
    return lines[-1]


@pytest.fixture
def fake_gemini():
    fake = FakeGemini().start()
    yield fake
    fake.stop()


def wait_for(check, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return check()


def run_gemini(entry, env, work, prompt) -> subprocess.CompletedProcess:
    args = ["node", entry, "-p", prompt, "--yolo", "-m", "gemini-2.5-flash"]
    proc = subprocess.Popen(args, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=GEMINI_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"gemini -p timed out\nstdout: {out[-2000:]}\nstderr: {err[-2000:]}", pytrace=False)
    assert proc.returncode == 0, f"gemini exited {proc.returncode}\nstdout: {out[-2000:]}\nstderr: {err[-3000:]}"
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


def gemini_setup(c, fake) -> dict:
    """`cogit install gemini` in the test's user home, the user's own choices as `gemini` would have
    saved them (an API key, no folder-trust prompt), and the environment of a run against `fake`."""
    userhome = c.home.parent / "userhome"
    assert "Installed cogit's Gemini CLI hooks in" in c.run("install", "gemini").out
    settings = userhome / ".gemini" / "settings.json"
    data = json.loads(settings.read_text())
    data["security"] = {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}}
    settings.write_text(json.dumps(data, indent=2))
    env = {k: v for k, v in os.environ.items() if not k.startswith(_LEAKY_PREFIXES)}
    env["COGIT_WITHHOLD_SEED"] = "off"  # no withholding draw in these loops (cogit/hooks/withhold.py)
    env.update(HOME=str(userhome), GEMINI_API_KEY="dummy", GOOGLE_GEMINI_BASE_URL=fake.base_url)
    return env


def hook_texts(body: dict) -> list[str]:
    """The text parts Gemini CLI built from hooks' additionalContext (it escapes < and >)."""
    return [p["text"] for c in body.get("contents") or [] for p in c.get("parts") or []
            if isinstance(p.get("text"), str) and "<hook_context>" in p["text"]]


def test_gemini_session_gets_the_digest_and_its_lesson_reaches_memory(initialized, gemini_entry, fake_gemini, tmp_path):
    c = initialized
    work = tmp_path / "work"
    work.mkdir()
    c.run("add", "learning", "Old lesson: run the tests with pytest -q")
    env = gemini_setup(c, fake_gemini)

    fake_gemini.script = [{"bash": "ls /nonexistent-dir"}, "All done."]
    lesson = "the release branch is cut on Tuesdays"
    proc = run_gemini(gemini_entry, env, work, f"remember this: {lesson}")
    assert "All done." in proc.stdout

    first = fake_gemini.main_requests()[0]
    texts = hook_texts(first)
    digest = [t for t in texts if "&lt;cogit-memory&gt;" in t]
    assert len(digest) == 1 and "Old lesson: run the tests with pytest -q" in digest[0]
    assert any(f'cogit: noted for memory as a feedback learning: "{lesson}"' in t for t in texts)

    def ended():
        return [e for e in c.json("log", "--event", "session") if e["trailers"].get("Cogit-Agent") == "gemini-cli"]

    assert wait_for(lambda: ended())
    assert ended()[0]["trailers"]["Cogit-Digest"].startswith("startup ")
    assert any(i["text"] == lesson for i in c.json("show", "learnings")["learnings"])
    bash = c.json("show", "tools")["tools"]["tools"]["Bash"]
    assert (bash["calls"], bash["failures"]) == (1, 1)  # `Exit Code: 2` in llmContent
    assert bash["timed_calls"] == 1 and bash["duration_ms_total"] > 0  # timed from BeforeTool to AfterTool
    log = c.home / "runtime" / "logs" / "hooks.log"
    assert not log.exists() or log.read_text() == ""
