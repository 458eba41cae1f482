"""The built-in reflector, the automatic trigger, the inbox API and the merge of the inbox."""

from __future__ import annotations

import json
import sys
import time

from cogit.learn.inbox import add_proposals, normalize
from cogit.domain.ledger import Evidence
from cogit.learn.reflect import parse_answer
from cogit.learn.reflect_builtin import builtin_answer
from cogit.sync.merge import merge_states
from cogit.domain.times import now_iso

OLD = "2026-01-01T00:00:00Z"


def tools(**per_tool):
    return {"sessions": 9, "tools": {name: {"calls": c, "failures": f, "duration_ms_total": 0, "timed_calls": 0}
                                     for name, (c, f) in per_tool.items()}, "sequences": {}}


def test_builtin_sees_a_falling_success_rate():
    then = tools(Bash=(20, 1), Read=(20, 0))
    now = tools(Bash=(30, 5), Read=(30, 0))  # Bash: 95% before, 60% over the last 10 calls
    answer = builtin_answer({"tools": now}, then, {})
    assert answer["insights"] == ["Bash succeeded in 60% of its last 10 calls, down from 95% before: "
                                  "something changed (the tool, the environment, or how it is called)."]
    assert answer["questions"] == ["What changed for Bash in the recent sessions?"]
    parse_answer(json.dumps(answer))  # it follows the answer schema
    # a steady rate says nothing
    assert builtin_answer({"tools": tools(Bash=(30, 2))}, tools(Bash=(20, 1)), {})["insights"] == []


def test_builtin_proposes_a_learning_for_a_tool_that_fails_often_and_a_heuristic_for_a_sequence():
    state = {"tools": dict(tools(Bash=(20, 10), Read=(40, 0)),
                           sequences={"Read > Edit > Bash": 6, "Read > Read > Read": 9, "Read > Edit": 30, "Grep > Read > Edit": 2})}
    answer = builtin_answer(state, None, {})
    assert [x["text"][:30] for x in answer["learnings"]] == ["Bash fails often (50% success "]
    assert answer["heuristics"] == ["A working sequence seen 6 times: Read → Edit → Bash; follow it for similar tasks."]


def test_builtin_names_rules_that_keep_firing_despite_injection_and_unused_heuristics():
    rule = {"id": "ru-1234", "text": "Read the error before retrying", "detector": "error_loop"}
    ev = [Evidence("detect", "ru-1234", f"s{i}", "0" * 40, 0, injected) for i, injected in enumerate([True, True, False])]
    state = {"rules": {"items": [rule]},
             "heuristics": {"items": [{"id": "h-aaaa", "text": "never used", "use_count": 0, "created_at": OLD},
                                      {"id": "h-bbbb", "text": "used", "use_count": 3, "created_at": OLD},
                                      {"id": "h-cccc", "text": "new", "use_count": 0, "created_at": now_iso()}]}}
    answer = builtin_answer(state, None, {"ru-1234": ev})
    assert answer["patterns"] == ['Rule ru-1234 ("Read the error before retrying") was shown and its pattern still '
                                  'happened in 2 sessions.']
    assert [q.split(" (")[0] for q in answer["questions"]] == ["Is rule ru-1234 worded so the agent can act on it, or is the cause elsewhere?",
                                                               "Heuristic h-aaaa"]


def test_builtin_reflection_through_the_cli_works_offline(initialized):
    c = initialized
    path = c.home / "memory" / "tools.yaml"
    path.write_text(
        "schema_version: 1\nsessions: 3\ntools:\n  Bash:\n    calls: 20\n    failures: 10\n    duration_ms_total: 0\n"
        "    timed_calls: 0\nsequences:\n  Read > Edit > Bash: 7\n")
    c.run("commit")
    out = c.run("reflect")
    assert "Reflector: builtin (cogit-builtin)" in out.out
    msg = c.git("log", "-1", "--format=%B")
    assert "Cogit-Source: reflection" in msg and "Cogit-Model: cogit-builtin" in msg
    assert {p["section"] for p in c.json("review")} == {"learnings", "heuristics"}


