"""The senses' mechanics: config, cooldowns, message composition, state bounds, robustness, weight."""

import json
import os
import random
import subprocess
import sys
import time

from cogit import senses
from cogit.senses import config as sconfig
from cogit.senses import import_index, spatial

OK = {"stdout": "", "stderr": "", "interrupted": False, "isImage": False, "noOutputExpected": False}
CWD = "/w"


class Session:
    """Feeds calls the way the hook core does, with a JSON round-trip of the state after each."""

    def __init__(self, config=None, cache_dir=None):
        self.state, self.config, self.cache_dir, self.t = {}, config or {}, cache_dir, 1000.0

    def prompt(self, text, dt=10.0):
        self.t += dt
        senses.on_prompt(self.state, text, self.t)
        self.state = json.loads(json.dumps(self.state))

    def tool(self, name, ti, resp=None, error=None, dt=10.0, tid=None):
        self.t += dt
        c = senses.make_call(name, ti, resp, error, 5, self.t, CWD, tool_use_id=tid)
        text, learnings = senses.observe(self.state, c, self.config, cwd=CWD, cache_dir=self.cache_dir, now=self.t)
        self.state = json.loads(json.dumps(self.state))
        assert "err" not in self.state, self.state["err"]
        return text, learnings

    def read(self, path, chars=1000, **kw):
        content = "x" * chars
        resp = {"type": "text", "file": {"filePath": path, "content": content, "numLines": 1}}
        return self.tool("Read", {"file_path": path}, resp, **kw)[0]

    def bash(self, cmd, **kw):
        return self.tool("Bash", {"command": cmd}, OK, **kw)[0]

    def fail(self, cmd, err, **kw):
        return self.tool("Bash", {"command": cmd}, None, "Exit code 1\n" + err, **kw)

    def edit(self, path, old="a", new="b", **kw):
        return self.tool("Edit", {"file_path": path, "old_string": old, "new_string": new}, {"filePath": path}, **kw)[0]


# --- config ------------------------------------------------------------------------------


def test_resolve_fills_defaults_and_rejects_wrong_types():
    cfg = senses.resolve({"o2": {"cooldown": "8", "multiplier": 4, "bogus": 1}, "chronos": [], "window": True,
                          "drift": {"enabled": 0}, "echo": {"edits": 7.0}, "unknown": {}})
    assert cfg["o2"]["cooldown"] == 8 and cfg["o2"]["multiplier"] == 4.0 and "bogus" not in cfg["o2"]
    assert cfg["chronos"] == sconfig.DEFAULTS["chronos"]
    assert cfg["window"] == 20 and cfg["drift"]["enabled"] is True and cfg["echo"]["edits"] == 7
    assert "unknown" not in cfg
    assert senses.resolve(None) == senses.resolve({}) == senses.resolve("junk")
    assert senses.resolve({}) is not sconfig.DEFAULTS


def test_every_sense_has_a_switch_and_a_cooldown_or_episode():
    for name in senses.SENSES:
        section = sconfig.DEFAULTS[name]
        assert section["enabled"] is True
        assert "cooldown" in section or name == "interrupt"  # the interrupt escalates per failure episode


def test_master_switch_leaves_everything_untouched():
    state = {}
    c = senses.make_call("Bash", {"command": "x"}, None, "Exit code 1\nboom", 1, 1.0, CWD)
    assert senses.observe(state, c, {"enabled": False}) == (None, [])
    assert state == {}


def test_a_disabled_sense_stays_silent():
    s = Session({"vestibular": {"enabled": False}})
    for _ in range(5):
        assert s.read("/w/a.py") is None


# --- normal calls, cooldowns, composition -------------------------------------------------


def test_a_normal_call_returns_none():
    s = Session()
    s.prompt("fix the bug in cogit/a.py")
    assert s.tool("Read", {"file_path": "/w/cogit/a.py"}, {"type": "text", "file": {"content": "x"}}) == (None, [])


def test_cooldown_keeps_a_sense_silent_for_that_many_calls():
    s = Session({"vestibular": {"cooldown": 2, "rereads": 2}})
    assert s.read("/w/a.py") is None
    assert senses.fired(s.read("/w/a.py")) == ["vestibular"]  # call 2
    assert s.read("/w/a.py") is None  # call 3: cooling
    assert s.read("/w/a.py") is None  # call 4: cooling
    assert senses.fired(s.read("/w/a.py")) == ["vestibular"]  # call 5


