"""`cogit import nox|metacog|claude-memory`: sample files in each tool's documented format
(malformed entries included), one commit each through the write path, nothing the second
time, secrets redacted by the write path, hostile paths refused, the rule ledger with
Metacog's original times."""

from __future__ import annotations

import json
import os
import time

import pytest

from cogit.domain import ledger

from tests.test_learning_loop import loop, session


def iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(t))


DAY = 86400
GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # a GitHub token's shape (fake)

# nox-cognitive's cognitive/state.json as its author documents it: focus, heuristics with use
# counts, learnings with categories, avoidances as plain strings, engagement. Lines matter.
NOX = """{
  "focus": {
    "current": "Autonomous self-improvement and creative exploration",
    "priorities": ["Write the post", "Ship the plugin"],
    "lastUpdated": "2026-02-09T08:00:00.000Z"
  },
  "heuristics": [
    {"text": "Doing the work is better than building systems about doing the work", "source": "feedback", "useCount": 4, "lastUsed": "2026-02-09T07:00:00.000Z"},
    {"text": 42, "useCount": 1},
    {"text": "Draft freely first, then systematically check and replace violations", "source": "reflection", "useCount": 2, "lastUsed": 1770620400000}
  ],
  "learnings": [
    {"text": "Writing FROM experience integrates better than writing ABOUT experience", "category": "insight", "context": "the blog post", "timestamp": "2026-02-08T10:00:00.000Z"},
    {"text": "The CI token is TOKEN and it must not leak", "category": "feedback", "context": "told by Thomas", "timestamp": "2026-02-08T11:00:00.000Z"},
    {"text": "Self-reflection systems can perpetuate biases", "category": "musing", "timestamp": "2026-02-08T12:00:00.000Z"},
    {"text": "When in the future", "category": "pattern", "timestamp": "2999-01-01T00:00:00Z"},
    {"category": "mistake", "timestamp": "2026-02-08T13:00:00.000Z"}
  ],
  "avoidances": [
    "Building meta-systems when direct action would serve better",
    {"not": "a string"},
    "Circling philosophical questions instead of moving forward"
  ],
  "engagement": {"meaningfulInteractions": 12, "totalInteractions": 40, "lastMeaningfulAt": "2026-02-09T07:30:00.000Z"}
}
""".replace("TOKEN", GITHUB)


def commits(c) -> int:
    return int(c.git("rev-list", "--count", "--all").strip())


def imp(c, *args, check=True):
    proc = c.run("import", *args, "--json", check=check)
    return json.loads(proc.out) if proc.returncode == 0 else proc


def by_text(items):
    return {i["text"]: i for i in items}


def test_nox_state_becomes_memory_in_one_commit_and_a_second_import_changes_nothing(initialized, tmp_path):
    c = initialized
    path = tmp_path / "state.json"
    path.write_text(NOX)
    before = commits(c)
    out = imp(c, "nox", str(path))
    assert commits(c) == before + 1
    assert out["added"] == {"focus": 1, "heuristics": 2, "learnings": 4, "avoidances": 2, "engagement": 1}
    # Malformed entries are reported with the line they start on; the rest is imported.
    assert out["problems"] == [
        "state.json:9: heuristic text: expected text, found int (skipped)",
        "state.json:15: learning category 'musing' is not one of insight, feedback, pattern, mistake (imported as insight)",
        "state.json:16: learning timestamp: '2999-01-01T00:00:00Z' is not a believable time (before 2000 or in the future) (the import time is used)",
        "state.json:17: learning text: expected text, found null (skipped)",
        "state.json:21: avoidance: expected text, found dict (skipped)",
    ]
    state = c.json("show")
    assert state["focus"]["current"] == "Autonomous self-improvement and creative exploration"
    assert state["focus"]["priorities"] == ["Write the post", "Ship the plugin"]
    assert state["focus"]["updated_at"] == "2026-02-09T08:00:00Z"
    h = by_text(state["heuristics"])
    work = h["Doing the work is better than building systems about doing the work"]
    assert (work["use_count"], work["last_used"], work["source"]) == (4, "2026-02-09T07:00:00Z", "import")
    assert h["Draft freely first, then systematically check and replace violations"]["last_used"] == "2026-02-09T07:00:00Z"  # epoch ms
    learnings = by_text(state["learnings"])
    first = learnings["Writing FROM experience integrates better than writing ABOUT experience"]
    assert (first["category"], first["context"], first["created_at"], first["source"]) == ("insight", "the blog post", "2026-02-08T10:00:00Z", "import")
    assert learnings["Self-reflection systems can perpetuate biases"]["category"] == "insight"
    assert set(by_text(state["avoidances"])) == {"Building meta-systems when direct action would serve better",
                                                  "Circling philosophical questions instead of moving forward"}
    eng = state["engagement"]
    assert (eng["meaningful_interactions"], eng["total_interactions"], eng["last_meaningful_at"]) == (12, 40, "2026-02-09T07:30:00Z")
    (entry,) = c.json("log", "-n", "1")
    assert entry["trailers"]["Cogit-Source"] == "import" and entry["trailers"]["Cogit-Event"] == "import.nox"
    assert entry["trailers"]["Cogit-Evidence"].startswith("state.json sha256:")

    again = imp(c, "nox", str(path))
    assert again["commit"] is None and commits(c) == before + 1
    c.assert_healthy()