# --------------------------------------------------------------------------- the inbox API


def _state():
    return {"reflections": {"schema_version": 1, "items": []}, "heuristics": {"items": []}, "learnings": {"items": []},
            "avoidances": {"items": []}, "rules": {"items": []}, "focus": {"current": None, "priorities": []}}


def test_add_proposals_waits_auto_accepts_and_drops():
    state = _state()
    state["reflections"]["tombstones"] = [{"id": "t-0001", "section": "avoidances", "text": "Never do X!", "reason": "rejected",
                                           "created_at": OLD, "updated_at": OLD}]
    config = {"review": {"auto_accept": ["agent"]}}
    r = add_proposals(state, [{"section": "heuristics", "text": "wait for me"}, {"section": "avoidances", "text": "never do x"},
                              {"section": "nope", "text": "bad"}], "reflection", config)
    assert len(r["pending"]) == 1 and r["accepted"] == [] and r["dropped"] == ["never do x", "bad"]
    assert state["reflections"]["tombstones"][0]["dropped"] == 1
    r = add_proposals(state, [{"section": "learnings", "text": "the db is read-only", "category": "feedback"}], "agent", config)
    assert r["pending"] == [] and r["accepted"][0].startswith("l-")
    assert state["learnings"]["items"][0]["source"] == "agent"
    # auto-accept is a setting: with an empty list even an agent waits
    r = add_proposals(state, [{"section": "learnings", "text": "another"}], "agent", {"review": {"auto_accept": []}})
    assert len(r["pending"]) == 1
    # what waits already is not added twice
    r = add_proposals(state, [{"section": "heuristics", "text": "Wait for me."}], "reflection", config)
    assert r["known"] == ["Wait for me."] and r["pending"] == []
    assert normalize("  Wait, for ME! ") == "wait for me"


def test_propose_is_one_commit_and_an_agent_proposal_is_accepted(initialized):
    from cogit.learn.inbox import propose
    from cogit.paths import Home
    from cogit.store.git.provenance import Provenance

    c = initialized
    home = Home.resolve(str(c.home))
    result = propose(home, [{"section": "learnings", "text": "staging is read-only on Fridays"}],
                     Provenance(event="learning.add", source="agent", agent="claude-code"))
    assert result["commit"] and result["accepted"]
    assert [i["text"] for i in c.json("show", "learnings")["learnings"]] == ["staging is read-only on Fridays"]
    assert "Cogit-Source: agent" in c.git("log", "-1", "--format=%B")
    # nothing new: no commit
    again = propose(home, [{"section": "learnings", "text": "staging is read-only on Fridays"}],
                    Provenance(event="learning.add", source="agent"))
    assert again["commit"] is None


# --------------------------------------------------------------------------- merge


def test_merge_keeps_both_machines_proposals_and_tombstones():
    def doc(proposals, stones):
        return {"reflections": {"schema_version": 1, "items": [], "proposals": proposals, "tombstones": stones}}

    p = lambda i: {"id": i, "section": "heuristics", "text": i, "source": "reflection", "created_at": OLD, "updated_at": OLD}  # noqa: E731
    t = lambda i, n=0: {"id": i, "section": "heuristics", "text": i, "reason": "rejected", "created_at": OLD,  # noqa: E731
                        "updated_at": OLD, "dropped": n}
    base = doc([p("p-0001"), p("p-0002")], [t("t-0001")])
    ours = doc([p("p-0002"), p("p-0003")], [t("t-0001", 1), t("t-0002")])  # accepted p-0001, a new proposal, a drop
    theirs = doc([p("p-0001"), p("p-0002"), p("p-0004")], [t("t-0001", 2), t("t-0003")])
    merged = merge_states(base, ours, theirs).state["reflections"]
    assert [x["id"] for x in merged["proposals"]] == ["p-0002", "p-0003", "p-0004"]
    assert {x["id"]: x["dropped"] for x in merged["tombstones"]} == {"t-0001": 3, "t-0002": 0, "t-0003": 0}
    assert merge_states(base, theirs, ours).state == merge_states(base, ours, theirs).state