def test_signals_of_one_call_are_combined_in_one_message():
    s = Session({"chronos": {"calls": 5}})
    s.prompt("look into cogit/a.py")
    s.read("/w/cogit/a.py")
    s.bash("ls")
    s.read("/w/cogit/a.py")
    s.bash("git status")
    text = s.read("/w/cogit/a.py")  # 5th call after the prompt and 3rd read of a.py
    assert senses.fired(text) == ["vestibular", "chronos"]
    assert text.count("\n") == 1 and text.startswith("[cogit:vestibular]")
    assert s.state["last"] == ["vestibular", "chronos"]
    assert s.state["fired"] == {"vestibular": 1, "chronos": 1}


def test_a_long_message_drops_the_lowest_priority_signals():
    text = senses._compose({"chronos": "[cogit:chronos] " + "c" * 300, "interrupt": "[cogit:interrupt] " + "i" * 300}, 400)
    assert senses.fired(text) == ["interrupt"]
    assert len(senses._compose({"o2": "[cogit:o2] " + "o" * 900}, 400)) == 400


def test_duplicate_deliveries_are_ignored():
    s = Session()
    first = s.fail("make", "make: *** [all] Error 2", tid="toolu_A")
    again = s.fail("make", "make: *** [all] Error 2", tid="toolu_A")
    assert first == (None, []) and again == (None, [])
    assert s.state["n"] == 1


# --- chronos and prompts ------------------------------------------------------------------


def test_chronos_counts_from_the_last_prompt_and_resets_when_the_user_writes():
    s = Session({"chronos": {"calls": 3}})
    s.prompt("work on cogit/a.py and cogit/b.py")
    assert s.bash("ls") is None and s.bash("pwd") is None
    assert senses.fired(s.bash("date")) == ["chronos"]
    s.prompt("ok, continue with the b part")
    assert s.bash("ls") is None and s.bash("pwd") is None
    assert "3 tool calls" in s.bash("date")


def test_chronos_time_level_and_no_prompt_seen():
    s = Session()
    assert s.bash("ls", dt=0) is None
    text = s.bash("ls -la", dt=16 * 60)
    assert senses.fired(text) == ["chronos"] and "16m" in text and "no user message" in text


def test_time_never_runs_backwards():
    s = Session({"chronos": {"minutes": 1}})
    s.prompt("check cogit/a.py")
    assert s.bash("ls", dt=-500) is None  # an out-of-order timestamp from a parallel call


def test_short_prompts_continue_the_task_and_keep_its_terms():
    s = Session()
    s.prompt("Add a --json flag to the export command in cli/export.py")
    terms = list(s.state["prompt"]["terms"])
    s.prompt("yes, go on")
    assert s.state["prompt"]["terms"] == terms and s.state["prompt"]["lvl"] == 0
    s.prompt("now rename the plugin loader registry")
    assert "plugin" in s.state["prompt"]["terms"]


# --- nociception and the interrupt -----------------------------------------------------------


def test_escalation_levels_and_level_three_repeats_slowly():
    s = Session()
    fired = [senses.fired(s.fail("make", "src/a.c:%d: error: expected ';'" % i)[0]) for i in range(12)]
    assert fired[:7] == [[], ["nociception"], ["interrupt"], [], ["interrupt"], [], ["interrupt"]]
    assert fired[7:] == [[], [], [], ["interrupt"], []]  # level 3 again after 2 x escalate_after
    assert s.state["noci"]["level"] == 3


def test_different_errors_are_exploring():
    s = Session()
    errs = ["ModuleNotFoundError: No module named 'x'", "SyntaxError: invalid syntax", "fatal: not a git repository",
            "npm ERR! missing script: build", "error[E0433]: failed to resolve: use of undeclared crate"]
    assert all(s.fail("cmd%d" % i, e) == (None, []) for i, e in enumerate(errs))


