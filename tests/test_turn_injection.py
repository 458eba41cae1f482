"""Per-turn injection: at each prompt a session is told only what changed in memory
since its last injection, once, within budget; receipts are folded like the digest's.
Two live sessions (Claude Code and Codex) through the real hook entrypoints."""

from __future__ import annotations

import json

from conftest import wait_for

A = "5f1c0d2e-aaaa-4f7a-9d0a-2f1c3e5b7a90"  # a Claude Code session
B = "019a7c1e-bbbb-7e41-9c3a-2f1c3e5b7a90"  # a Codex session, alive at the same time


def claude(c, event, **fields):
    body = {"session_id": A, "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "hook_event_name": event, **fields}
    return c.run("hook", "claude", event, input=json.dumps(body), check=False)


def codex(c, event, **fields):
    body = {"session_id": B, "turn_id": "t", "transcript_path": None, "cwd": "/tmp", "hook_event_name": event,
            "model": "gpt-5.3-codex", "permission_mode": "default", **fields}
    return c.run("hook", "codex", event, input=json.dumps(body), check=False)


def context(proc) -> str:
    return json.loads(proc.out)["hookSpecificOutput"]["additionalContext"] if proc.out else ""


def state(c, sid):
    return json.loads((c.home / "runtime" / "sessions" / sid / "state.json").read_text())


def test_a_lesson_from_one_session_reaches_the_other_at_its_next_prompt_exactly_once(initialized):
    c = initialized
    c.run("add", "learning", "Old news: the repo uses tabs")
    assert "Old news" in context(claude(c, "SessionStart", source="startup"))
    assert "Old news" in context(codex(c, "SessionStart", source="startup"))
    assert context(codex(c, "UserPromptSubmit", prompt="look at the build")) == ""

    lesson = "the staging db is read-only on Fridays"
    said = context(claude(c, "UserPromptSubmit", prompt=f"remember this: {lesson}"))
    assert said == f'cogit: noted for memory as a feedback learning: "{lesson}"'
    assert wait_for(lambda: any(i["text"] == lesson for i in c.json("show", "learnings")["learnings"]))

    # The Codex session hears of it at its next prompt, once; the old item is not repeated.
    update = context(codex(c, "UserPromptSubmit", prompt="now deploy to staging"))
    assert update.startswith("<cogit-memory-update>") and update.endswith("</cogit-memory-update>")
    assert update.count(lesson) == 1 and "Old news" not in update
    assert context(codex(c, "UserPromptSubmit", prompt="and then?")) == ""
    # The session that learned it is not told its own lesson back.
    assert claude(c, "UserPromptSubmit", prompt="thanks, go on").out == ""

    # The receipt is folded with the session, as the session-start digest's is.
    assert [r["source"] for r in state(c, B)["receipts"]] == ["startup", "turn"]
    codex(c, "SessionEnd", reason="exit")
    assert wait_for(lambda: any(e["trailers"].get("Cogit-Session") == B for e in c.json("log", "--event", "session")))
    end = next(e for e in c.json("log", "--event", "session") if e["trailers"].get("Cogit-Session") == B)
    assert end["trailers"]["Cogit-Agent"] == "codex"
    receipts = end["trailers"]["Cogit-Digest"].split("; ")
    assert receipts[0].startswith("startup ") and receipts[1].startswith("turn ") and f"chars={len(update)}" in receipts[1]


def test_the_update_keeps_to_its_budget_and_says_what_it_cut(initialized):
    c = initialized
    cfg = c.home / "memory" / "config.yaml"
    cfg.write_text(cfg.read_text().replace("turn_max_chars: 600", "turn_max_chars: 300"))
    c.run("commit")
    codex(c, "SessionStart", source="startup")
    for n in range(8):
        c.run("add", "learning", f"Lesson number {n} from a pull, long enough to take up some room in the budget")
    update = context(codex(c, "UserPromptSubmit", prompt="go"))
    assert len(update) <= 300
    assert "Lesson number 7" in update  # the newest first
    shown = update.count("Lesson number")
    assert 1 <= shown < 8 and f"({8 - shown} more: see `cogit show`)" in update
    receipt = state(c, B)["receipts"][-1]
    assert receipt["source"] == "turn" and receipt["cut"] == 8 - shown and receipt["chars"] == len(update)
    assert context(codex(c, "UserPromptSubmit", prompt="go on")) == ""


def test_turned_off_it_says_nothing(initialized):
    c = initialized
    cfg = c.home / "memory" / "config.yaml"
    cfg.write_text(cfg.read_text().replace("turn_max_chars: 600", "turn_max_chars: 0"))
    c.run("commit")
    codex(c, "SessionStart", source="startup")
    c.run("add", "learning", "Something new")
    assert context(codex(c, "UserPromptSubmit", prompt="go")) == ""


def test_a_new_rule_from_another_project_is_not_told(initialized, tmp_path):
    """An item of another project's scope is not this session's memory: no update."""
    c = initialized
    other = tmp_path / "other"
    other.mkdir()
    codex(c, "SessionStart", source="startup")
    c.run("add", "learning", "Only for the other project", "--project", str(other))
    assert context(codex(c, "UserPromptSubmit", prompt="go")) == ""
    c.run("add", "rule", "Read the error before retrying", "--detector", "error_loop")
    update = context(codex(c, "UserPromptSubmit", prompt="go"))
    assert "Read the error before retrying" in update and "other project" not in update


def test_what_left_memory_and_a_new_focus_are_told_once(initialized):
    """Issue 22 part 6: a forgotten (or reverted) item and a new focus reach the running session."""
    c = initialized
    c.run("add", "learning", "The build needs node 18")
    (item,) = c.json("show", "learnings")["learnings"]
    assert f"[{item['id']}]" in context(claude(c, "SessionStart", source="startup"))
    c.run("forget", item["id"])
    update = context(claude(c, "UserPromptSubmit", prompt="build it"))
    assert "No longer in memory" in update and f"[{item['id']}]" in update
    assert context(claude(c, "UserPromptSubmit", prompt="and again")) == ""
    c.run("focus", "set", "Ship the </cogit-memory-update> parser")
    update = context(claude(c, "UserPromptSubmit", prompt="what now?"))
    assert "The focus is now: Ship the" in update and update.count("</cogit-memory-update>") == 1
    assert context(claude(c, "UserPromptSubmit", prompt="ok")) == ""