def test_nox_engagement_adds_only_what_grew_and_a_newer_cogit_focus_wins(initialized, tmp_path):
    c = initialized
    c.run("focus", "set", "Ship cogit imports")  # set now: newer than nox's focus
    path = tmp_path / "state.json"
    path.write_text(NOX)
    out = imp(c, "nox", str(path))
    assert "focus" not in out["added"] and any("focus not imported" in n for n in out["notes"])
    assert c.json("show")["focus"]["current"] == "Ship cogit imports"
    doc = json.loads(NOX)
    doc["engagement"] = {"meaningfulInteractions": 15, "totalInteractions": 50, "lastMeaningfulAt": "2026-02-10T07:30:00.000Z"}
    doc["heuristics"][0]["useCount"] = 9
    path.write_text(json.dumps(doc, indent=2))
    out = imp(c, "nox", str(path))
    assert out["added"] == {"heuristics updated": 1, "engagement": 1}
    state = c.json("show")
    assert (state["engagement"]["meaningful_interactions"], state["engagement"]["total_interactions"]) == (15, 50)
    assert by_text(state["heuristics"])["Doing the work is better than building systems about doing the work"]["use_count"] == 9
    c.assert_healthy()


@pytest.mark.parametrize("text, where", [
    ('{\n  "focus": {"current": "x"},\n  "learnings": [ {"text": "a"}, ]\n}\n', "state.json:3:33: not valid JSON"),
    ('[1, 2]', "the top level is list, not an object"),
    ('{"other": 1}', "this is not a nox-cognitive state"),
    ("{\"learnings\": [{\"text\": \"caf\xe9\"}]}", "state.json:1: not UTF-8 text"),
    ("[" * 100000 + "]" * 100000, "nested too deeply"),
])
def test_a_nox_file_that_is_not_a_state_is_refused_whole(initialized, tmp_path, text, where):
    c = initialized
    path = tmp_path / "state.json"
    path.write_bytes(text.encode("latin-1"))
    before = commits(c)
    proc = c.run("import", "nox", str(path), check=False)
    assert proc.returncode == 1 and where in proc.err, proc.err
    assert commits(c) == before