def test_red_green_tdd_is_progress_not_a_loop():
    """Issue 22: an edit, then the same kind of failure with other values, is TDD moving."""
    s = Session()
    out = []
    for i, value in enumerate((0, 1, 2, 4)):
        out.append(senses.fired(s.fail("pytest -q tests/test_calc.py", "E       assert %d == 3\ntests/test_calc.py:4: AssertionError" % value)[0]))
        s.edit("/w/src/calc.py", "v%d" % i, "v%d" % (i + 1))
    assert out == [[], [], [], []] and s.state["noci"]["run"] == 1
    # The same value again after an edit is the loop (and a moving location does not hide it).
    s = Session()
    out = []
    for i in range(3):
        out.append(senses.fired(s.fail("npm run build", "src/index.ts(%d,7): error TS2322: Type 'string' is not assignable" % (10 + i))[0]))
        s.edit("/w/src/index.ts", "v%d" % i, "v%d" % (i + 1))
    assert out == [[], ["nociception"], ["interrupt"]]


def test_an_unresolved_episode_is_forgotten_without_a_learning():
    s = Session()
    for _ in range(3):
        s.fail("make", "error: expected ';'")
    learned = [s.read("/w/f%d.c" % i)  for i in range(12)]
    assert all(x is None for x in learned)
    assert s.state["noci"]["count"] == 0


def test_short_episodes_give_no_learning():
    s = Session()
    s.fail("make", "error: expected ';'")
    s.fail("make", "error: expected ';'")
    results = [s.tool("Bash", {"command": "make"}, OK)[1] for _ in range(3)]
    assert results == [[], [], []] and s.state["noci"]["count"] == 0


def test_edit_failures_resolve_on_the_same_file():
    s = Session()
    for _ in range(3):
        s.tool("Edit", {"file_path": "/w/a.py", "old_string": "x", "new_string": "y"}, None,
               "String to replace not found in file.\nString: x")
    s.read("/w/a.py")
    _, learned = s.tool("Edit", {"file_path": "/w/b.py", "old_string": "q", "new_string": "r"}, {})
    assert learned == []
    s.tool("Edit", {"file_path": "/w/a.py", "old_string": "x = 1", "new_string": "y = 1"}, {})
    s.bash("ls")
    _, learned = s.tool("Bash", {"command": "git diff"}, OK)
    assert len(learned) == 1 and learned[0]["category"] == "mistake"
    assert "Edit of a.py failed 3 times" in learned[0]["text"] and "String to replace not found" in learned[0]["text"]


# --- bounds and robustness -------------------------------------------------------------------


def test_state_stays_bounded_over_a_long_random_session(tmp_path):
    rng = random.Random(7)
    s = Session(cache_dir=str(tmp_path))
    for i in range(1500):
        r = rng.random()
        if r < 0.03:
            s.prompt("task %d about module%d and feature%d" % (i, rng.randint(0, 50), rng.randint(0, 50)))
        elif r < 0.35:
            s.read("/w/src/m%d.py" % rng.randint(0, 300), rng.randint(100, 20000))
        elif r < 0.55:
            s.edit("/w/src/m%d.py" % rng.randint(0, 300), "a%d" % i, "b%d" % i)
        elif r < 0.7:
            s.fail("cmd%d" % rng.randint(0, 3), "Error: thing %d broke" % rng.randint(0, 3))
        else:
            s.bash("pytest -q" if rng.random() < 0.3 else "echo %d" % i)
    size = len(json.dumps(s.state))
    assert size < 40000, size
    assert len(s.state["win"]) == 20 and len(s.state["noci"]["fails"]) <= 12


def test_garbage_never_raises():
    for state in ({}, {"v": 99, "win": "x"}, {"v": 1, "n": "x"}, {"v": 1, "n": 0, "win": [], "cool": [], "prompt": 3}):
        for c in ({}, {"tool": "Read"}, senses.make_call(None, None, None, None, None, None, None),
                  senses.make_call("Bash", {"command": 5}, {"stdout": None}, None, "x", "y", 3)):
            text, learned = senses.observe(state, c, {"o2": "x"}, cwd=None, cache_dir=None, now=None)
            assert text is None or isinstance(text, str)
            assert "err" not in state, state.get("err")
            json.dumps(state)
    senses.on_prompt({}, None, None)
    assert senses.observe(None, {}, {}) == (None, [])
    assert senses.fired(None) == []