# --------------------------------------------------------------------------- the trigger


SID = "5e551077-0000-4000-8000-00000000refl"


def _session(c, sid: str, prompts: int):
    base = {"session_id": sid, "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp"}
    c.hook("SessionStart", dict(base, hook_event_name="SessionStart", source="startup"))
    for i in range(prompts):
        c.hook("UserPromptSubmit", dict(base, hook_event_name="UserPromptSubmit", permission_mode="default",
                                        prompt=f"Please refactor the parser module number {i} and keep its tests green"))
    c.hook("SessionEnd", dict(base, hook_event_name="SessionEnd", reason="other"))


def _wait(predicate, seconds=90):  # detached work under a loaded machine
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.25)
    return False


def _set(c, text_from: str, text_to: str):
    path = c.home / "memory" / "config.yaml"
    text = path.read_text()
    assert text_from in text
    path.write_text(text.replace(text_from, text_to))
    c.run("commit", "-m", "settings")
    c.confirm_waiting()  # reflect.* acts: a person confirms it on this machine


def test_reflection_runs_after_a_session_ends_when_due(initialized, tmp_path):
    c = initialized
    counter = tmp_path / "runs"
    script = tmp_path / "reflector.py"
    script.write_text(f"import json, pathlib, sys\nsys.stdin.read()\np = pathlib.Path({str(counter)!r})\n"
                      "n = int(p.read_text()) + 1 if p.exists() else 1\np.write_text(str(n))\n"
                      "print(json.dumps({'insights': [f'auto reflection {n}']}))\n")
    _set(c, "  command: null", f"  command: {json.dumps(f'{sys.executable} {script}')}")
    _set(c, "  min_interactions: 10", "  min_interactions: 3")
    _set(c, "  min_hours: 4", "  min_hours: 0")
    # two meaningful prompts: not yet due; the session folds, no reflection
    _session(c, SID + "a", 2)
    assert _wait(lambda: not any((c.home / "runtime" / "sessions").iterdir()))
    time.sleep(1)
    assert not counter.exists()
    # two more (four since the last reflection, none yet): due, runs detached after SessionEnd
    _session(c, SID + "b", 2)
    assert _wait(lambda: "Cogit-Trigger: auto" in c.git("log", "-1", "--format=%B")), (c.home / "runtime" / "logs").iterdir()
    msg = c.git("log", "-1", "--format=%B")
    assert "Cogit-Source: reflection" in msg
    assert [p["text"] for p in c.json("review")] == ["auto reflection 1"]  # a command's insight waits for review
    assert not (c.home / "runtime" / "logs" / "reflect.log").exists()  # only failures are logged
    marker = json.loads((c.home / "runtime" / "reflect.json").read_text())
    assert marker["meaningful"] == 4
    # one more session with two prompts: only two since the last one, not due
    _session(c, SID + "c", 2)
    assert _wait(lambda: not any((c.home / "runtime" / "sessions").iterdir()))
    time.sleep(1.5)
    assert counter.read_text() == "1"