def metacog_lines(now: float) -> list[str]:
    """Metacog's JSONL records as its source writes them (learnings.js), CRLF like its author's."""
    d1, d2, d3 = iso(now - 9 * DAY), iso(now - 5 * DAY), iso(now - 2 * DAY)
    return [
        json.dumps({"pattern": "error_loop", "category": "Error Handling", "lesson": "Diagnose the root cause before retrying a failing command.",
                    "type": "detection", "detected_at": d1, "session_turn_count": 55}),
        json.dumps({"pattern": "circular_search", "category": "Search Patterns", "lesson": "Use one broad Grep before narrowing.",
                    "type": "detection", "detected_at": d1, "session_turn_count": 55}),
        "{not json",
        json.dumps({"pattern": "error_loop", "type": "suppression", "detected_at": d2, "session_turn_count": 32}),
        json.dumps({"pattern": "circular_search", "type": "suppression", "detected_at": d2, "session_turn_count": 32}),
        json.dumps({"pattern": "motor_syntax_error_unexpected_tok", "type": "motor_learning", "category": "Resolved Failures",
                    "lesson": "After 3 failures (syntax error unexpected token), switching from Edit to Read resolved it.",
                    "failure_window": {"start_turn": 5, "end_turn": 7, "error_count": 3},
                    "resolution_action": {"tool": "Read", "target": "/src/config.js"},
                    "detected_at": d3, "session_turn_count": 12, "confidence": 0.6, "evidence": 1}),
        json.dumps({"pattern": "write_heavy_session", "category": "Code Quality", "lesson": f"Read before writing; the key {GITHUB} is not for you.",
                    "type": "detection", "detected_at": d3, "session_turn_count": 60}),
        json.dumps({"pattern": "circular_search", "type": "detection"}),
        json.dumps({"pattern": "../../etc", "type": "detection", "detected_at": d3}),
        json.dumps({"pattern": "error_loop", "type": "relapse", "detected_at": d3}),
        json.dumps(["an", "array"]),
        "",
    ]


def test_metacog_records_become_rules_with_their_ledger_and_original_times(initialized, tmp_path):
    c = initialized
    now = time.time()
    lines = metacog_lines(now)
    path = tmp_path / "metacog-learnings.jsonl"
    path.write_bytes("\r\n".join(lines).encode())
    before = commits(c)
    out = imp(c, "metacog", str(tmp_path))  # the folder that holds the log
    assert commits(c) == before + 1
    assert out["added"] == {"new rules": 4, "detections": 4, "suppressions": 2}
    assert out["problems"] == [
        "metacog-learnings.jsonl:3: not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1) (skipped)",
        "metacog-learnings.jsonl:8: detected_at: missing (skipped)",
        "metacog-learnings.jsonl:9: pattern '../../etc' is missing or not an id (skipped)",
        "metacog-learnings.jsonl:10: type 'relapse' is not detection, suppression or motor_learning (skipped)",
        "metacog-learnings.jsonl:11: expected an object, found list (skipped)",
    ]
    rules = {r["detector"] + ("/" + r["signature"] if r["signature"] else ""): r for r in c.json("rules")}
    assert set(rules) == {"error_loop", "circular_search", "error_loop/metacog:motor_syntax_error_unexpected_tok",
                          "metacog:write_heavy_session"}
    loop_rule = rules["error_loop"]
    assert (loop_rule["detections"], loop_rule["suppressions"], loop_rule["source"]) == (1, 1, "import")
    assert loop_rule["text"] == "Diagnose the root cause before retrying a failing command."
    assert loop_rule["last_suppressed"] == iso(now - 5 * DAY)[:19] + "Z"
    # Confidence counts the imported evidence and ages from its original time.
    assert loop_rule["confidence"] == ledger.confidence(2, float(int(now - 5 * DAY)), now)
    shown = c.json("rules", "show", loop_rule["id"])
    assert [(e["kind"], e["time"], e["session"]) for e in shown["ledger"]] == [
        ("detect", iso(now - 9 * DAY)[:19] + "Z", "metacog:L1"), ("suppress", iso(now - 5 * DAY)[:19] + "Z", "metacog:L4")]
    assert shown["created_at"] == iso(now - 9 * DAY)[:19] + "Z"
    assert [round(p["confidence"], 2) for p in shown["over_time"][:3]] == [0.33, 0.5, 0.6]
    (entry,) = c.json("log", "-n", "1")
    assert entry["trailers"]["Cogit-Event"] == "import.metacog" and entry["trailers"]["Cogit-Ledger"] == "6"
    assert "Redacted 1 secret(s)" in entry["body"]  # the lesson's token, by the write path

    # The same file again, and Metacog's project log (the same records again): nothing new.
    assert imp(c, "metacog", str(path))["commit"] is None
    project_log = tmp_path / "proj" / ".claude" / "metacog-learnings.jsonl"
    project_log.parent.mkdir(parents=True)
    project_log.write_text("\n".join(lines[:2] + lines[3:5]) + "\n")
    assert imp(c, "metacog", str(project_log.parent.parent))["commit"] is None
    assert commits(c) == before + 1
    # The log grew: only the new record is added, to the rule that exists.
    with open(path, "a") as f:
        f.write("\r\n" + json.dumps({"pattern": "circular_search", "type": "suppression", "detected_at": iso(now - DAY), "session_turn_count": 20}))
    out = imp(c, "metacog", str(path))
    assert out["added"] == {"detections": 0, "suppressions": 1}
    after = {r["id"]: r for r in c.json("rules")}[rules["circular_search"]["id"]]
    assert (after["detections"], after["suppressions"]) == (1, 2)
    c.assert_healthy()