def test_a_failing_sense_is_recorded_and_does_not_silence_the_others(monkeypatch):
    from cogit.senses import o2

    def boom(*a):
        raise RuntimeError("bug")

    monkeypatch.setattr(o2, "sense", boom)
    s = {}
    for i in range(2):
        c = senses.make_call("Read", {"file_path": "/w/a.py"}, {"type": "text", "file": {"content": "x"}}, None, 1, i, CWD)
        senses.observe(s, c, {"vestibular": {"rereads": 2}})
    assert s["err"].startswith("o2: RuntimeError") and s["last"] == ["vestibular"]


# --- spatial, through the sense ---------------------------------------------------------------


def _git_repo(root, files):
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)


def test_spatial_speaks_once_per_file_per_cooldown(tmp_path):
    _git_repo(tmp_path / "r", {"lib.py": "", **{"u%d.py" % i: "import lib\n" for i in range(6)}})
    import_index.build(str(tmp_path / "r"), str(tmp_path / "c"))  # what the detached builder does
    s = Session({"spatial": {"cooldown": 3}}, cache_dir=str(tmp_path / "c"))
    path = str(tmp_path / "r" / "lib.py")
    text = s.edit(path, "a", "b")
    assert senses.fired(text) == ["spatial"] and "lib.py is imported by 6 files" in text
    assert "index_wanted" not in s.state  # a fresh index: no build asked for
    assert s.edit(path, "b", "c") is None
    s.bash("ls")
    s.bash("pwd")
    assert senses.fired(s.edit(path, "c", "d")) == ["spatial"]


def test_spatial_says_nothing_before_the_index_exists_and_asks_for_a_build(tmp_path):
    _git_repo(tmp_path / "r", {"lib.py": "", **{"u%d.py" % i: "import lib\n" for i in range(6)}})
    s = Session(cache_dir=str(tmp_path / "c"))
    assert s.edit(str(tmp_path / "r" / "lib.py")) is None
    assert s.state["index_wanted"] == str(tmp_path / "r")
    assert not os.path.exists(tmp_path / "c") or not os.listdir(tmp_path / "c")  # the sense scanned nothing


def test_spatial_asks_to_refresh_an_old_index_and_still_reads_it(tmp_path):
    _git_repo(tmp_path / "r", {"lib.py": "", **{"u%d.py" % i: "import lib\n" for i in range(6)}})
    import_index.build(str(tmp_path / "r"), str(tmp_path / "c"))
    old = time.time() - import_index.REFRESH_S - 5
    for p in (tmp_path / "c").iterdir():
        os.utime(p, (old, old))
    s = Session(cache_dir=str(tmp_path / "c"))
    assert senses.fired(s.edit(str(tmp_path / "r" / "lib.py"))) == ["spatial"]
    assert s.state["index_wanted"] == str(tmp_path / "r")


def test_spatial_is_silent_outside_git_and_for_failed_writes(tmp_path):
    (tmp_path / "lib.py").write_text("")
    for i in range(6):
        (tmp_path / ("u%d.py" % i)).write_text("import lib\n")
    s = Session(cache_dir=str(tmp_path / "c"))
    assert s.edit(str(tmp_path / "lib.py")) is None
    _git_repo(tmp_path / "r", {"lib.py": "", **{"u%d.py" % i: "import lib\n" for i in range(6)}})
    import_index.build(str(tmp_path / "r"), str(tmp_path / "c"))
    text, _ = s.tool("Edit", {"file_path": str(tmp_path / "r" / "lib.py"), "old_string": "a", "new_string": "b"},
                     None, "String to replace not found in file.")
    assert text is None


def test_spatial_speaks_from_the_threshold_on(monkeypatch):
    def radius(path, cache_dir):
        return {"root": "/r", "rel": "core.py", "lang": "py", "count": 7, "importers": ["a%d.py" % i for i in range(7)],
                "complete": True, "built": True, "age": 1.0, "ms": 2.0}

    monkeypatch.setattr(import_index, "read_radius", radius)
    state = {"n": 1, "cool": {}}
    cfg = senses.resolve({})["spatial"]
    text = spatial.sense(state, {"kind": "write", "ok": True, "target": "/r/core.py"}, cfg)
    assert "core.py is imported by 7 files: " in text
    monkeypatch.setattr(import_index, "read_radius", lambda *a: dict(radius(*a), count=cfg["threshold"] - 1))
    state = {"n": 1, "cool": {}}
    assert spatial.sense(state, {"kind": "write", "ok": True, "target": "/r/core.py"}, cfg) is None


