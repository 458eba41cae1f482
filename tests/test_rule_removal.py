"""Issue 22 part 4: removal sticks. `forget`, `revert` of a rule's creation and `reject` leave
a tombstone on the rule's detector and signature (listed, liftable); `cogit rules off/on`;
reverting a heuristic's creation works after sessions used it; at a cap the new item stays
and the lowest-scored one is pruned, named in the commit."""

from __future__ import annotations

from test_learning_loop import events, loop, session


def make_rule(c, sid="m1"):
    session(c, sid, loop(sid))
    (rule,) = c.json("rules")
    return rule


def test_forget_leaves_a_tombstone_and_the_loop_makes_no_new_rule(initialized):
    c = initialized
    rule = make_rule(c)
    out = c.run("forget", rule["id"]).out
    assert "Forget rule" in out
    body = c.json("log", "-n", "1")[0]["body"]
    assert "Tombstone on detector error_loop" in body and f"cogit rules lift {rule['id']}" in body
    (stone,) = c.json("rules", "tombstones")
    assert (stone["rule"], stone["detector"], stone["signature"], stone["reason"]) == (rule["id"], "error_loop", rule["signature"], "forget")
    session(c, "m2", loop("m2"))
    assert c.json("rules") == [] and "rule.detect" not in events(c, "m2")
    # Lifted, the same pattern can make a rule again.
    c.run("rules", "lift", rule["id"])
    assert c.json("rules", "tombstones") == []
    session(c, "m3", loop("m3"))
    assert [r["detector"] for r in c.json("rules")] == ["error_loop"]
    c.assert_healthy()


def test_revert_of_a_rules_creation_removes_it_for_good(initialized):
    c = initialized
    rule = make_rule(c)
    (created,) = [e for e in c.json("log", "--session", "m1") if e["trailers"].get("Cogit-Event") == "rule.detect"]
    session(c, "m2", loop("m2"))  # later evidence for the same rule
    assert c.json("rules")[0]["detections"] == 2
    c.run("revert", created["sha"])
    assert c.json("rules") == []
    assert f"[{rule['id']}]" not in session(c, "m3", [])  # gone from the digest
    (stone,) = c.json("rules", "tombstones")
    assert stone["reason"] == "revert"
    session(c, "m4", loop("m4"))
    assert c.json("rules") == []
    c.assert_healthy()


def test_rules_off_and_on(initialized):
    c = initialized
    c.run("rules", "off", "error_loop")
    session(c, "o1", loop("o1"))
    assert c.json("rules") == []
    assert c.run("rules", "off", "nope", check=False).returncode == 2
    c.run("rules", "on", "error_loop")
    session(c, "o2", loop("o2"))
    assert [r["detector"] for r in c.json("rules")] == ["error_loop"]
    # Off, a shown rule earns no evidence either.
    c.run("rules", "off", "error_loop")
    session(c, "o3", loop("o3"))
    assert c.json("rules")[0]["detections"] == 1
    c.assert_healthy()


def test_reverting_a_heuristics_creation_works_after_sessions_used_it(initialized):
    from test_learning_loop import bash

    c = initialized
    c.run("add", "heuristic", "Run ruff before committing")
    added = c.json("log", "-n", "1")[0]["sha"]
    session(c, "h1", [bash("h1", 1, cmd="ruff check .")])  # shown, and it applied: a use
    assert c.json("show", "heuristics")["heuristics"][0]["use_count"] == 1
    c.run("revert", added)
    assert c.json("show", "heuristics")["heuristics"] == []
    c.assert_healthy()


def test_a_refused_revert_names_forget(initialized):
    c = initialized
    c.run("add", "heuristic", "Read the failing test first")
    (h,) = c.json("show", "heuristics")["heuristics"]
    added = c.json("log", "-n", "1")[0]["sha"]
    # A later edit of the text itself (not a use count) still blocks the revert.
    path = c.home / "memory" / "heuristics.yaml"
    path.write_text(path.read_text().replace("Read the failing test first", "Read the first failing test"))
    c.run("commit", "-m", "Reword")
    out = c.run("revert", added, check=False)
    assert out.returncode != 0 and f"cogit forget {h['id']}" in out.err, out.err


def test_at_the_cap_the_new_heuristic_stays_and_the_lowest_scored_is_pruned(initialized):
    from test_learning_loop import bash

    c = initialized
    cfg = c.home / "memory" / "config.yaml"
    cfg.write_text(cfg.read_text().replace("  heuristics: 30", "  heuristics: 3"))
    c.run("commit", "-m", "Small cap")
    for p in ("ruff", "mypy", "tox"):
        c.run("add", "heuristic", f"Run {p} before committing")
    session(c, "u1", [bash("u1", 1, cmd="ruff check ."), bash("u1", 2, cmd="mypy ."), bash("u1", 3, cmd="tox -q")])
    used = {h["id"]: h["use_count"] for h in c.json("show", "heuristics")["heuristics"]}
    out = c.run("add", "heuristic", "A brand new heuristic about caches").out
    assert "already in memory" not in out and "pruned by cap" in out, out
    texts = [h["text"] for h in c.json("show", "heuristics")["heuristics"]]
    assert "A brand new heuristic about caches" in texts and len(texts) == 3
    (pruned,) = c.json("log", "-n", "1")[0]["trailers"]["Cogit-Pruned"].split()
    assert used[pruned] == min(used.values())
    c.assert_healthy()


def test_a_merge_keeps_both_machines_tombstones_and_switches():
    from cogit.sync.merge import merge_states

    def doc(stones, switches):
        return {"rules": {"schema_version": 1, "items": [], "tombstones": stones, "detectors": switches}}

    t = lambda rid: {"id": rid, "detector": "error_loop", "signature": rid, "rule": rid, "text": "x", "reason": "forget",  # noqa: E731
                     "at": "2026-01-01T00:00:00Z"}
    base = doc([t("ru-0001")], {})
    ours = doc([t("ru-0001"), t("ru-0002")], {"long_run": "on"})
    theirs = doc([t("ru-0001"), t("ru-0003")], {"error_loop": "off"})
    merged = merge_states(base, ours, theirs).state["rules"]
    assert [x["id"] for x in merged["tombstones"]] == ["ru-0001", "ru-0002", "ru-0003"]
    assert merged["detectors"] == {"long_run": "on", "error_loop": "off"}