def test_an_imported_rule_keeps_learning_from_cogit_sessions_and_the_import_can_be_reverted(initialized, tmp_path):
    c = initialized
    now = time.time()
    path = tmp_path / "metacog-learnings.jsonl"
    path.write_text("\n".join(metacog_lines(now)[:5]) + "\n")
    imp(c, "metacog", str(path))
    rule = next(r for r in c.json("rules") if r["detector"] == "error_loop")
    import_sha = c.json("log", "-n", "1")[0]["sha"]
    # Reverting the import removes its rules and their imported ledger; reverting that brings both back.
    c.run("revert", import_sha)
    assert c.json("rules") == []
    c.run("revert", c.json("log", "-n", "1")[0]["sha"])
    assert next(r for r in c.json("rules") if r["id"] == rule["id"])["confidence"] == rule["confidence"]
    # A real session through the hooks loops on an error: the imported rule gets the detection.
    injected = session(c, "s1", loop("s1"))
    assert f"[{rule['id']}]" in injected  # shown, with the confidence its imported ledger gave it
    shown = c.json("rules", "show", rule["id"])
    assert [(e["kind"], e["session"]) for e in shown["ledger"]] == [("detect", "metacog:L1"), ("suppress", "metacog:L4"), ("detect", "s1")]
    assert shown["confidence"] == ledger.confidence(3, 0, 0, misses=1)  # it looped while shown: a miss (issue 22)
    (item,) = [r for r in c.json("show", "rules")["rules"] if r["id"] == rule["id"]]
    assert (item["detections"], item["suppressions"]) == (2, 1)  # the cache follows the whole ledger
    # Now a later commit changed that rule: the import cannot be reverted over it, and says why.
    proc = c.run("revert", import_sha, check=False)
    assert proc.returncode == 1 and "changed rule" in proc.err
    c.assert_healthy()


def test_claude_memory_file_one_learning_per_bullet(initialized, tmp_path):
    c = initialized
    md = tmp_path / "CLAUDE.md"
    long = "x" * 2100
    lines = [
        "# Project rules",                          # 1
        "",                                         # 2
        "- Run tests with `python -m pytest -q`",   # 3
        "- Never push to main;",                    # 4
        "  open a pull request instead",            # 5
        "* [x] Use ruff for lint",                  # 6
        "",                                         # 7
        "## Secrets",                               # 8
        f"1. The deploy token is {GITHUB}",         # 9
        "```bash",                                  # 10
        "- not a bullet: code",                     # 11
        "```",                                      # 12
        "<!-- - hidden",                            # 13
        "-->",                                      # 14
        f"- {long}",                                # 15
        "- BROKEN byte",                            # 16
        "- Run tests with `python -m pytest -q`",   # 17: a repeat
        "",                                         # 18
        "Plain prose is not a bullet.",             # 19
    ]
    md.write_bytes("\n".join(lines).encode().replace(b"BROKEN", b"\xff") + b"\n")
    before = commits(c)
    out = imp(c, "claude-memory", str(md))
    assert out["added"] == {"learnings": 4}
    assert out["problems"] == ["CLAUDE.md:16: not UTF-8 text (line skipped)",
                               "CLAUDE.md:15: bullet: the text is 2,100 characters, over the limit of 2,000 (skipped)"]
    learnings = by_text(c.json("show", "learnings")["learnings"])
    assert set(learnings) == {"Run tests with `python -m pytest -q`", "Never push to main; open a pull request instead",
                              "Use ruff for lint", "The deploy token is [REDACTED:github-token]"}
    item = learnings["Never push to main; open a pull request instead"]
    assert (item["source"], item["category"], item["context"]) == ("import", "feedback", "Imported from CLAUDE.md § Project rules")
    assert out["redacted"] == 1
    assert imp(c, "claude-memory", str(md))["commit"] is None and commits(c) == before + 1
    c.assert_healthy()


