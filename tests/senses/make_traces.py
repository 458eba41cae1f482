"""Writes the recorded scenario traces in tests/senses/traces/ (run: python tests/senses/make_traces.py).

The payloads are shaped exactly as Claude Code sends them (see shared/reference/claude-code-observed.md):
PostToolUse with `tool_response`, PostToolUseFailure with a string `error` (Bash: "Exit code N\\n…")
and no `tool_response`, UserPromptSubmit with `prompt`. The expectations (`expect`, `contains`,
`learning`) are written here by hand from the scenario, never recorded from the senses' output.

Trace format:
    {"description": str, "config": {senses config}, "setup": {optional},
     "steps": [{"payload": {...}, "t": seconds since the trace began,
                "expect": [senses that speak, in message order], "contains": [substrings],
                "learning": {"category": str, "contains": [substrings]}}]}
A step without "expect" expects silence. "$REPO" in any string stands for the temporary git
repository the runner creates from setup.git_repo.files.
"""

import hashlib
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "traces")


def code_text(name, chars):
    """Deterministic, realistic-looking Python source of about `chars` characters."""
    stem = os.path.splitext(os.path.basename(name))[0]
    lines = ['"""%s: helpers."""' % stem, "", "import os", "from dataclasses import dataclass", ""]
    i = 0
    while len("\n".join(lines)) < chars:
        lines += [
            "def %s_step_%d(value, options=None):" % (stem.strip("_") or "mod", i),
            '    """Apply step %d of the %s pipeline to value."""' % (i, stem),
            "    result = transform(value, step=%d)" % i,
            "    if options is not None:",
            "        result = options.apply(result)",
            "    return result",
            "",
        ]
        i += 1
    return "\n".join(lines)[:chars]


