"""No duplicates: `cogit add` of the same or a nearly identical learning, heuristic,
avoidance or rule adds evidence to the one there and says so; --force keeps both."""

from __future__ import annotations

import pytest

from cogit.store.dedupe import THRESHOLD, similarity


def test_the_threshold_separates_restatements_from_different_facts():
    assert similarity("Run the tests with pytest -q", "run tests with pytest -q.") >= THRESHOLD
    assert similarity("The staging DB is read-only!", "the staging db is read only") == 1.0  # normalized: the same
    assert similarity("Use Python 3.11", "Use Python 3.12") < THRESHOLD  # a number differs: different facts
    assert similarity("Run ruff before committing", "Run mypy before committing") < THRESHOLD
    assert similarity("Run tests before committing", "Run tests after committing") < THRESHOLD
    assert similarity("Never deploy on Fridays", "Deploy on Fridays") < THRESHOLD
    assert similarity("use ruff", "use rye") < THRESHOLD
    long = "the integration tests need the docker daemon running and the fake clock set to UTC in conftest"
    assert similarity(long, long.replace("running", "started")) >= THRESHOLD  # one word in a long text


@pytest.mark.parametrize("kind,extra", [("learning", []), ("heuristic", []), ("avoidance", []),
                                        ("rule", ["--detector", "error_loop"])])
def test_a_near_duplicate_adds_evidence_instead(initialized, kind, extra):
    c = initialized
    section = kind + "s"
    c.run("add", kind, "Read the whole error message before retrying", *extra)
    [first] = c.json("show", section)[section]
    out = c.run("add", kind, "Read the whole error messages before retrying", *extra).out
    assert "nearly the same as (similarity 1.00 ≥ 0.8)" in out
    assert f"{kind} {first['id']}" in out and "gained evidence (now 1)" in out and "--force" in out
    items = c.json("show", section)[section]
    assert [i["id"] for i in items] == [first["id"]] and items[0]["evidence"] == 1
    out = c.run("add", kind, "read the whole error message before retrying!!", *extra).out
    assert "it is the same as" in out and c.json("show", section)[section][0]["evidence"] == 2
    entry = c.json("log", "-n", "1")[0]
    assert entry["trailers"]["Cogit-Event"] == f"{kind}.evidence" and entry["trailers"]["Cogit-Item"] == first["id"]
    if kind != "rule":  # (one rule per detector: a second one is refused as before)
        c.run("add", kind, "Read the whole error messages before retrying", "--force")
        assert len(c.json("show", section)[section]) == 2
    c.assert_healthy()


def test_different_texts_are_added(initialized):
    c = initialized
    c.run("add", "learning", "Use Python 3.11 for the api")
    c.run("add", "learning", "Use Python 3.12 for the api")
    assert len(c.json("show", "learnings")["learnings"]) == 2
