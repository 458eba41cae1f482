"""The digest tells and uses its budget: an empty memory says it exists in one line;
sections share the character budget by rank, so it fills before anything is cut."""

from __future__ import annotations

import json

from cogit.digest.assemble import EMPTY, TIME_RESERVE, compile_text


def items(prefix: str, n: int, words: int = 8) -> dict:
    return {"items": [{"id": f"{prefix}-{i:04x}", "text": f"{prefix} item {i} " + "word " * words, "category": "insight",
                       "created_at": f"2026-01-01T00:{i:02d}:00Z", "updated_at": f"2026-01-01T00:{i:02d}:00Z"}
                      for i in range(n)]}


def test_empty_memory_says_in_one_line_that_memory_is_active(initialized):
    c = initialized
    out = c.hook("SessionStart", {"session_id": "s-1", "hook_event_name": "SessionStart", "cwd": "/tmp", "source": "startup"}).out
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    lines = text.splitlines()
    assert lines[0] == "<cogit-memory>" and lines[1].startswith("Time: ") and lines[2:] == [EMPTY, "</cogit-memory>"]
    assert "remember this" in EMPTY and "cogit add learning" in EMPTY


def test_sections_share_the_budget_by_rank():
    config = {"digest": {"max_chars": 2000, "heuristics": 5, "learnings": 5, "avoidances": 5, "rules": 3}}
    project = {"learnings": items("l", 12)}
    glob = {"learnings": items("g", 12), "heuristics": items("h", 2), "avoidances": items("a", 1)}
    out = compile_text([("global", glob), ("project/p", project)], config)
    text = out["text"]
    # the global lessons are not hidden behind the project's (old: a fixed five, all project)
    assert "g item 11" in text and "l item 11" in text
    assert text.index("l item 11") < text.index("g item 11")  # the project first at each rank
    assert "h item" in text and "a item" in text
    # the budget is used before anything is cut: not even one more line would fit
    assert out["cut"] and out["chars"] > 2000 - TIME_RESERVE - 200
    assert "(Not shown to fit the budget:" in text and len(text) <= 2000 - TIME_RESERVE


def test_floors_come_before_extras_and_a_long_item_does_not_block_shorter_ones():
    config = {"digest": {"max_chars": 900, "rules": 0, "learnings": 0, "heuristics": 0, "avoidances": 2}}
    state = {"learnings": items("l", 30), "avoidances": items("a", 3)}
    state["learnings"]["items"][-1]["text"] = "x" * 1500  # the newest, ranked first, too long for the budget
    out = compile_text([("global", state)], config)
    assert "a item 2" in out["text"] and "a item 1" in out["text"]  # the floor of avoidances
    assert "xxxx" not in out["text"] and "l item 28" in out["text"]
