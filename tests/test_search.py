"""`cogit search TEXT [--history] [--json]` and cogit.search.search: items in every scope
whose text holds the words; with --history, removed items and the commit that removed them."""

from __future__ import annotations

from cogit.paths import Home
from cogit.search import search

from test_history_index import synced  # noqa: F401  (a fixture: two machines synced)
from gitservers import bare_repo, git_env  # noqa: F401  (fixtures)


def _id(c, text, *args):
    return next(i["id"] for i in c.json("show", "learnings", *args)["learnings"] if i["text"] == text)


def test_search_finds_words_in_every_scope(initialized):
    c = initialized
    c.run("add", "learning", "The staging DB is read-only on Fridays")
    c.run("add", "heuristic", "Read the staging logs before deploying")
    c.run("add", "learning", "staging needs the VPN", "--project", "shop")
    c.run("add", "learning", "unrelated")
    hits = c.json("search", "STAGING")
    assert [(h["scope"], h["section"], h["status"]) for h in hits] == [
        ("global", "heuristics", "current"), ("global", "learnings", "current"), ("shop", "learnings", "current")]
    assert [h["text"] for h in c.json("search", "staging friday")] == ["The staging DB is read-only on Fridays"]
    assert c.json("search", "aging") == []  # a word matches the start of a word, not its middle
    assert "Nothing in memory matches" in c.run("search", "nothing-like-this").out
    assert "shop  learning: staging needs the VPN" in c.run("search", "vpn").out
    assert [h["scope"] for h in c.json("search", "staging", "--project", "shop")] == ["shop"]


def test_search_history_finds_forgotten_pruned_and_reverted_items(initialized):
    c = initialized
    c.run("add", "learning", "the fake clock is in tests/util")
    forgotten = _id(c, "the fake clock is in tests/util")
    c.run("forget", forgotten)
    c.run("add", "learning", "fake clock needs freezegun")
    reverted = _id(c, "fake clock needs freezegun")
    add_sha = c.json("log", "-n", "1")[0]["sha"]
    c.run("revert", add_sha)
    cfg = c.home / "memory" / "config.yaml"
    cfg.write_text(cfg.read_text().replace("learnings: 50", "learnings: 1"))
    c.run("commit", "-m", "Lower the cap")
    c.run("add", "learning", "the fake clock ticks in UTC")
    pruned = _id(c, "the fake clock ticks in UTC")
    c.run("add", "learning", "something newer")  # prunes the clock learning
    assert c.json("search", "fake clock") == []
    hits = {h["id"]: h for h in c.json("search", "fake clock", "--history")}
    assert {i: h["how"] for i, h in hits.items()} == {forgotten: "forgotten", reverted: "reverted", pruned: "pruned"}
    assert all(h["status"] == "removed" for h in hits.values())
    log = {e["sha"]: e for e in c.json("log")}
    assert log[hits[forgotten]["commit"]]["trailers"]["Cogit-Event"] == "item.forget"
    assert log[hits[reverted]["commit"]]["trailers"]["Cogit-Reverts"] == add_sha
    assert pruned in log[hits[pruned]["commit"]]["trailers"]["Cogit-Pruned"]
    out = c.run("search", "fake clock", "--history").out
    assert f"forgotten in {hits[forgotten]['commit'][:10]}" in out
    # The core function an MCP server calls: the same answer.
    core = search(Home(c.home), "fake clock", history=True)
    assert {h["id"] for h in core} == set(hits) and all({"scope", "section", "id", "text"} <= set(h) for h in core)
    assert len(search(Home(c.home), "fake clock", history=True, limit=2)) == 2


def test_search_history_through_git_answers_as_the_dulwich_walk(synced, monkeypatch):
    """history/wordwalk.py (git log --raw, cat-file) gives what the dulwich walk gives: on
    merges, scopes, caps, a revert, a forget and a hand commit; git is really used."""
    from cogit import search as search_module
    from cogit.store.history import wordwalk

    c = synced
    c.run("add", "learning", "a twice gone lesson")
    twice = _id(c, "a twice gone lesson")
    c.run("forget", twice)
    c.run("revert", c.json("log", "-n", "1")[0]["sha"])  # back again
    c.run("forget", twice)  # and gone for good: its last removal is this one
    last = c.json("log", "-n", "1")[0]["sha"]
    home = Home(synced.home)
    queries = ["lesson", "a lesson", "b lesson 1", "quick", "thumb", "late", "sync", "twice gone", "nothing-here"]
    through_git = {q: search(home, q, history=True) for q in queries}
    used = []
    real = wordwalk.removed
    monkeypatch.setattr(wordwalk, "removed", lambda *a: used.append(1) or real(*a))
    search(home, "lesson", history=True)
    assert used  # the git path was taken
    monkeypatch.setattr(wordwalk, "removed", lambda *a: None)  # git cannot answer: the dulwich walk
    for q in queries:
        assert search(home, q, history=True) == through_git[q], q
    assert any(h["status"] == "removed" for h in through_git["lesson"])
    assert [h["commit"] for h in through_git["twice gone"] if h["id"] == twice] == [last]
    assert search_module._removed_by_walk  # the fallback stays


def test_a_blob_larger_than_any_state_file_is_dropped_unread(initialized, git_env, monkeypatch):
    """A commit made with git that holds a huge learnings.yaml: both paths skip it alike."""
    from cogit.store.history import wordwalk
    from cogit.store.state import yamlio

    c = initialized
    c.run("add", "learning", "a huge lesson before")
    path = c.home / "memory" / "learnings.yaml"
    good = path.read_bytes()
    path.write_bytes(good + b"#" + b"lesson " * (yamlio.MAX_BYTES // 7 + 10) + b"\n")
    c.git("commit", "-q", "-am", "huge by hand")
    path.write_bytes(good)
    c.git("commit", "-q", "-am", "back by hand")
    c.run("add", "learning", "after the huge one")
    from cogit.store.state import canonical_reader

    sizes, real = [], canonical_reader.read
    monkeypatch.setattr(canonical_reader, "read", lambda data: sizes.append(len(data)) or real(data))
    through_git = search(Home(c.home), "lesson", history=True)
    assert sizes and max(sizes) <= yamlio.MAX_BYTES  # never held whole, never parsed
    monkeypatch.setattr(wordwalk, "removed", lambda *a: None)
    assert search(Home(c.home), "lesson", history=True) == through_git
