""""Remember this" as people say it: a corpus of real phrasings through the real hook.

Each prompt goes through `cogit hook claude UserPromptSubmit` in a subprocess, as Claude
Code sends it; a request to remember is confirmed ("noted for memory as ...: <lesson>")
with the lesson only, never the task that follows it; everything else is not confirmed
and queues nothing. The choices for the ambiguous ones are in docs/incoming/agents-newcomer.md.
"""

from __future__ import annotations

import json

import pytest

from conftest import wait_for

NOTE = 'cogit: noted for memory as a feedback learning: "{}"'

# (prompt, the lesson stored)
POSITIVE = [
    ("remember this: the staging db is read-only on Fridays", "the staging db is read-only on Fridays"),
    ("Remember that the API is v2 now", "the API is v2 now"),
    ("Remember: tests need docker running", "tests need docker running"),
    ("Also, remember this: the CI cache lives in /var/ci", "the CI cache lives in /var/ci"),
    ("also remember this - integration tests need the VPN", "integration tests need the VPN"),
    ("Oh and btw, remember that the linter runs on commit", "the linter runs on commit"),
    ("Please remember the release branch is called stable", "the release branch is called stable"),
    ("please remember: config lives in ~/.appcfg", "config lives in ~/.appcfg"),
    ("Please, remember that logs rotate daily", "logs rotate daily"),
    ("don't forget: deploys need a signed tag", "deploys need a signed tag"),
    ("Don’t forget that staging resets every night", "staging resets every night"),
    ("Do not forget - the build uses node 20", "the build uses node 20"),
    ("keep in mind the CI runners have no network", "the CI runners have no network"),
    ("Keep in mind: port 8080 is taken by the proxy", "port 8080 is taken by the proxy"),
    ("Please keep in mind that Windows paths need quoting", "Windows paths need quoting"),
    ("Keep this in mind: the parser is recursive", "the parser is recursive"),
    ("Remember, we are on Python 3.11", "we are on Python 3.11"),
    ("I want you to remember this: ports below 1024 need root", "ports below 1024 need root"),
    ("For future reference: the app logs are in /var/log/app", "the app logs are in /var/log/app"),
    ("note: the server restarts at 4am", "the server restarts at 4am"),
    ("Make a note: the fixtures are generated, never edit them", "the fixtures are generated, never edit them"),
    # the lesson only: the task after it is not stored
    ("Remember this: use pnpm, not npm. Now install the deps and run the build.", "use pnpm, not npm."),
    ("Keep in mind that the db is shared. Can you add the migration?", "the db is shared."),
    ("remember this: the flaky test is test_io.\nThen fix the parser", "the flaky test is test_io."),
    ("don't forget: main is protected. Please open a PR for this change", "main is protected."),
    ("Remember this: mocks hide bugs here. Thanks!", "mocks hide bugs here."),
    ("Fix the bug in utils.py. Also, remember this: utils is imported by the CLI", "utils is imported by the CLI"),
    # "remember to" is learned when it says it lasts
    ("Remember to always run the tests before committing.", "always run the tests before committing."),
    ("don't forget to never push to main directly", "never push to main directly"),
    # the lesson said first, then the request
    ("The staging db is read-only on Fridays, remember that.", "The staging db is read-only on Fridays"),
    ("Our CI is slow on Mondays. Keep that in mind!", "Our CI is slow on Mondays"),
]

NEGATIVE = [
    "do you remember what we did yesterday?",
    "Do you remember that bug from Tuesday?",
    "I don't remember how this module works, can you explain it?",
    "I remember that we changed this last week, check the git log",
    "Remember that bug from Tuesday? It is back.",
    "Remember when we broke prod?",
    "remember to run tests",  # a reminder for this task, not a lasting lesson
    "Please remember to update the changelog",
    "Don't forget to commit when you are done",
    "please remember what I said earlier",
    "can you remember that for me?",
    "Fine, remember that.",  # nothing worth learning before it
    "Keep going, you are almost there",
    "Take note of the failing tests and fix them",
    "Forget it, let's do something else",
    "Never mind the lint errors for now",
    "The test reminds me of the old parser, rewrite it",
    "Fix the footnote rendering in the docs",
    "Please fix the failing test in module 3 and explain why.",
]


def prompt(c, text, sid):
    event = {"session_id": sid, "transcript_path": f"/tmp/.claude/projects/x/{sid}.jsonl", "cwd": "/tmp",
             "hook_event_name": "UserPromptSubmit", "permission_mode": "default", "prompt": text}
    proc = c.hook("UserPromptSubmit", event)
    assert proc.returncode == 0 and proc.err == "", proc.err
    if not proc.out:
        return None
    return json.loads(proc.out)["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("text,lesson", POSITIVE, ids=[p[0][:40] for p in POSITIVE])
def test_a_request_to_remember_is_confirmed_with_the_lesson_only(initialized, text, lesson):
    assert prompt(initialized, text, "a1b2c3d4-0000-4000-8000-000000000001") == NOTE.format(lesson)


def test_what_is_not_a_request_to_remember_is_neither_confirmed_nor_queued(initialized):
    c = initialized
    sid = "a1b2c3d4-0000-4000-8000-000000000002"
    for text in NEGATIVE:
        assert prompt(c, text, sid) is None, text
    state = json.loads((c.home / "runtime" / "sessions" / sid / "state.json").read_text())
    assert state["queue"] == [] and state["agg"]["prompts"] == len(NEGATIVE)


def test_remember_this_then_a_task_stores_the_lesson_only(initialized):
    c = initialized
    sid = "a1b2c3d4-0000-4000-8000-000000000003"
    out = prompt(c, "Remember this: use pnpm, not npm. Now install the deps and run the build.", sid)
    assert out == NOTE.format("use pnpm, not npm.")
    wait_for(lambda: c.json("show", "learnings")["learnings"], timeout=30)
    assert [i["text"] for i in c.json("show", "learnings")["learnings"]] == ["use pnpm, not npm."]


def test_floods_of_punctuation_after_a_trigger_word_stay_linear():
    """`X. Remember that.` once backtracked over every dot of a run: 50 s for 12,000."""
    import time

    from cogit.learn.prompts import explicit_request

    for text in ["remember " + "." * 12000, "." * 12000 + " remember that", "keep in mind " + "-" * 12000,
                 "remember " + "a-" * 6000, "note " + "!." * 6000, "remember " + "—" * 12000]:
        start = time.perf_counter()
        assert explicit_request(text) is None
        assert time.perf_counter() - start < 1.0, text[:30]
