"""A stateful property test of session lifecycles against a simple model.

Random interleavings of SessionStart (startup, resume, compact, clear), prompts with
"remember this", tool calls, SessionEnd, kills (a session that goes silent for longer
than the stale time) and `cogit finalize`, across two session ids in one project,
with every hook a real subprocess run in the project folder (and the detached
finalizes the hooks start running beside them). Afterwards: every lesson cogit said
it noted is in memory exactly once and nothing else is, the tool calls add up, no
session without a prompt or a tool call made a commit, and the runtime folder is empty.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hypothesis import Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule, run_state_machine_as_test

from cogit.learn.drain import finalize
from cogit.paths import Home
from cogit.scope import project_of
from cogit.store.history import log as history
from cogit.store import memory
from cogit.store.git import repo as git
from conftest import git as run_git

SESSIONS = ("aaaaaaaa-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000002")
STALE_S = 30 * 60


def cogit(home: Path, cwd: Path, *args, input: bytes | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, COGIT_HOME=str(home))
    return subprocess.run([sys.executable, "-m", "cogit", *args], input=input, capture_output=True,
                          env=env, cwd=str(cwd), timeout=60)


def without_update(said, acknowledged):
    """A prompt's reply without the per-turn update (lessons other sessions stored since this
    session's last injection, each one acknowledged before), which comes first."""
    if said and said.startswith("<cogit-memory-update>"):
        update, _, said = said.partition("</cogit-memory-update>")
        for line in update.splitlines()[2:]:
            assert any(f"] {lesson} [" in line for lesson in acknowledged), line
        said = said.lstrip("\n") or None
    return said


class Sessions(RuleBasedStateMachine):
    root: Path  # set by the test

    @initialize()
    def setup(self):
        base = Path(tempfile.mkdtemp(dir=self.root))
        self.home, self.project = base / "home", base / "proj"
        self.project.mkdir()
        run_git(self.project, "init", "-q")
        memory.init(Home(self.home))  # in-process: the hooks and finalizes below are the subject
        self.acknowledged: list[str] = []
        self.calls = {"Read": 0, "Bash": 0}
        self.failures = 0
        self.n = 0

    def hook(self, event: str, sid: str, **fields) -> str | None:
        body = {"session_id": sid, "transcript_path": f"/tmp/{sid}.jsonl", "cwd": str(self.project),
                "hook_event_name": event, **fields}
        proc = cogit(self.home, self.project, "hook", "claude", event, input=json.dumps(body).encode())
        assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
        return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] if proc.stdout else None

    @rule(sid=st.sampled_from(SESSIONS), source=st.sampled_from(["startup", "resume", "compact", "clear"]))
    def start(self, sid, source):
        self.hook("SessionStart", sid, source=source)

    @rule(sid=st.sampled_from(SESSIONS), kind=st.sampled_from(["remember", "prompt", "tool", "failure"]))
    def act(self, sid, kind):
        """A turn of the session: a prompt (asking to remember, or not) or a tool call."""
        self.n += 1
        if kind == "remember":
            lesson = f"lesson {self.n} of {sid[:4]}"
            said = self.hook("UserPromptSubmit", sid, prompt=f"Remember this: {lesson}")
            assert without_update(said, self.acknowledged) == f'cogit: noted for memory as a feedback learning: "{lesson}"'
            self.acknowledged.append(lesson)
        elif kind == "prompt":
            said = self.hook("UserPromptSubmit", sid, prompt="please look at the parser and tell me what it does")
            assert without_update(said, self.acknowledged) is None
        elif kind == "tool":
            self.hook("PostToolUse", sid, tool_name="Read", tool_input={"file_path": f"{self.project}/f{self.n}.py"},
                      tool_response={"type": "text", "file": {"content": "x"}}, tool_use_id=f"t{self.n}", duration_ms=2)
            self.calls["Read"] += 1
        else:
            self.hook("PostToolUseFailure", sid, tool_name="Bash", tool_input={"command": f"false {self.n}"},
                      tool_use_id=f"t{self.n}", error="Exit code 1", is_interrupt=False, duration_ms=2)
            self.calls["Bash"] += 1
            self.failures += 1

    @rule(sid=st.sampled_from(SESSIONS), wait=st.booleans())
    def end(self, sid, wait):
        self.hook("SessionEnd", sid, reason="prompt_input_exit")
        if wait:  # the user comes back later: the fold the hook started has finished
            finalize(Home(self.home), sid, 30)

    @rule(sid=st.sampled_from(SESSIONS))
    def kill(self, sid):
        """The agent dies and the clock moves past the stale time: no SessionEnd ever comes."""
        self.age(sid)

    @rule()
    def finalize(self):
        proc = cogit(self.home, self.project, "finalize")
        assert proc.returncode == 0, proc.stderr

    def age(self, sid):
        from cogit.runtime import Session

        session = Session(str(self.home / "runtime" / "sessions"), sid)
        then = time.time() - 2 * STALE_S
        session.update(lambda s: s.__setitem__("last_event_at", then), create=False)
        if session.exists():
            os.utime(session.state_path, (then, then))

    def teardown(self):
        if not hasattr(self, "home"):
            return
        for sid in SESSIONS:  # whatever is still running is killed
            self.age(sid)
        home = Home(self.home)
        deadline = time.monotonic() + 30
        while True:
            finalize(home, None, 30)  # waits for the hooks' detached finalizes (session locks)
            left = list(home.sessions.iterdir()) if home.sessions.exists() else []
            if not left:
                break
            assert time.monotonic() < deadline, f"runtime folder not empty: {left}"
            time.sleep(0.1)
        info = project_of(str(self.project))
        repo = git.open_repo(home.memory)
        try:
            has_branch = git.head(repo, info["branch"]) is not None
        finally:
            repo.close()
        stored = [i["text"] for i in memory.read(home, branch=info["branch"])[1]["learnings"]["items"]] if has_branch else []
        assert sorted(stored) == sorted(self.acknowledged)  # each exactly once, nothing else
        tools = memory.read(home)[1]["tools"]["tools"]
        assert {t: tools.get(t, {}).get("calls", 0) for t in self.calls} == self.calls
        assert sum(t.get("failures", 0) for t in tools.values()) == self.failures
        for entry in history.log(home, event="session"):
            assert ": 0 tool calls (0 failed), 0 prompts" not in entry.summary, entry.summary
        assert not (self.home / "runtime" / "unstored").exists()


def test_sessions_against_a_model(tmp_path):
    Sessions.root = tmp_path
    run_state_machine_as_test(
        # No shrinking: each step is a subprocess and shrinking a failure took minutes;
        # the failing steps are printed as they ran.
        Sessions, settings=settings(max_examples=6, stateful_step_count=20, deadline=None,
                                    phases=[Phase.explicit, Phase.reuse, Phase.generate])
    )
