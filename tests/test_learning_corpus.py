"""Issue 22 part 1: precision first, measured. Two corpora of sessions (bench/learning_corpus.py)
go through the real hook entrypoints (`cogit hook claude EVENT` subprocesses) and `cogit finalize`:

- ordinary, healthy work (read-edit-verify, a long file read in parts, a rename with leftover
  greps, docs-only edits, red-green TDD, a retried network error, a migration the user asked
  for, a rejected push then pull and push, exploration): a 20-session workload ends with no
  rule at all;
- real patterns (an error looping, re-reading an unchanged file, fruitless repeated searches,
  many code edits with no test run where tests exist): each is found by its detector, and by
  no other.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import learning_corpus as corpus  # noqa: E402


def run_session(c, sid, build, cwd):
    s = corpus.Session(sid, cwd)
    build(s)
    for event, body in s.events():
        out = c.hook(event, body)
        assert out.returncode == 0 and out.err == "", out.err
    c.run("finalize")
    return s


def detections(c, sid):
    """The detectors whose pattern the session `sid` showed (its rule.detect commits)."""
    by_id = {r["id"]: r["detector"] for r in c.json("rules")}
    return sorted(by_id.get(e["trailers"].get("Cogit-Rule"), "?") for e in c.json("log", "--session", sid)
                  if e["trailers"].get("Cogit-Event") == "rule.detect")


@pytest.fixture
def project(tmp_path):
    return corpus.make_project(str(tmp_path / "proj"))


def test_a_twenty_session_ordinary_workload_ends_with_no_rule(initialized, project):
    c = initialized
    for i, (name, build) in enumerate(corpus.workload(20)):
        run_session(c, f"ord{i}-{name}", build, project)
        assert c.json("rules") == [], f"session {i} ({name}) made a rule: {c.json('rules')}"
    learned = c.json("show", "learnings")["learnings"]
    in_project = c.run("show", "learnings", "--project", project, "--json", check=False)
    if in_project.returncode == 0:  # (the project has memory only once something was learned there)
        learned += json.loads(in_project.out)["learnings"]
    print("learnings of the ordinary workload:", [x["text"] for x in learned])
    assert not [x for x in learned if x.get("category") == "mistake"], learned
    # The sessions were analysed (they were folded), they just held nothing worth a rule.
    assert any(e["trailers"].get("Cogit-Event") == "session.end" for e in c.json("log", "--session", "ord0-read_edit_verify"))


@pytest.mark.parametrize("name", list(corpus.REAL))
def test_every_real_pattern_is_found_by_its_detector(initialized, project, name):
    c = initialized
    detector, build = corpus.REAL[name]
    run_session(c, "real-" + name, build, project)
    assert detections(c, "real-" + name) == [detector]


def test_edits_without_tests_needs_a_project_with_tests(initialized, tmp_path):
    """Docs-only folders and projects without tests have nothing to run."""
    c = initialized
    bare = tmp_path / "notes"
    bare.mkdir()
    run_session(c, "bare", corpus.many_edits_no_tests, str(bare))
    assert c.json("rules") == []


def test_a_loop_the_session_recovered_from_teaches_its_fix_as_one_item(initialized, project):
    """Issue 22 part 2: the first session teaches what fixed it; the digest has the rule once,
    not also a [mistake] learning of the same episode; no normalized signature, no temp path."""
    c = initialized
    run_session(c, "fix1", corpus.same_error_looping, project)
    (rule,) = c.json("rules")
    assert rule["text"] == ("When `python3 src/app.py` fails with \"ModuleNotFoundError: No module named 'dih_helpers'\", "
                            "run `PYTHONPATH=src python3 src/app.py` instead.")
    assert rule["signature"] and rule["signature"] not in rule["text"] and project not in rule["text"]
    learned = c.run("show", "learnings", "--project", project, "--json", check=False)
    items = json.loads(learned.out)["learnings"] if learned.returncode == 0 else []
    assert not [x for x in items if "dih_helpers" in x["text"]], items
    s = corpus.Session("fix2", project)
    digest = c.hook("SessionStart", s._p("SessionStart", source="startup")).out
    assert digest.count("dih_helpers") == 1, digest