# --- weight and speed ---------------------------------------------------------------------------


def test_importing_the_senses_pulls_in_no_heavy_module():
    code = "import sys, cogit.senses; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    for heavy in ("click", "dulwich", "ruamel", "jsonschema", "ast", "dataclasses", "inspect", "typing", "json"):
        assert heavy not in out, heavy
    assert "cogit.senses.imports" not in out  # loaded only when a write is observed


def test_observe_is_fast():
    s = Session()
    s.prompt("refactor cogit/a.py")
    start = time.perf_counter()
    for i in range(300):
        if i % 3 == 0:
            s.read("/w/cogit/m%d.py" % i, 4000)
        elif i % 3 == 1:
            s.bash("pytest -q")
        else:
            s.tool("Grep", {"pattern": "x%d" % i}, {"mode": "files_with_matches", "filenames": ["/w/a.py"]})
    per_call_ms = (time.perf_counter() - start) * 1000 / 300
    assert per_call_ms < 5, per_call_ms  # includes the JSON round-trip of the state


# --- single senses, cases the traces do not cover ----------------------------------------------


def test_identical_writes_are_a_loop_but_progressing_edits_are_not():
    s = Session({"echo": {"enabled": False}})
    for i in range(5):
        assert s.edit("/w/a.py", "x = 1", "x = %d" % (i + 2)) is None  # different content each time
    write = {"file_path": "/w/b.py", "content": "y = 2\n"}
    assert s.tool("Write", write, {"type": "update", "filePath": "/w/b.py"})[0] is None
    s.read("/w/b.py")
    assert s.tool("Write", write, {"type": "update", "filePath": "/w/b.py"})[0] is None
    text = s.tool("Write", write, {"type": "update", "filePath": "/w/b.py"})[0]
    assert senses.fired(text) == ["vestibular"] and "identical content" in text and "3 times" in text


def test_o2_counts_command_output_not_only_input():
    s = Session()
    s.prompt("find the slow query in the logs")
    for i in range(6):
        s.bash("ls dir%d" % i)
    big = dict(OK, stdout="q" * 14000)
    texts = [s.tool("Bash", {"command": "cat logs/app%d.log" % i}, big)[0] for i in range(3)]
    assert texts[:2] == [None, None] and senses.fired(texts[2]) == ["o2"]
    assert "large results" in texts[2] and "app2.log" in texts[2]


def test_drift_terms():
    from cogit.senses.drift import call_terms, prompt_terms

    assert prompt_terms("Refactor the TokenCache in src/auth/token_cache.py please") == ["refactor", "tokencache", "token", "cache", "auth"]
    assert prompt_terms("yes, looks good, go on") == []
    assert call_terms({"kind": "read", "target": "/w/src/auth/token_cache.py"}, "/w") == ["auth", "token", "cache"]
    assert call_terms({"kind": "exec", "target": "x", "cmd": "git status --short"}, "/w") == []
    assert call_terms({"kind": "search", "target": "parseHeader in /w/net"}, "/w") == ["parseheader", "parse", "header", "net"]


def test_drift_speaks_only_after_min_calls_and_not_while_on_task():
    s = Session()
    s.prompt("speed up the token cache in auth/token_cache.py")
    for i in range(12):
        assert s.read("/w/auth/token_cache_%d.py" % i) is None
    texts = [s.read("/w/billing/invoice_%d.py" % i) for i in range(6)]
    assert texts[:5] == [None] * 5 and senses.fired(texts[5]) == ["drift"]


def test_the_learning_is_about_the_failure_that_got_resolved():
    s = Session()
    for _ in range(3):
        s.fail("pytest -q", "ModuleNotFoundError: No module named 'x'")
    s.fail("pytest -q", "AssertionError: assert 1 == 2")  # the error changed: the import was fixed
    learned = [s.bash("pytest -q"), s.bash("ls"), s.tool("Bash", {"command": "pwd"}, OK)[1]]
    assert learned[2] == [] and s.state["noci"]["count"] == 0  # one AssertionError: not worth a learning
