"""Hand edits: valid ones are committed as human edits; bad ones are refused with
file, line and field, and the last good state stays committed and injectable."""

from __future__ import annotations

import json
import os
import sys

import pytest


def test_commit_hand_edit_keeps_comments(initialized):
    c = initialized
    c.run("add", "learning", "first")
    path = c.home / "memory" / "learnings.yaml"
    text = path.read_text()
    text = text.replace("text: first", "text: first, edited by hand  # a person's comment")
    path.write_text(text)
    assert "learnings.yaml" in c.json("status")["hand_edits"]
    out = c.run("commit", "-m", "Clarify the first learning").out
    assert "Clarify the first learning" in out
    assert "# a person's comment" in c.git("show", "HEAD:learnings.yaml")
    trailers = c.git("log", "-1", "--format=%(trailers)")
    assert "Cogit-Event: human.edit" in trailers and "Cogit-Source: human" in trailers
    assert c.json("show", "learnings")["learnings"][0]["text"] == "first, edited by hand"
    # cogit's own later writes keep the comment too
    c.run("add", "learning", "second")
    assert "# a person's comment" in path.read_text()
    c.assert_healthy()
    assert "No hand edits" in c.run("commit").out


BAD_EDITS = [
    ("invalid yaml", "schema_version: 1\nitems: [\n", "learnings.yaml:", "invalid YAML"),
    ("wrong type", None, "learnings.yaml:5: field $.items[0].text", "is not of type 'string'"),
    ("unknown key", None, "learnings.yaml:4: field $.items[0]", "Additional properties are not allowed ('colour' was unexpected)"),
    ("alias bomb", "schema_version: 1\na: &a [x, x, x, x]\nb: &b [*a, *a, *a, *a]\nc: [*b, *b, *b, *b]\nitems: []\n",
     "learnings.yaml:2", "anchors and aliases are not allowed"),
    ("too big", "schema_version: 1\nitems: []\n" + "# " + "x" * 300_000 + "\n", "learnings.yaml", "over the 262144-byte limit"),
]


@pytest.mark.parametrize("name,text,where,what", BAD_EDITS, ids=[b[0] for b in BAD_EDITS])
def test_bad_hand_edit_is_refused_and_last_good_state_kept(initialized, name, text, where, what):
    c = initialized
    c.run("add", "learning", "the good one")
    head = c.git("rev-parse", "HEAD")
    path = c.home / "memory" / "learnings.yaml"
    good = path.read_text()
    if name == "wrong type":
        text = good.replace("text: the good one", "text: 42")
    if name == "unknown key":
        text = good.replace("text: the good one", "text: the good one\n    colour: red")
    path.write_text(text)
    proc = c.run("commit", check=False)
    assert proc.returncode == 1, proc.err
    assert where in proc.err and what in proc.err, proc.err
    assert "run `cogit commit` again" in proc.err
    assert c.git("rev-parse", "HEAD") == head
    # The last good state is still what memory reads and what the hooks inject.
    assert c.json("show", "learnings")["learnings"][0]["text"] == "the good one"
    payload = {"session_id": "s-bad", "cwd": str(c.home), "hook_event_name": "SessionStart", "source": "startup"}
    out = c.hook("SessionStart", payload).out
    assert "the good one" in json.loads(out)["hookSpecificOutput"]["additionalContext"]


def test_cogit_write_over_invalid_hand_edit_keeps_a_copy(initialized):
    c = initialized
    path = c.home / "memory" / "learnings.yaml"
    path.write_text("schema_version: 1\nitems: [broken\n")
    c.run("add", "learning", "written by cogit")
    rejected = list((c.home / "runtime" / "rejected").iterdir())
    assert len(rejected) == 1 and rejected[0].read_text() == "schema_version: 1\nitems: [broken\n"
    c.assert_healthy()


def test_valid_pending_hand_edit_is_committed_before_a_cogit_write(initialized):
    c = initialized
    path = c.home / "memory" / "avoidances.yaml"
    path.write_text(path.read_text().replace("items: []", "items:\n  - id: a-abcd12\n    text: hand written\n    source: human\n"
                                              "    created_at: '2026-01-01T00:00:00Z'\n    updated_at: '2026-01-01T00:00:00Z'"))
    c.run("add", "learning", "after the hand edit")
    events = [e["trailers"]["Cogit-Event"] for e in c.json("log", "-n", "2")]
    assert events == ["learning.add", "human.edit"]
    assert c.json("show", "avoidances")["avoidances"][0]["text"] == "hand written"
    c.assert_healthy()


def _editor(tmp_path, script: str) -> str:
    path = tmp_path / "editor.py"
    path.write_text(script)
    return f"{sys.executable} {path}"


def test_edit_with_editor(initialized, tmp_path):
    c = initialized
    editor = _editor(tmp_path, "import sys\np=sys.argv[1]\nt=open(p).read()\nopen(p,'w').write(t.replace('current: \"\"', 'current: edited focus  # why'))\n")
    out = c.run("edit", "focus", env={"EDITOR": editor, "VISUAL": ""}).out
    assert "Hand edit of focus.yaml" in out
    assert c.json("show", "focus")["focus"]["current"] == "edited focus"
    assert "Cogit-Event: human.edit" in c.git("log", "-1", "--format=%(trailers)")
    c.assert_healthy()


def test_edit_refuses_invalid_result_and_keeps_the_text(initialized, tmp_path):
    c = initialized
    editor = _editor(tmp_path, "import sys\nopen(sys.argv[1],'a').write('bogus: 1\\n')\n")
    head = c.git("rev-parse", "HEAD")
    proc = c.run("edit", "focus", env={"EDITOR": editor, "VISUAL": ""}, check=False)
    assert proc.returncode == 1
    assert "field $" in proc.err and "'bogus' was unexpected" in proc.err and "Your edit is kept in" in proc.err
    kept = proc.err.split("Your edit is kept in ")[1].split(";")[0]
    assert os.path.exists(kept) and "bogus: 1" in open(kept).read()
    assert c.git("rev-parse", "HEAD") == head