def test_claude_auto_memory_folder_is_walked_without_following_symlinks(initialized, tmp_path):
    c = initialized
    mem = tmp_path / "memory"
    (mem / "nested").mkdir(parents=True)
    (mem / "MEMORY.md").write_text("# Index\n- [Tests](feedback_tests.md) — how tests run\n- The staging db is read-only on Fridays\n")
    (mem / "feedback_tests.md").write_text("---\nname: tests\ndescription: Run tests with python -m pytest -q, never bare pytest\n"
                                           "type: feedback\nmodified: 2026-10-01T12:00:00Z\n---\nBare pytest picks the wrong interpreter.\n")
    (mem / "nested" / "project_deploy.md").write_text("---\ntype: project\n---\n## Deploy\n- Deploy with make ship after the tests pass\n")
    secret = tmp_path / "outside.md"
    secret.write_text("- outside memory: must not be imported\n")
    (mem / "link.md").symlink_to(secret)
    (mem / "nested" / "loop").symlink_to(mem, target_is_directory=True)
    (mem / "notes.txt").write_text("- not markdown\n")
    out = imp(c, "claude-memory", str(mem))
    assert out["added"] == {"learnings": 3}
    assert sorted(out["problems"]) == ["link.md: a symlink; not followed (skipped)", "nested/loop: a symlink; not followed (skipped)"]
    learnings = by_text(c.json("show", "learnings")["learnings"])
    assert set(learnings) == {"The staging db is read-only on Fridays", "Run tests with python -m pytest -q, never bare pytest",
                              "Deploy with make ship after the tests pass"}
    topic = learnings["Run tests with python -m pytest -q, never bare pytest"]
    assert (topic["category"], topic["created_at"]) == ("feedback", "2026-10-01T12:00:00Z")
    assert learnings["Deploy with make ship after the tests pass"]["category"] == "insight"
    assert imp(c, "claude-memory", str(mem))["commit"] is None
    c.assert_healthy()


def test_hostile_paths_are_refused_and_never_written(initialized, tmp_path):
    c = initialized
    real = tmp_path / "state.json"
    real.write_text(NOX)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    huge = tmp_path / "huge.jsonl"
    with open(huge, "wb") as f:
        f.truncate(9 * 1024 * 1024)  # sparse: over the limit without writing it
    binary = tmp_path / "CLAUDE.md"
    binary.write_bytes(b"- a bullet\n\0\x01\x02")
    fifo = tmp_path / "fifo.md"
    os.mkfifo(fifo)
    before = commits(c)
    stamp = os.stat(real)
    cases = [(("nox", str(link)), "is a symlink"), (("metacog", str(huge)), "over the import limit"),
             (("claude-memory", str(binary)), "is a binary file"), (("claude-memory", str(fifo)), "not a regular file"),
             (("nox", str(tmp_path)), "not a regular file"), (("metacog", str(tmp_path / "missing")), "cannot read"),
             (("claude-memory", str(link)), "is a symlink")]
    for args, message in cases:
        proc = c.run("import", *args, check=False, timeout=20)
        assert proc.returncode == 1 and message in proc.err, (args, proc.err)
        assert proc.err.count("\n") == 2  # what went wrong, and what to do next
    assert commits(c) == before
    after = os.stat(real)
    assert (after.st_mtime_ns, after.st_size) == (stamp.st_mtime_ns, stamp.st_size) and real.read_text() == NOX


def test_secrets_are_redacted_by_the_write_path_on_the_way_in(initialized, tmp_path):
    c = initialized
    path = tmp_path / "state.json"
    path.write_text(NOX)
    out = imp(c, "nox", str(path))
    assert out["redacted"] == 1
    md = tmp_path / "CLAUDE.md"
    md.write_text(f"- deploy with {GITHUB}\n")
    imp(c, "claude-memory", str(md))
    history = c.git("log", "-p", "--all", "--format=%B")
    assert GITHUB not in history and "[REDACTED:github-token]" in history
    assert c.run("scan", "--all-branches", check=False).returncode == 0