def test_the_trigger_runs_one_at_a_time_and_not_when_off(initialized, tmp_path):
    from cogit.learn import trigger
    from cogit.locking import file_lock
    from cogit.paths import Home

    c = initialized
    home = Home.resolve(str(c.home))
    _set(c, "  min_interactions: 10", "  min_interactions: 0")
    _set(c, "  min_hours: 4", "  min_hours: 0")
    path = c.home / "memory" / "tools.yaml"
    path.write_text("schema_version: 1\nsessions: 3\ntools:\n  Bash:\n    calls: 20\n    failures: 10\n"
                    "    duration_ms_total: 0\n    timed_calls: 0\nsequences: {}\n")
    c.run("commit")
    before = c.git("rev-parse", "HEAD")
    with file_lock(trigger.lock_path(home), 1):  # another reflection runs
        assert trigger.after_session(home) is None
    assert c.git("rev-parse", "HEAD") == before and not trigger.marker_path(home).exists()
    # Off on this machine (reflect.auto is this machine's own: machine-settings.json).
    local = c.home / "machine-settings.json"
    settings = json.loads(local.read_text()) if local.exists() else {}
    settings.setdefault("reflect", {})["auto"] = False
    local.write_text(json.dumps(settings))
    before = c.git("rev-parse", "HEAD")
    assert trigger.after_session(home) is None and c.git("rev-parse", "HEAD") == before
    settings["reflect"]["auto"] = True
    local.write_text(json.dumps(settings))
    # Detached work after a command may hold the trigger's lock for a moment (one at a
    # time): once it is free, this call reflects.
    from conftest import wait_for

    reports = []
    assert wait_for(lambda: reports.append(trigger.after_session(home)) or reports[-1] is not None)
    assert reports[-1]["reflector"] == "builtin"


def test_a_reflections_file_near_the_size_limit_sheds_its_oldest_tombstones_first():
    from cogit.store.state.documents import shrink_to_fit

    stones = [{"id": f"t-{i:04x}", "section": "heuristics", "text": f"{i} " + "x" * 1500, "reason": "rejected",
               "created_at": OLD, "updated_at": OLD} for i in range(10)]
    doc = {"schema_version": 1, "items": [{"id": "rf-0001", "text": "keep me", "kind": "insight", "source": "reflection",
                                           "created_at": OLD, "updated_at": OLD}], "tombstones": stones}
    removed = shrink_to_fit("reflections", doc, 3000)
    assert [r[1]["id"] for r in removed] == ["t-0000", "t-0001"]
    assert [s["id"] for s in doc["tombstones"]][0] == "t-0002" and doc["items"][0]["id"] == "rf-0001"


def test_a_count_is_not_an_insight():
    """Issue 22 part 5: "Read → Edit → Read recurs (13 times)" said nothing."""
    state = {"tools": dict(tools(Read=(40, 0)), sequences={"Read > Edit > Read": 13})}
    answer = builtin_answer(state, None, {})
    assert answer["patterns"] == [] and answer["insights"] == []


def test_a_builtin_insight_that_no_longer_holds_is_withdrawn(initialized):
    """Issue 22 part 5: built-in insights are recomputed at each reflection; one that is no
    longer true (the rate recovered) leaves, named in the commit; a true one stays."""
    c = initialized
    path = c.home / "memory" / "reflections.yaml"
    text = path.read_text()
    stale = "Bash succeeded in 40% of its last 10 calls, down from 95% before: something changed (the tool, the environment, or how it is called)."
    by_hand = "A note from an LLM: keep builds reproducible."
    items = (f"items:\n- id: rf-0001\n  text: '{stale}'\n  kind: insight\n  source: reflection\n  model: cogit-builtin\n"
             f"  created_at: '{OLD}'\n  updated_at: '{OLD}'\n"
             f"- id: rf-0002\n  text: '{by_hand}'\n  kind: insight\n  source: reflection\n  model: some-llm\n"
             f"  created_at: '{OLD}'\n  updated_at: '{OLD}'\n")
    path.write_text(text.replace("items: []\n", items, 1))
    c.run("commit", "-m", "Earlier reflections")
    c.run("reflect")
    left = [i["text"] for i in c.json("show", "reflections")["reflections"]]
    assert stale not in left and by_hand in left
    msg = c.git("log", "-1", "--format=%B")
    assert "withdrawn insight rf-0001 (no longer true)" in msg and "Cogit-Pruned: rf-0001" in msg
    c.assert_healthy()
