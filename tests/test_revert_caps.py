"""Revert undoes exactly one commit's item changes; caps prune with a record."""

from __future__ import annotations


def ids(c, section):
    return [i["id"] for i in c.json("show", section)[section]]


def sha_of(c, n=0):
    return c.json("log")[n]["sha"]


def test_revert_an_old_commit_keeps_later_changes(initialized):
    c = initialized
    c.run("add", "heuristic", "bad heuristic")
    bad_commit = sha_of(c)
    (bad,) = ids(c, "heuristics")
    c.run("add", "heuristic", "good heuristic")
    c.run("add", "learning", "later learning")
    c.run("focus", "set", "later focus")
    out = c.run("revert", bad_commit[:10]).out
    assert 'Revert "Add heuristic' in out
    assert bad not in ids(c, "heuristics") and len(ids(c, "heuristics")) == 1
    assert len(ids(c, "learnings")) == 1 and c.json("show", "focus")["focus"]["current"] == "later focus"
    trailers = c.git("log", "-1", "--format=%(trailers)")
    assert "Cogit-Event: revert" in trailers and f"Cogit-Reverts: {bad_commit}" in trailers
    assert f"This reverts commit {bad_commit}." in c.git("log", "-1", "--format=%b")
    c.assert_healthy()


def test_revert_a_forget_brings_the_item_back(initialized):
    c = initialized
    c.run("add", "learning", "precious", "--category", "mistake", "--context", "prod outage")
    (lid,) = ids(c, "learnings")
    original = c.json("show", "learnings")["learnings"][0]
    c.run("forget", lid)
    c.run("revert", "HEAD")
    assert c.json("show", "learnings")["learnings"] == [original]
    c.assert_healthy()


def test_revert_stops_when_a_later_commit_changed_the_same_item(initialized):
    c = initialized
    c.run("add", "learning", "x")
    added = sha_of(c)
    (lid,) = ids(c, "learnings")
    c.run("forget", lid)
    forgot = sha_of(c)
    head = c.git("rev-parse", "HEAD")
    proc = c.run("revert", added, check=False)
    assert proc.returncode == 1
    assert f"cannot revert {added[:10]}" in proc.err and f"later commit {forgot[:10]}" in proc.err
    assert f"Revert {forgot[:10]} first" in proc.err
    assert c.git("rev-parse", "HEAD") == head


def test_revert_field_of_a_document_section(initialized):
    c = initialized
    c.run("focus", "set", "one")
    first = sha_of(c)
    c.run("add", "learning", "unrelated")
    c.run("revert", first)
    assert c.json("show", "focus")["focus"]["current"] == ""
    c.run("focus", "set", "two")
    c.run("focus", "set", "three")
    proc = c.run("revert", "HEAD~1", check=False)
    assert proc.returncode == 1 and "changed focus" in proc.err


def test_revert_initial_commit_is_refused(initialized):
    c = initialized
    proc = c.run("revert", sha_of(c), check=False)
    assert proc.returncode == 1 and "created memory" in proc.err and "cogit forget" in proc.err


def test_why_lists_every_commit_with_provenance(initialized):
    c = initialized
    c.run("add", "learning", "watched item")
    (lid,) = ids(c, "learnings")
    c.run("add", "learning", "other item")
    c.run("forget", lid)
    c.run("revert", "HEAD")
    found = c.json("why", lid)
    assert [f["trailers"]["Cogit-Event"] for f in found] == ["revert", "item.forget", "learning.add"]
    assert [f["changes"][0]["op"] for f in found] == ["added", "removed", "added"]
    text = c.run("why", lid).out
    assert "event=item.forget" in text and f'- learning {lid} "watched item"' in text


def test_caps_prune_oldest_and_name_them(initialized):
    c = initialized
    cfg = c.home / "memory" / "config.yaml"
    cfg.write_text(cfg.read_text().replace("learnings: 50", "learnings: 3"))
    c.run("commit", "-m", "Lower the learnings cap")
    for n in range(3):
        c.run("add", "learning", f"learning {n}")
    oldest = ids(c, "learnings")[0]
    out = c.run("add", "learning", "learning 3").out
    assert f"pruned by cap: learnings {oldest}" in out
    assert oldest not in ids(c, "learnings") and len(ids(c, "learnings")) == 3
    body = c.git("log", "-1", "--format=%B")
    assert "Pruned by caps" in body and f"learning {oldest} 'learning 0'" in body and f"Cogit-Pruned: {oldest}" in body
    assert [e["trailers"]["Cogit-Event"] for e in c.json("log", "--item", oldest)] == ["learning.add", "learning.add"]
    c.run("revert", "HEAD", check=False)  # bringing it back re-applies the cap to another
    c.assert_healthy()