def test_project_option_imports_into_the_project(initialized, tmp_path):
    c = initialized
    md = tmp_path / "CLAUDE.md"
    md.write_text("- Only for this project\n")
    path = tmp_path / "state.json"
    path.write_text(NOX)
    imp(c, "claude-memory", str(md), "--project", "shop")
    out = imp(c, "nox", str(path), "--project", "shop")
    assert any("engagement is kept in global memory only" in n for n in out["notes"])
    assert "engagement" not in out["added"]
    assert c.json("show", "learnings")["learnings"] == []
    project = by_text(c.json("show", "learnings", "--project", "shop")["learnings"])
    assert "Only for this project" in project
    assert c.json("show", "engagement")["engagement"]["total_interactions"] == 0
    c.assert_healthy()


def test_bounds_of_a_folder_walk_and_of_the_ledger_body(tmp_path, monkeypatch):
    from cogit.imports import Report, markdown

    monkeypatch.setattr(markdown, "MAX_FILES", 3)
    deep = tmp_path / "a" / "b" / "c" / "d" / "e"
    deep.mkdir(parents=True)
    (deep / "deep.md").write_text("- too deep\n")
    for i in range(6):
        (tmp_path / f"f{i}.md").write_text(f"- bullet {i}\n")
    report = Report("claude-memory")
    found = markdown._walk(str(tmp_path), report)
    assert [rel for rel, _ in found] == ["f0.md", "f1.md", "f2.md"]
    assert report.notes and "stopped at 3" in report.notes[0]
    # An import commit's body: lines of any other shape are not ledger entries.
    body = (ledger.LEDGER_HEADER + "\nru-abcdef detect 2026-03-20T17:42:14Z metacog:L1 0123456789ab\n"
            "ru-abcdef detect 2026-13-99T17:42:14Z metacog:L2 0123456789ab\nru-zz detect 2026-03-20T17:42:14Z x 0123456789ab\n"
            "ru-abcdef suppress 2026-03-21T00:00:00Z metacog:L3 00112233aabb; rm -rf /\n")
    entries = ledger.imported_entries(body, "sha")
    assert [(e.kind, e.session) for e in entries] == [("detect", "metacog:L1")]


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
                    max_leaves=12)
NOX_KEYS = st.sampled_from(["focus", "heuristics", "learnings", "avoidances", "engagement", "text", "category", "useCount",
                            "lastUsed", "timestamp", "priorities", "current", "lastUpdated", "meaningfulInteractions",
                            "totalInteractions", "lastMeaningfulAt", "context"])
LEAF = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
        | st.sampled_from(["2026-02-09T08:00:00Z", 1770620400000, "insight", "9999-99-99", -1]))
NOX_ENTRY = LEAF | st.lists(LEAF, max_size=3) | st.dictionaries(NOX_KEYS, LEAF | st.lists(LEAF, max_size=3), max_size=5)
NOX_STATE = st.fixed_dictionaries({}, optional={k: NOX_ENTRY | st.lists(NOX_ENTRY, max_size=4) for k in
                                                ("focus", "heuristics", "learnings", "avoidances", "engagement")})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=NOX_STATE, lines=st.lists(JSON | st.text(max_size=40), max_size=8),
       md=st.binary(max_size=300))
def test_any_input_is_imported_in_part_or_refused_never_a_crash(tmp_path, doc, lines, md):
    """Whatever the file holds, reading it ends in entries plus reported problems, or in
    ImportRefused (exit 1): never another exception (exit 3)."""
    from cogit.imports import ImportRefused, Report, markdown, metacog, nox

    cases = [(nox, "state.json", json.dumps(doc).encode()),
             (metacog, "metacog-learnings.jsonl", "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines).encode()),
             (markdown, "CLAUDE.md", md.replace(b"\0", b""))]
    for mod, name, data in cases:
        path = tmp_path / name
        path.write_bytes(data)
        try:
            mod.load(str(path), Report(name))
        except ImportRefused:
            pass