class Trace:
    def __init__(self, name, description, cwd="/work/proj", config=None, setup=None, seed=None):
        self.name = name
        self.description = description
        self.cwd = cwd
        self.config = config or {}
        self.setup = setup
        self.steps = []
        self.t = 0.0
        self.rng = random.Random(seed or name)
        digest = hashlib.sha1(name.encode()).hexdigest()
        self.sid = "%s-%s-%s-%s-%s" % (digest[:8], digest[8:12], digest[12:16], digest[16:20], digest[20:32])
        self.prompt_id = None
        self.k = 0
        self.calls = 0

    # --- payloads ---
    def _base(self, event):
        p = {
            "session_id": self.sid,
            "transcript_path": "/home/dev/.claude/projects/-work-proj/%s.jsonl" % self.sid,
            "cwd": self.cwd,
        }
        if self.prompt_id:
            p["prompt_id"] = self.prompt_id
        p["permission_mode"] = "default"
        p["hook_event_name"] = event
        return p

    def _add(self, payload, dt, expect=(), contains=(), learning=None):
        self.t += dt
        step = {"payload": payload, "t": round(self.t, 3)}
        if expect:
            step["expect"] = list(expect)
        if contains:
            step["contains"] = list(contains)
        if learning:
            step["learning"] = learning
        self.steps.append(step)
        return len(self.steps) - 1

    def session_start(self):
        p = {
            "session_id": self.sid,
            "transcript_path": "/home/dev/.claude/projects/-work-proj/%s.jsonl" % self.sid,
            "cwd": self.cwd,
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
        return self._add(p, 0.0)

    def prompt(self, text, dt=None, expect=()):
        self.k += 1
        self.prompt_id = hashlib.md5(("%s-%d" % (self.name, self.k)).encode()).hexdigest()
        p = self._base("UserPromptSubmit")
        p["prompt"] = text
        return self._add(p, dt if dt is not None else self.rng.uniform(20, 60), expect)

    def tool(self, name, tool_input, response=None, error=None, dt=None, ms=None, tid=None, **kw):
        self.calls += 1
        event = "PostToolUseFailure" if error is not None else "PostToolUse"
        p = self._base(event)
        p["effort"] = {"level": "high"}
        p["tool_name"] = name
        p["tool_input"] = tool_input
        if error is None:
            p["tool_response"] = response
        p["tool_use_id"] = tid or "toolu_01" + hashlib.sha1(("%s-%d" % (self.name, len(self.steps))).encode()).hexdigest()[:22]
        if error is not None:
            p["error"] = error
            p["is_interrupt"] = False
        p["duration_ms"] = ms if ms is not None else self.rng.randint(5, 60)
        return self._add(p, dt if dt is not None else self.rng.uniform(4, 14), **kw)

    def again(self, index, dt=0.2, **kw):
        """Deliver the payload of step `index` once more, unchanged (a hook registered twice)."""
        return self._add(json.loads(json.dumps(self.steps[index]["payload"])), dt, **kw)

    def abs(self, rel):
        return rel if rel.startswith("/") else self.cwd + "/" + rel

    # --- tools ---
    def read(self, rel, chars=2500, content=None, offset=None, limit=None, **kw):
        path = self.abs(rel)
        content = content if content is not None else code_text(rel, chars)
        n = content.count("\n") + 1
        ti = {"file_path": path}
        if offset is not None:
            ti["offset"] = offset
        if limit is not None:
            ti["limit"] = limit
        resp = {"type": "text", "file": {"filePath": path, "content": content, "numLines": n,
                                         "startLine": offset or 1, "totalLines": n + (offset or 0)}}
        return self.tool("Read", ti, resp, **kw)

    def edit(self, rel, old, new, **kw):
        path = self.abs(rel)
        original = "# header\n%s\n# footer\n" % old
        resp = {
            "filePath": path, "oldString": old, "newString": new, "originalFile": original,
            "structuredPatch": [{"oldStart": 2, "oldLines": old.count("\n") + 1, "newStart": 2,
                                 "newLines": new.count("\n") + 1,
                                 "lines": [" # header"] + ["-" + x for x in old.split("\n")]
                                 + ["+" + x for x in new.split("\n")] + [" # footer"]}],
            "userModified": False, "replaceAll": False,
        }
        return self.tool("Edit", {"file_path": path, "old_string": old, "new_string": new, "replace_all": False}, resp, **kw)

    def write(self, rel, content, **kw):
        path = self.abs(rel)
        resp = {"type": "create", "filePath": path, "content": content, "structuredPatch": [], "originalFile": None}
        return self.tool("Write", {"file_path": path, "content": content}, resp, **kw)

    def bash(self, cmd, stdout="", stderr="", ms=None, **kw):
        resp = {"stdout": stdout, "stderr": stderr, "interrupted": False, "isImage": False, "noOutputExpected": False}
        return self.tool("Bash", {"command": cmd, "description": "run"}, resp, ms=ms, **kw)

    def bash_fail(self, cmd, code, output, ms=None, **kw):
        err = "Exit code %d" % code + ("\n" + output if output else "")
        return self.tool("Bash", {"command": cmd, "description": "run"}, error=err, ms=ms, **kw)

    def grep(self, pattern, rel=None, files=(), **kw):
        ti = {"pattern": pattern, "output_mode": "files_with_matches"}
        if rel:
            ti["path"] = self.abs(rel)
        names = [self.abs(f) for f in files]
        return self.tool("Grep", ti, {"mode": "files_with_matches", "filenames": names, "numFiles": len(names)}, **kw)

    def glob(self, pattern, files=(), **kw):
        names = [self.abs(f) for f in files]
        return self.tool("Glob", {"pattern": pattern},
                         {"filenames": names, "durationMs": 12, "numFiles": len(names), "truncated": False}, **kw)

    def todo(self, items, **kw):
        todos = [{"content": x, "status": s, "activeForm": x} for x, s in items]
        return self.tool("TodoWrite", {"todos": todos}, {"oldTodos": [], "newTodos": todos}, **kw)

    def save(self):
        data = {"description": self.description, "config": self.config}
        if self.setup:
            data["setup"] = self.setup
        data["steps"] = self.steps
        with open(os.path.join(OUT, self.name + ".json"), "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, ensure_ascii=False)
            f.write("\n")


def passed(n, secs):
    return "........" + "." * (n % 7) + "\n%d passed in %.2fs" % (n, secs)


PYTEST = ".venv/bin/python -m pytest"


# --------------------------------------------------------------------------------------------


def failing_command_loop():
    t = Trace(
        "failing_command_loop",
        "One failing command repeated (a collection error of pytest, same cause each time, with varying "
        "timings and paths). Nociception speaks at the 2nd failure, the interrupt at the 3rd (level 1), 5th "
        "(level 2) and 7th (level 3). The switch to `python -m pytest` then works; after three successes the "
        "episode resolves and returns a motor learning naming both commands.",
    )
    t.session_start()
    t.prompt("run the tests for the api client and fix whatever fails")
    t.read("tests/test_api.py", 1800)

    def err(secs, tmp):
        return (
            "==================================== ERRORS ====================================\n"
            "______________________ ERROR collecting tests/test_api.py ______________________\n"
            "ImportError while importing test module '/work/proj/tests/test_api.py'.\n"
            "Hint: make sure your test modules/packages have valid Python names.\n"
            "Traceback:\n"
            "/usr/lib/python3.11/importlib/__init__.py:126: in import_module\n"
            "    return _bootstrap._gcd_import(name[level:], package, level)\n"
            "tests/test_api.py:3: in <module>\n"
            "    from api_client import Client\n"
            "E   ModuleNotFoundError: No module named 'api_client'\n"
            "=========================== short test summary info ============================\n"
            "ERROR tests/test_api.py\n"
            "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!\n"
            "1 error in %.2fs (tmp %s)" % (secs, tmp)
        )

    cmd = "pytest tests/test_api.py -q"
    t.bash_fail(cmd, 2, err(0.12, "/tmp/pytest-of-dev/pytest-41"))
    t.bash_fail(cmd, 2, err(0.09, "/tmp/pytest-of-dev/pytest-42"), expect=["nociception"],
                contains=["The last 2 failures ended with the same error", "No module named 'api_client'", cmd])
    t.bash_fail(cmd, 2, err(0.11, "/tmp/pytest-of-dev/pytest-43"), expect=["interrupt"],
                contains=["Level 1 of 3", "the last 3 failures", "assumption", "read-only check"])
    t.bash_fail(cmd, 2, err(0.10, "/tmp/pytest-of-dev/pytest-44"))
    t.bash_fail(cmd, 2, err(0.13, "/tmp/pytest-of-dev/pytest-45"), expect=["interrupt"],
                contains=["Level 2 of 3", "5 failures", "change strategy"])
    t.bash_fail(cmd, 2, err(0.10, "/tmp/pytest-of-dev/pytest-46"))
    t.bash_fail(cmd, 2, err(0.12, "/tmp/pytest-of-dev/pytest-47"), expect=["interrupt"],
                contains=["Level 3 of 3", "7 failures", "ask the user"])
    t.read("pyproject.toml", 900)
    t.bash("python -m pytest tests/test_api.py -q", passed(6, 0.31))
    t.bash("git status --short", " M tests/test_api.py\n")
    t.read("src/api_client/__init__.py", 1200, learning={
        "category": "mistake",
        "contains": ["`pytest tests/test_api.py -q` failed 7 times", "`python -m pytest tests/test_api.py -q` worked",
                     "added `python -m`"]})
    t.read("src/api_client/client.py", 2600)
    t.save()


def exploring_failures():
    t = Trace(
        "exploring_failures",
        "Looking for where the config loader reads its env file: nine failures, every one a different error "
        "(missing dirs and files, a missing module, node and go errors, greps without matches, a make rule). "
        "Different errors mean exploring: every call is silent.",
    )
    t.prompt("find out where the config loader reads the .env file")
    t.bash_fail("ls config/", 2, "ls: cannot access 'config/': No such file or directory")
    t.bash_fail("cat .env.example", 1, "cat: .env.example: No such file or directory")
    t.glob("**/*config*", ["src/app/settings.py", "src/app/config_loader.py"])
    t.bash_fail("python -c 'import app.config'", 1,
                "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"
                "ModuleNotFoundError: No module named 'app'")
    t.bash_fail("node scripts/env.js", 1,
                "node:internal/modules/cjs/loader:1143\n  throw err;\n  ^\n\n"
                "Error: Cannot find module '/work/proj/scripts/env.js'\n"
                "    at Module._resolveFilename (node:internal/modules/cjs/loader:1140:15)\n"
                "    at Module._load (node:internal/modules/cjs/loader:981:27) {\n"
                "  code: 'MODULE_NOT_FOUND',\n  requireStack: []\n}\n\nNode.js v20.11.0")
    t.bash_fail("go run ./cmd/config", 1,
                "go: cannot find main module, but found .git/config in /work/proj\n"
                "\tto create a module there, run:\n\tgo mod init")
    t.read("src/app/config_loader.py", 2200)
    t.bash_fail("grep -rn 'load_env' src/", 1, "")
    t.bash_fail("rg load_dotenv", 1, "")
    t.bash_fail("make config", 2, "make: *** No rule to make target 'config'.  Stop.")
    t.bash_fail("python src/app/config_loader.py --print", 2,
                "usage: config_loader.py [-h] [--env ENV]\nconfig_loader.py: error: unrecognized arguments: --print")
    t.grep("dotenv", "src", ["src/app/settings.py"])
    t.read("src/app/settings.py", 3100)
    t.bash("python src/app/config_loader.py --env .env.test", "loaded 12 keys from .env.test\n")
    t.save()


def three_large_reads():
    t = Trace(
        "three_large_reads",
        "Eight ordinary calls set the baseline (a few hundred to ~3k characters each). Then three large "
        "Reads of ~9k characters (~2.5k tokens each with line numbers) in a row: O2 speaks at the third, when "
        "the last three calls hold over 30k characters at many times the baseline. A fourth large read falls "
        "in the cooldown; small calls after it are silent.",
    )
    t.prompt("explain how the scheduler assigns jobs to workers")
    t.glob("scheduler/**/*.py", ["scheduler/__init__.py", "scheduler/core.py", "scheduler/queue.py",
                                 "scheduler/workers.py", "scheduler/policy.py"])
    t.grep("def assign", "scheduler", ["scheduler/core.py", "scheduler/policy.py"])
    t.read("scheduler/__init__.py", 600)
    t.read("scheduler/policy.py", 2400)
    t.bash("git log --oneline -5 -- scheduler/", "a1b2c3d scheduler: fair share\n9f8e7d6 workers: heartbeat\n"
           "1234abc queue: priorities\n5678def core: assign loop\n0badc0d init\n")
    t.grep("class Worker", "scheduler", ["scheduler/workers.py"])
    t.read("docs/scheduler.md", 1900, content="# Scheduler\n\n" + "The scheduler assigns jobs in rounds. " * 48)
    t.bash("ls scheduler/", "__init__.py\ncore.py\npolicy.py\nqueue.py\nworkers.py\n")
    t.read("scheduler/core.py", 9000)
    t.read("scheduler/queue.py", 9200)
    t.read("scheduler/workers.py", 8800, expect=["o2"],
           contains=["The last 3 calls added", "large reads", "core.py", "queue.py", "workers.py"])
    t.read("scheduler/heartbeat.py", 9100)
    t.grep("heartbeat_interval", "scheduler", ["scheduler/workers.py", "scheduler/heartbeat.py"])
    t.bash("wc -l scheduler/*.py", "  20 scheduler/__init__.py\n 250 scheduler/core.py\n 1040 total\n")
    t.read("scheduler/policy.py", 2400, offset=40, limit=30)
    t.save()


def long_run_without_user():
    t = Trace(
        "long_run_without_user",
        "A storage migration: 40 tool calls without a user message. The first 25 calls take about 10 minutes: "
        "Chronos speaks at call 25 (the 25-call level). Later calls are slow test runs; when 30 minutes have "
        "passed (call 37) the time level reaches 2 and Chronos speaks again. Then the user writes a short "
        "continuation: the levels reset and the next calls are silent, while Drift keeps the task's terms.",
    )
    t.prompt("Migrate the storage layer from JSON files to SQLite, keeping the public API of "
             "cogit/storage/__init__.py unchanged", dt=0.0)
    fast = lambda: t.rng.uniform(20, 27)  # noqa: E731
    plan = []
    plan.append(lambda kw: t.read("cogit/storage/__init__.py", 1800, dt=fast(), **kw))
    plan.append(lambda kw: t.read("cogit/storage/json_store.py", 4200, dt=fast(), **kw))
    plan.append(lambda kw: t.grep("json_store", "cogit", ["cogit/storage/__init__.py", "cogit/cli/state.py"], dt=fast(), **kw))
    plan.append(lambda kw: t.read("tests/test_storage.py", 3000, dt=fast(), **kw))
    plan.append(lambda kw: t.todo([("sqlite store", "in_progress"), ("migration", "pending")], dt=fast(), **kw))
    plan.append(lambda kw: t.write("cogit/storage/sqlite_store.py", code_text("sqlite_store", 2500), dt=fast(), **kw))
    plan.append(lambda kw: t.edit("cogit/storage/sqlite_store.py", "def open_db(path):\n    pass",
                                  "def open_db(path):\n    return sqlite3.connect(path)", dt=fast(), **kw))
    plan.append(lambda kw: t.edit("cogit/storage/__init__.py", "from .json_store import Store",
                                  "from .sqlite_store import Store", dt=fast(), **kw))
    plan.append(lambda kw: t.bash(PYTEST + " tests/test_storage.py -q", passed(14, 0.8), dt=fast(), ms=2100, **kw))
    plan.append(lambda kw: t.read("cogit/storage/schema.sql", 900, content="CREATE TABLE entries (id TEXT PRIMARY KEY);\n" * 20, dt=fast(), **kw))
    plan.append(lambda kw: t.edit("cogit/storage/sqlite_store.py", "    return sqlite3.connect(path)",
                                  "    db = sqlite3.connect(path)\n    db.executescript(SCHEMA)\n    return db", dt=fast(), **kw))
    plan.append(lambda kw: t.edit("cogit/storage/sqlite_store.py", "def get(self, key):\n    pass",
                                  "def get(self, key):\n    row = self.db.execute(Q_GET, (key,)).fetchone()\n    return row and row[0]", dt=fast(), **kw))
    plan.append(lambda kw: t.bash(PYTEST + " tests/test_storage.py -q", passed(14, 0.9), dt=fast(), ms=2300, **kw))
    plan.append(lambda kw: t.write("cogit/storage/migrate_json.py", code_text("migrate_json", 1800), dt=fast(), **kw))
    plan.append(lambda kw: t.write("tests/test_migrate_json.py", code_text("test_migrate_json", 1500), dt=fast(), **kw))
    plan.append(lambda kw: t.bash(PYTEST + " -q", passed(212, 9.4), dt=fast(), ms=11000, **kw))
    plan.append(lambda kw: t.read("cogit/storage/locking.py", 2100, dt=fast(), **kw))
    plan.append(lambda kw: t.edit("cogit/storage/sqlite_store.py", "    db.executescript(SCHEMA)",
                                  "    db.execute('PRAGMA journal_mode=WAL')\n    db.executescript(SCHEMA)", dt=fast(), **kw))
    plan.append(lambda kw: t.edit("cogit/storage/locking.py", "def lock(path):", "def lock(path, timeout=5.0):", dt=fast(), **kw))
    plan.append(lambda kw: t.bash(PYTEST + " tests/test_storage.py -q", passed(15, 1.0), dt=fast(), ms=2500, **kw))
    plan.append(lambda kw: t.bash("git diff --stat", " cogit/storage/__init__.py | 2 +-\n cogit/storage/sqlite_store.py | 88 ++++\n", dt=fast(), **kw))
    plan.append(lambda kw: t.read("cogit/storage/export.py", 2600, dt=fast(), **kw))
    plan.append(lambda kw: t.edit("cogit/storage/export.py", "json.dump(rows, f)", "json.dump(list(store.rows()), f)", dt=fast(), **kw))
    plan.append(lambda kw: t.edit("cogit/storage/migrate_json.py", "def migrate(src):\n    pass",
                                  "def migrate(src):\n    for path in sorted(src.glob('*.json')):\n        load(path)", dt=fast(), **kw))
    # call 25
    plan.append(lambda kw: t.bash(PYTEST + " -q", passed(214, 9.8), dt=fast(), ms=11500, **kw))
    slow = lambda: t.rng.uniform(95, 110)  # noqa: E731
    plan.append(lambda kw: t.bash("python -m cogit.storage.migrate_json --dry-run ~/.cogit/storage", "would migrate 1204 entries\n", dt=slow(), ms=30000, **kw))
    plan.append(lambda kw: t.read("cogit/storage/sqlite_store.py", 5200, dt=slow(), **kw))
    plan.append(lambda kw: t.edit("cogit/storage/sqlite_store.py", "def put(self, key, value):\n    pass",
                                  "def put(self, key, value):\n    with self.db:\n        self.db.execute(Q_PUT, (key, value))", dt=slow(), **kw))
    plan.append(lambda kw: t.bash(PYTEST + " tests/test_storage.py -q", passed(16, 1.1), dt=slow(), ms=2600, **kw))
    plan.append(lambda kw: t.bash("python -m cogit.storage.migrate_json ~/.cogit/storage", "migrated 1204 entries in 41.2s\n", dt=slow(), ms=60000, **kw))
    plan.append(lambda kw: t.bash("sqlite3 ~/.cogit/storage/store.db 'select count(*) from entries'", "1204\n", dt=slow(), **kw))
    plan.append(lambda kw: t.edit("tests/test_migrate_json.py", "def test_migrate_empty(tmp_path):\n    pass",
                                  "def test_migrate_empty(tmp_path):\n    assert migrate(tmp_path) == 0", dt=slow(), **kw))
    plan.append(lambda kw: t.bash(PYTEST + " -q", passed(215, 10.2), dt=slow(), ms=12000, **kw))
    plan.append(lambda kw: t.read("cogit/storage/json_store.py", 4200, offset=120, limit=60, dt=slow(), **kw))
    plan.append(lambda kw: t.edit("cogit/storage/__init__.py", "__all__ = ['Store']", "__all__ = ['Store', 'migrate']", dt=slow(), **kw))
    plan.append(lambda kw: t.bash(PYTEST + " tests/test_storage.py -q", passed(16, 1.0), dt=slow(), ms=2500, **kw))
    # call 37: past 30 minutes
    plan.append(lambda kw: t.bash(PYTEST + " -q", passed(215, 10.0), dt=slow(), ms=12000, **kw))
    plan.append(lambda kw: t.bash("git diff --stat", " 6 files changed, 240 insertions(+), 31 deletions(-)\n", dt=slow(), **kw))
    plan.append(lambda kw: t.todo([("sqlite store", "completed"), ("migration", "completed")], dt=slow(), **kw))
    plan.append(lambda kw: t.read("CHANGELOG.md", 1500, content="# Changelog\n\n## Unreleased\n" + "- storage: entries.\n" * 60, dt=slow(), **kw))
    expect = {25: dict(expect=["chronos"], contains=["25 tool calls", "since the user's last message", "Migrate the storage layer"]),
              37: dict(expect=["chronos"], contains=["37 tool calls", "30m"])}
    for i, fn in enumerate(plan, 1):
        fn(expect.get(i, {}))
    assert t.calls == 40, t.calls
    t.prompt("looks good, go on")
    t.edit("CHANGELOG.md", "## Unreleased\n", "## Unreleased\n- storage: SQLite replaces the JSON files.\n")
    t.bash("git add -A && git commit -m 'storage: move to SQLite'", "[main 4f5e6d7] storage: move to SQLite\n")
    t.bash("git log --oneline -1", "4f5e6d7 storage: move to SQLite\n")
    t.read("cogit/storage/__init__.py", 1850)
    t.save()


def repeated_rereads():
    t = Trace(
        "repeated_rereads",
        "cache/ttl.py is read three times with no edit in between: Vestibular speaks at the third read. After "
        "an edit of the file, reading it again is not a re-read of unchanged content; a partial read "
        "(offset/limit) of another range is a different read.",
    )
    t.prompt("why does the cache expire entries too early?")
    t.read("cache/ttl.py", 2600)
    t.grep("expire", "cache", ["cache/ttl.py", "cache/store.py"])
    t.read("cache/store.py", 3400)
    t.read("cache/ttl.py", 2600)
    t.bash("python -c 'from cache.ttl import ttl_for; print(ttl_for(60))'", "60.0\n")
    t.read("cache/clock.py", 1200)
    t.read("cache/ttl.py", 2600, expect=["vestibular"],
           contains=["cache/ttl.py has been read 3 times in the last 7 calls", "no change to it in between"])
    t.edit("cache/ttl.py", "return seconds / 60", "return float(seconds)")
    t.read("cache/ttl.py", 2610)
    t.bash(PYTEST + " tests/test_ttl.py -q", passed(9, 0.2))
    t.read("cache/ttl.py", 2610, offset=80, limit=40)
    t.read("cache/store.py", 3400)
    t.save()


def repeated_passing_tests():
    t = Trace(
        "repeated_passing_tests",
        "Checking a flaky test: the same passing test command five times in a row, then edit/test cycles, "
        "then the suite twice. Repeated test runs are not loops and successive edits with different content "
        "are progress: every call is silent.",
    )
    t.prompt("make the retry test pass reliably, it flakes about one run in five")
    t.read("tests/test_retry.py", 2200)
    t.read("src/netlib/retry.py", 3100)
    for i in range(5):
        t.bash(PYTEST + " tests/test_retry.py -q", passed(7, 0.4 + i / 100), ms=900)
    t.edit("src/netlib/retry.py", "time.sleep(delay)", "clock.sleep(delay)")
    t.bash(PYTEST + " tests/test_retry.py -q", passed(7, 0.41), ms=900)
    t.edit("src/netlib/retry.py", "delay = base * 2 ** attempt", "delay = min(cap, base * 2 ** attempt)")
    t.bash(PYTEST + " tests/test_retry.py -q", passed(7, 0.40), ms=900)
    t.edit("tests/test_retry.py", "def test_backoff():", "def test_backoff(fake_clock):")
    t.bash(PYTEST + " tests/test_retry.py -q", passed(7, 0.38), ms=900)
    t.bash(PYTEST + " -q", passed(120, 4.1), ms=5200)
    t.bash(PYTEST + " -q", passed(120, 4.0), ms=5100)
    t.save()


SPATIAL_FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "class Engine:\n    def run(self):\n        return 1\n\n\ndef run():\n    return Engine().run()\n\n\ndef main():\n    run()\n",
    "pkg/util.py": "def helper():\n    return 2\n",
    "pkg/leaf.py": "X = 1\n",
    "pkg/core_utils.py": "def helper():\n    return 3\n",
    "pkg/sub/__init__.py": "",
    "pkg/sub/core.py": "SUBCORE = True\n",
    # the 20 importers of pkg/core.py, in every form Python allows
    "pkg/a.py": "from . import core\n",
    "pkg/b.py": "from .core import Engine\n",
    "pkg/sub/c.py": "from ..core import run\n",
    "pkg/sub/d.py": "from pkg.core import Engine\n",
    "pkg/e.py": "import pkg.core\n",
    "pkg/f.py": "import pkg.core as pc\n",
    "pkg/g.py": "import os, pkg.core\n",
    "pkg/h.py": "from pkg import util, core\n",
    "pkg/i.py": "def f():\n    from pkg.core import run\n    return run()\n",
    "pkg/j.py": "try:\n    from pkg.core import run\nexcept ImportError:\n    run = None\n",
    "pkg/k.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.core import Engine\n",
    "pkg/l.py": "from pkg.core import (\n    Engine,  # the engine\n    run,\n)\n",
    "pkg/m.py": "from pkg.core import \\\n    Engine\n",
    "cli.py": "from pkg.core import main\n\nmain()\n",
    "scripts/tool.py": "import pkg.core\n",
    "tests/test_core.py": "from pkg.core import Engine\n\n\ndef test_engine():\n    assert Engine().run() == 1\n",
    "tests/test_run.py": "from pkg import core\n",
    "tests/test_engine.py": "import pkg.core\n",
    "tests/conftest.py": "from pkg.core import Engine\n",
    "tests/test_api.py": "from pkg.core import run as start\n",
    # decoys: a substring search for "core" would count all of these; none imports pkg/core.py
    "pkg/n.py": "from pkg.core_utils import helper\n",
    "pkg/o.py": '"""Usage:\n\nfrom pkg.core import Engine\nimport pkg.core\n"""\nimport json\n',
    "pkg/p.py": "# from pkg.core import Engine\nNAME = 'pkg.core'\nMSG = \"import pkg.core failed\"\n",
    "pkg/q.py": "import pkg.coreference\n",
    "pkg/sub/r.py": "from . import core\n",
    "pkg/sub/s.py": "from pkg.leaf import X\n",
    "other/__init__.py": "",
    "other/core.py": "THING = 1\n",
    "other/user.py": "from other.core import THING\nfrom other import core\n",
    "web/core.js": "export const core = 1;\n",
    "web/app.js": "import { core } from './core.js';\n// import core from '../pkg/core'\n",
    "docs/notes.md": "The engine lives in pkg.core; `from pkg.core import Engine`.\n",
}


def blast_radius():
    t = Trace(
        "blast_radius",
        "A real temporary git repository: pkg/core.py is imported by exactly 20 files, in every import form "
        "(absolute, relative, aliased, parenthesised, continued, conditional, inside a function), next to "
        "decoys that a substring grep would count (pkg.core_utils, a docstring, a comment, strings, "
        "pkg.coreference, other/core.py, pkg/sub/core.py, a JS core.js). The first edit of pkg/core.py makes "
        "Spatial speak with the exact count 20; the second edit is inside the per-file cooldown; an edit of "
        "pkg/leaf.py (1 importer) and of a Markdown file are silent.",
        cwd="$REPO",
        setup={"git_repo": {"files": SPATIAL_FILES}},
    )
    t.prompt("rename Engine.run to Engine.start in pkg/core.py")
    t.read("pkg/core.py", content=SPATIAL_FILES["pkg/core.py"])
    t.edit("pkg/core.py", "    def run(self):", "    def start(self):", expect=["spatial"],
           contains=["pkg/core.py is imported by 20 files", "cli.py", "backward compatible"])
    t.edit("pkg/core.py", "    return Engine().run()", "    return Engine().start()")
    t.edit("pkg/leaf.py", "X = 1", "X = 2")
    t.edit("docs/notes.md", "The engine lives", "The Engine lives")
    t.bash("python -m pytest -q", passed(1, 0.05))
    t.save()


def scope_drift():
    t = Trace(
        "scope_drift",
        "First prompt: a date parsing bug, worked on-task. Second prompt: a --json flag for the export "
        "command. The first calls after it are on-task (cli/export.py, cli/formatters.py); then the agent "
        "wanders into the plugin loader (plugins/, entry points, setup.cfg, importlib metadata). At the "
        "tenth call after the prompt, the six calls since the on-task start share no term with the prompt: "
        "Drift speaks.",
    )
    t.prompt("the date parser in cogit/dates.py mis-handles ISO week dates like 2026-W05-3; fix it")
    t.read("cogit/dates.py", 2800)
    t.grep("def parse_week", "cogit", ["cogit/dates.py"])
    t.edit("cogit/dates.py", "week = int(m.group(2))", "week = int(m.group(2)) - 1")
    t.read("tests/test_dates.py", 1900)
    t.edit("tests/test_dates.py", "def test_week():", "def test_week_date():")
    t.bash(PYTEST + " -q", passed(88, 2.3))
    t.prompt("Now add a --json flag to the export command (cli/export.py)")
    t.read("cli/export.py", 2400)
    t.grep("def export", "cli", ["cli/export.py"])
    t.read("cli/formatters.py", 2100)
    t.edit("cli/export.py", "@click.option('--csv', is_flag=True)", "@click.option('--csv', is_flag=True)\n@click.option('--json', 'as_json', is_flag=True)")
    t.read("plugins/loader.py", 3000)
    t.grep("entry_points", None, ["plugins/loader.py", "setup.cfg"])
    t.read("plugins/registry.py", 2700)
    t.read("setup.cfg", 800, content="[metadata]\nname = proj\n[options.entry_points]\nproj.plugins =\n    a = a:A\n" * 6)
    t.bash("python -m pip show importlib-metadata", "Name: importlib-metadata\nVersion: 8.0.0\n")
    t.read("plugins/hooks.py", 2500, expect=["drift"],
           contains=["Now add a --json flag to the export command", "plugins/hooks.py", "scope drifted"])
    t.read("plugins/discovery.py", 2300)
    t.save()


def interrupt_recovery():
    t = Trace(
        "interrupt_recovery",
        "After a dependency bump the suite fails with the same AttributeError three times, with edits in "
        "between (edit, test, same error). Nociception speaks at the second failure, the interrupt (level 1) "
        "at the third. A read-only investigation follows (pip show, the changelog), then the edit that works "
        "and a passing run; after three successes from the passing run the episode resolves and returns a "
        "motor learning naming the edit that made the difference. A later, unrelated failure is silent.",
    )
    t.prompt("the tests fail since the PyYAML upgrade, please fix")
    err = ("==================================== ERRORS ====================================\n"
           "_____________________ ERROR collecting tests/test_config.py _____________________\n"
           "src/config.py:14: in load\n    return yaml.load(f, Loader=yaml.FullLoader)\n"
           "E   AttributeError: module 'yaml' has no attribute 'FullLoader'\n"
           "=========================== short test summary info ============================\n"
           "ERROR tests/test_config.py - AttributeError: module 'yaml' has no attribute 'FullLoader'\n"
           "1 error in %.2fs")
    t.bash_fail(PYTEST + " -q", 2, err % 0.41)
    t.read("src/config.py", 1600)
    t.edit("src/config.py", "import yaml", "import yaml  # PyYAML 7")
    t.bash_fail(PYTEST + " -q", 2, err % 0.39, expect=["nociception"], contains=["The last 2 failures", "FullLoader"])
    t.edit("src/config.py", "Loader=yaml.FullLoader", "Loader=getattr(yaml, 'FullLoader')")
    t.bash_fail(PYTEST + " -q", 2, err % 0.44, expect=["interrupt"], contains=["Level 1 of 3", "FullLoader"])
    t.bash("python -m pip show pyyaml", "Name: PyYAML\nVersion: 7.0.1\n")
    t.bash("python -c 'import yaml; print(sorted(n for n in dir(yaml) if n.endswith(\"Loader\")))'",
           "['BaseLoader', 'SafeLoader']\n")
    t.edit("src/config.py", "return yaml.load(f, Loader=getattr(yaml, 'FullLoader'))", "return yaml.load(f, Loader=yaml.SafeLoader)")
    t.bash(PYTEST + " -q", passed(64, 1.9))
    t.bash("git diff --stat", " src/config.py | 2 +-\n")
    t.read("src/config.py", 1610, learning={
        "category": "mistake",
        "contains": ["failed 3 times", "FullLoader", "it passed after", "Edit src/config.py", "yaml.SafeLoader"]})
    t.bash_fail("git push", 1, "fatal: The current branch fix-yaml has no upstream branch.")
    t.save()


def parallel_calls():
    t = Trace(
        "parallel_calls",
        "Parallel tool calls: four Reads of different files finish together and arrive out of order (their "
        "timestamps go backwards), one arrives twice (the same tool_use_id, as with a hook registered twice), "
        "three Greps in parallel, and two parallel Bash calls of which one fails twice in the same way but as "
        "one duplicated delivery. Nothing repeats, nothing loops, time never runs backwards: all silent.",
    )
    t.prompt("survey the repo: what do the handlers, models and views do?")
    t.glob("app/**/*.py", ["app/handlers.py", "app/models.py", "app/views.py", "app/urls.py"])
    base = t.t
    reads = [("app/models.py", 3.4), ("app/handlers.py", 3.1), ("app/urls.py", 3.6), ("app/views.py", 3.2)]
    steps = []
    for rel, at in reads:
        steps.append(t.read(rel, 2000, dt=(base + at) - t.t))
    t.again(steps[2])  # the same delivery again
    base = t.t
    for i, pat in enumerate(("class .*Handler", "class .*Model", "def .*_view")):
        t.grep(pat, "app", ["app/handlers.py"], dt=(base + 5.0 - i * 0.1) - t.t)
    failed = t.bash_fail("python manage.py check", 1, "ModuleNotFoundError: No module named 'django'", dt=6.0)
    t.bash("git log --oneline -3", "abc1234 views\n", dt=0.0)
    t.again(failed, dt=0.1)
    t.read("README.md", 1500, content="# App\n\nHandlers, models and views.\n" * 40)
    t.save()


def normal_session_100():
    t = Trace(
        "normal_session_100",
        "A realistic 100-call session over seven prompts: reading, searching, editing, running targeted tests "
        "and the suite, one failing run that gets fixed, docs, git. No sense speaks.",
    )
    t.session_start()
    # 1
    t.prompt("Add a --since option to the log command in cogit/cli/log.py that filters history entries by date")
    t.grep("def log", "cogit/cli", ["cogit/cli/log.py"])
    t.read("cogit/cli/log.py", 3200)
    t.read("cogit/store/history.py", 4500)
    t.grep("def entries", "cogit/store", ["cogit/store/history.py"])
    t.read("tests/cli/test_log.py", 2800)
    t.todo([("--since option", "in_progress"), ("filter in history", "pending"), ("tests", "pending")])
    t.edit("cogit/cli/log.py", "@click.option('--limit', type=int)", "@click.option('--limit', type=int)\n@click.option('--since')")
    t.edit("cogit/cli/log.py", "for entry in history.entries(limit):", "for entry in history.entries(limit, since=since):")
    t.edit("cogit/store/history.py", "def entries(self, limit=None):", "def entries(self, limit=None, since=None):")
    t.bash(PYTEST + " tests/cli/test_log.py -q", passed(11, 0.6))
    t.edit("tests/cli/test_log.py", "def test_log_limit(runner):", "def test_log_since(runner):\n    ...\n\n\ndef test_log_limit(runner):")
    t.bash(PYTEST + " -q", passed(301, 8.2), ms=9800)
    t.bash("git diff --stat", " cogit/cli/log.py | 6 ++++--\n cogit/store/history.py | 4 +++-\n")
    t.read("cogit/cli/_dates.py", 2000)
    t.edit("cogit/cli/log.py", "since=since)", "since=parse_date(since))")
    t.edit("cogit/cli/_dates.py", "def parse_date(text):", "def parse_date(text, default=None):")
    t.bash(PYTEST + " -q", passed(302, 8.4), ms=9900)
    t.bash("git status --short", " M cogit/cli/log.py\n M cogit/cli/_dates.py\n")
    t.todo([("--since option", "completed"), ("filter in history", "completed"), ("tests", "completed")])
    # 2
    t.prompt("The state show table misaligns wide unicode names; fix the column widths in cogit/cli/state.py")
    t.read("cogit/cli/state.py", 3900)
    t.grep("ljust|rjust", "cogit/cli", ["cogit/cli/_table.py"])
    t.read("cogit/cli/_table.py", 2300)
    t.bash("python -c \"import unicodedata; print(unicodedata.east_asian_width('界'))\"", "W\n")
    t.edit("cogit/cli/_table.py", "width = len(cell)", "width = display_width(cell)")
    t.write("cogit/cli/_width.py", code_text("_width", 900))
    t.edit("cogit/cli/_table.py", "import shutil", "import shutil\n\nfrom ._width import display_width")
    t.bash_fail(PYTEST + " tests/cli/test_state.py -q", 1,
                "F......\n=================================== FAILURES ===================================\n"
                "E       AssertionError: assert 'name  ' == 'name   '\n"
                "FAILED tests/cli/test_state.py::test_show_wide - AssertionError: assert 'name  ' == 'name   '\n"
                "1 failed, 6 passed in 0.52s")
    t.read("tests/cli/test_state.py", 2600)
    t.edit("cogit/cli/_width.py", "return sum(2 if wide(c) else 1 for c in text)",
           "return sum(0 if combining(c) else 2 if wide(c) else 1 for c in text)")
    t.bash(PYTEST + " tests/cli/test_state.py -q", passed(7, 0.5))
    t.write("tests/cli/test_width.py", code_text("test_width", 700))
    t.bash(PYTEST + " -q", passed(305, 8.6), ms=10100)
    t.bash("git diff", "diff --git a/cogit/cli/_table.py b/cogit/cli/_table.py\n" + "+ width\n" * 30)
    t.edit("cogit/cli/state.py", "render(rows)", "render(rows, width=display_width)")
    t.bash(PYTEST + " -q", passed(305, 8.5), ms=10000)
    # 3
    t.prompt("Write user docs for the sync command in docs/sync.md, based on what cogit/cli/sync.py actually does")
    t.read("cogit/cli/sync.py", 5000)
    t.read("cogit/store/remote.py", 4000)
    t.grep("def pull|def push", "cogit/store", ["cogit/store/remote.py"])
    t.read("docs/index.md", 1500, content="# cogit\n\n" + "- [state](state.md)\n" * 60)
    t.read("docs/state.md", 2500, content="# state\n\n" + "The state command shows the memory.\n" * 60)
    t.write("docs/sync.md", "# sync\n\n" + "cogit sync pulls, merges and pushes the memory repository.\n" * 45)
    t.read("cogit/config.py", 2200)
    t.edit("docs/sync.md", "# sync\n", "# sync\n\nKeeps the memory in step with a remote.\n")
    t.bash("grep -n 'timeout' cogit/store/remote.py", "42:    timeout = config.pull_timeout_s\n")
    t.edit("docs/sync.md", "pushes the memory repository.", "pushes the memory repository (timeout: sync.pull_timeout_s).")
    t.edit("docs/index.md", "- [state](state.md)\n", "- [state](state.md)\n- [sync](sync.md)\n")
    t.bash(".venv/bin/python -m mkdocs build --strict", "", stderr="INFO    -  Documentation built in 0.41 seconds\n")
    t.read("docs/sync.md", 2700, content="# sync\n\n" + "cogit sync pulls, merges and pushes the memory repository.\n" * 46)
    t.edit("docs/sync.md", "cogit sync pulls", "`cogit sync` pulls")
    # 4
    t.prompt("Speed up digest compilation: cache the parsed YAML between calls in cogit/store/digest.py")
    t.read("cogit/store/digest.py", 6000)
    t.read("cogit/store/yamlio.py", 3000)
    t.grep("load_yaml", "cogit", ["cogit/store/digest.py", "cogit/store/state.py"])
    t.bash(".venv/bin/python -m cProfile -s cumtime -m cogit digest --scope global | head -30",
           "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n" + "  12  0.002  0.000  0.410  0.034 yamlio.py:40(load)\n" * 25,
           ms=2400)
    t.edit("cogit/store/digest.py", "def _load(path):", "@functools.lru_cache(maxsize=64)\ndef _load(path):")
    t.edit("cogit/store/digest.py", "@functools.lru_cache(maxsize=64)\ndef _load(path):", "def _load(path, mtime_ns):")
    t.bash(PYTEST + " tests/store/test_digest.py -q", passed(18, 0.9))
    t.edit("tests/store/test_digest.py", "def test_digest_caps():", "def test_digest_cache_follows_mtime(tmp_path):\n    ...\n\n\ndef test_digest_caps():")
    t.bash_fail(PYTEST + " -q", 1,
                "...............F...\n=================================== FAILURES ===================================\n"
                "E   AssertionError: stale digest after commit\n"
                "FAILED tests/store/test_digest.py::test_digest_after_commit - AssertionError: stale digest after commit\n"
                "1 failed, 305 passed in 8.71s", ms=10300)
    t.read("tests/store/test_digest.py", 4100)
    t.edit("cogit/store/digest.py", "key = (path, mtime_ns)", "key = (path, mtime_ns, head_commit(path))")
    t.bash(PYTEST + " -q", passed(307, 8.6), ms=10100)
    t.bash(".venv/bin/python -m cProfile -s cumtime -m cogit digest --scope global | head -30",
           "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n" + "  1  0.000  0.000  0.021  0.021 yamlio.py:40(load)\n" * 25,
           ms=900)
    t.bash("git diff --stat", " cogit/store/digest.py | 14 ++++++++---\n tests/store/test_digest.py | 12 +++++++\n")
    t.edit("cogit/store/digest.py", '"""Compile the digest."""', '"""Compile the digest; parsed YAML is cached by path, mtime and commit."""')
    t.bash(PYTEST + " tests/store/test_digest.py -q", passed(19, 0.9))
    # 5
    t.prompt("There is a flaky test in tests/store/test_lock.py that sometimes times out; find out why")
    t.read("tests/store/test_lock.py", 2400)
    t.read("cogit/store/lock.py", 2900)
    t.bash("for i in $(seq 20); do " + PYTEST + " tests/store/test_lock.py -q -x || break; done",
           passed(5, 0.3) * 3 + "\n", ms=9000)
    t.read("cogit/runtime.py", 3600)
    t.grep("timeout", "cogit/store", ["cogit/store/lock.py", "cogit/store/remote.py"])
    t.bash(PYTEST + " tests/store/test_lock.py -q -x -p no:cacheprovider", passed(5, 0.3))
    t.edit("cogit/store/lock.py", "deadline = time.time() + timeout", "deadline = time.monotonic() + timeout")
    t.bash(PYTEST + " tests/store/test_lock.py -q", passed(5, 0.3))
    t.edit("tests/store/test_lock.py", "time.sleep(0.5)", "time.sleep(0.05)")
    t.bash(PYTEST + " -q", passed(307, 8.4), ms=9900)
    t.bash("git diff", "-    deadline = time.time() + timeout\n+    deadline = time.monotonic() + timeout\n")
    t.todo([("flaky lock test", "completed")])
    # 6
    t.prompt("Last thing: rename the --json flag of cogit state to --format json and keep --json as a deprecated alias")
    t.grep("--json", "cogit/cli", ["cogit/cli/state.py", "cogit/cli/_options.py"])
    t.read("cogit/cli/state.py", 4000)
    t.read("cogit/cli/_options.py", 1900)
    t.read("tests/cli/test_state.py", 2650)
    t.edit("cogit/cli/_options.py", "json_option = click.option('--json', is_flag=True)",
           "format_option = click.option('--format', type=click.Choice(['text', 'json']))")
    t.edit("cogit/cli/state.py", "@json_option", "@format_option")
    t.edit("cogit/cli/state.py", "def show(as_json):", "def show(fmt, as_json=False):  # --json: deprecated alias")
    t.bash(PYTEST + " tests/cli/test_state.py -q", passed(8, 0.5))
    t.edit("tests/cli/test_state.py", "def test_show_json(runner):", "def test_show_format_json(runner):")
    t.bash(PYTEST + " -q", passed(308, 8.5), ms=10000)
    t.grep("--json", "docs", ["docs/state.md"])
    t.read("docs/state.md", 2500, content="# state\n\n" + "Use --json for machine output.\n" * 70)
    t.edit("docs/state.md", "Use --json for machine output.", "Use --format json for machine output (--json still works).")
    t.bash("git status --short", " M cogit/cli/state.py\n M cogit/cli/_options.py\n M docs/state.md\n")
    t.bash("git add -A && git commit -m 'state: --format json; --json kept as a deprecated alias'", "[main 1a2b3c4] state: --format json\n")
    t.bash("git log --oneline -3", "1a2b3c4 state: --format json\n9f8e7d6 lock: monotonic deadline\n")
    # 7
    t.prompt("thanks. one more: print the elapsed time in the summary line of the sync command (cogit/cli/sync.py)")
    t.read("cogit/cli/sync.py", 5000)
    t.edit("cogit/cli/sync.py", "echo(f'synced {n} commits')", "echo(f'synced {n} commits in {elapsed:.1f}s')")
    t.edit("cogit/cli/sync.py", "def sync(remote):", "def sync(remote):\n    started = time.monotonic()")
    t.bash(PYTEST + " tests/cli/test_sync.py -q", passed(9, 0.7))
    t.bash(PYTEST + " -q", passed(308, 8.6), ms=10000)
    t.bash("git diff --stat", " cogit/cli/sync.py | 4 +++-\n")
    t.bash("git commit -am 'sync: show elapsed time'", "[main 5d6e7f8] sync: show elapsed time\n")
    assert t.calls == 100, t.calls
    t.save()


def echo_edits_without_tests():
    t = Trace(
        "echo_edits_without_tests",
        "A refactor with six code edits in a row and no test run (a Markdown edit in between does not count): "
        "Echo speaks at the sixth code edit. Five more edits stay silent (the count restarted); a test run "
        "resets it, and two edits after it are silent.",
    )
    t.prompt("refactor the parser into smaller functions")
    t.read("parser/parser.py", 5200)
    t.edit("parser/parser.py", "def parse(tokens):", "def parse(tokens):\n    return _parse_block(tokens)")
    t.edit("parser/parser.py", "    # block", "def _parse_block(tokens):")
    t.edit("parser/parser.py", "    # expr", "def _parse_expr(tokens):")
    t.edit("parser/lexer.py", "def tokens(text):", "def tokens(text, keep_comments=False):")
    t.edit("docs/parser.md", "## Parsing", "## Parsing\n\nThe parser works block by block.")
    t.edit("parser/parser.py", "    # stmt", "def _parse_stmt(tokens):")
    t.edit("parser/ast_nodes.py", "class Block:", "class Block(Node):", expect=["echo"],
           contains=["6 code edits to 3 files since the last test run", "no test run seen in this session",
                     "parser/ast_nodes.py", "run against the tests"])
    t.edit("parser/ast_nodes.py", "class Stmt:", "class Stmt(Node):")
    t.edit("parser/ast_nodes.py", "class Expr:", "class Expr(Node):")
    t.edit("parser/parser.py", "    # call", "def _parse_call(tokens):")
    t.edit("parser/parser.py", "    # args", "def _parse_args(tokens):")
    t.edit("parser/lexer.py", "keep_comments=False", "keep_comments: bool = False")
    t.bash(PYTEST + " -q", passed(140, 3.3))
    t.edit("parser/parser.py", "def _parse_args(tokens):", "def _parse_args(tokens, *, trailing_comma=True):")
    t.edit("parser/ast_nodes.py", "class Call(Node):", "class Call(Expr):")
    t.save()


def echo_only_new_test():
    t = Trace(
        "echo_only_new_test",
        "Source changes and a new test file is created, then only the new test file is run and passes: Echo "
        "speaks at that run. The full suite afterwards is silent. Later a source change plus an edit of an "
        "existing test, checked by running that test file, is ordinary iteration and silent.",
    )
    t.prompt("support negative numbers in the tokenizer, with a test")
    t.read("calc/tokenizer.py", 2400)
    t.edit("calc/tokenizer.py", "NUMBER = r'\\d+'", "NUMBER = r'-?\\d+'")
    t.write("tests/test_tokenizer_negative.py", "from calc.tokenizer import tokenize\n\n\ndef test_negative():\n    assert tokenize('-3') == [('NUM', -3)]\n")
    t.bash(PYTEST + " tests/test_tokenizer_negative.py -q", passed(1, 0.05), expect=["echo"],
           contains=["calc/tokenizer.py", "test_tokenizer_negative.py", "covers only the new test"])
    t.bash(PYTEST + " -q", passed(57, 1.2))
    t.edit("calc/tokenizer.py", "def tokenize(text):", "def tokenize(text: str):")
    t.edit("tests/test_tokenizer.py", "def test_words():", "def test_words_typed():")
    t.bash(PYTEST + " tests/test_tokenizer.py -q", passed(12, 0.1))
    t.save()


def search_loop():
    t = Trace(
        "search_loop",
        "The same Grep (same pattern, same directory) three times with only reads in between: Vestibular "
        "speaks at the third. The same Bash command run again after an edit is a check, not a loop; a test "
        "command repeated is never a loop.",
    )
    t.prompt("find where the retry backoff is configured")
    t.grep("backoff", "src", ["src/net/retry.py", "src/net/session.py"])
    t.read("src/net/retry.py", 2100)
    t.grep("backoff", "src", ["src/net/retry.py", "src/net/session.py"])
    t.read("src/net/session.py", 2500)
    t.grep("backoff", "src", ["src/net/retry.py", "src/net/session.py"], expect=["vestibular"],
           contains=["The same Grep (`backoff in src`)", "3 times in the last 5 calls", "nothing written in between"])
    t.bash("python -c 'import net.retry as r; print(r.DEFAULT_BACKOFF)'", "0.5\n")
    t.edit("src/net/retry.py", "DEFAULT_BACKOFF = 0.5", "DEFAULT_BACKOFF = 1.0")
    t.bash("python -c 'import net.retry as r; print(r.DEFAULT_BACKOFF)'", "1.0\n")
    t.bash(PYTEST + " tests/test_retry.py -q", passed(7, 0.4))
    t.bash(PYTEST + " tests/test_retry.py -q", passed(7, 0.4))
    t.bash(PYTEST + " tests/test_retry.py -q", passed(7, 0.4))
    t.save()


def config_switches():
    t = Trace(
        "config_switches",
        "The failing loop again, with config: layer-1 nociception switched off, the interrupt at 4 similar "
        "failures, and Chronos, Echo, Drift switched off. Only the interrupt speaks, at the 4th and 6th "
        "failures; the 25-call Chronos level passes in silence.",
        config={"nociception": {"enabled": False}, "interrupt": {"at": 4}, "chronos": {"enabled": False},
                "echo": {"enabled": False}, "drift": {"enabled": False}},
    )
    t.prompt("get the build green")
    cmd = "npm run build"
    err = ("> proj@1.0.0 build\n> tsc -p .\n\nsrc/index.ts(%d,7): error TS2322: Type 'string' is not "
           "assignable to type 'number'.\n\nFound 1 error in src/index.ts:%d")
    for i in range(1, 7):
        kw = {}
        if i == 4:
            kw = dict(expect=["interrupt"], contains=["Level 1 of 3", "the last 4 failures", "TS2322"])
        if i == 6:
            kw = dict(expect=["interrupt"], contains=["Level 2 of 3", "6 failures"])
        t.bash_fail(cmd, 2, err % (10 + i, 10 + i), **kw)
        if i < 6:
            t.edit("src/index.ts", "const n: number = %s" % ("x" * i), "const n: number = %s" % ("y" * i))
    for i in range(14):
        t.read("src/mod%d.ts" % i, 800)
    t.save()


def main():
    os.makedirs(OUT, exist_ok=True)
    for fn in (failing_command_loop, exploring_failures, three_large_reads, long_run_without_user, repeated_rereads,
               repeated_passing_tests, blast_radius, scope_drift, interrupt_recovery, parallel_calls,
               normal_session_100, echo_edits_without_tests, echo_only_new_test, search_loop, config_switches):
        fn()
    print("wrote", len(os.listdir(OUT)), "traces to", OUT)


if __name__ == "__main__":
    main()
