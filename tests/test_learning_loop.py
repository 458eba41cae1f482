"""The learning loop end to end: sessions through the real hook entrypoints (subprocesses),
rules that grow from detections AND suppressions, confidence from the ledger in history,
and `cogit revert` of an evidence commit moving the confidence back."""

from __future__ import annotations

import json

import pytest

from cogit.domain import ledger

ERR = "Exit code 1\nModuleNotFoundError: No module named 'widgets'"


def payload(sid: str, event: str, cwd: str = "/tmp", **fields) -> dict:
    base = {"session_id": sid, "transcript_path": f"/tmp/{sid}.jsonl", "cwd": cwd, "hook_event_name": event}
    base.update(fields)
    return base


def bash(sid, n, cmd="python -m app", ok=True):
    if ok:
        return "PostToolUse", payload(sid, "PostToolUse", tool_name="Bash", tool_input={"command": cmd},
                                      tool_response={"stdout": "ok", "stderr": "", "interrupted": False},
                                      tool_use_id=f"t{n}", duration_ms=30)
    return "PostToolUseFailure", payload(sid, "PostToolUseFailure", tool_name="Bash", tool_input={"command": cmd},
                                         tool_use_id=f"t{n}", error=ERR, is_interrupt=False, duration_ms=30)


def read(sid, n, path="/tmp/app.py"):
    return "PostToolUse", payload(sid, "PostToolUse", tool_name="Read", tool_input={"file_path": path},
                                  tool_response={"type": "text", "file": {"content": "x"}}, tool_use_id=f"r{n}", duration_ms=3)


def session(c, sid, calls, prompt="Fix the import of the widgets module in app.py please", cwd="/tmp") -> str:
    """One whole session through `cogit hook claude EVENT` subprocesses; returns what was injected."""
    out = c.hook("SessionStart", payload(sid, "SessionStart", cwd=cwd, source="startup"))
    assert out.returncode == 0 and out.err == ""
    injected = json.loads(out.out)["hookSpecificOutput"]["additionalContext"] if out.out else ""
    assert c.hook("UserPromptSubmit", payload(sid, "UserPromptSubmit", cwd=cwd, prompt=prompt)).returncode == 0
    if callable(calls):  # calls that depend on what was injected
        calls = calls(injected)
    for event, body in calls:
        body["cwd"] = cwd
        assert c.hook(event, body).returncode == 0
    assert c.hook("SessionEnd", payload(sid, "SessionEnd", cwd=cwd, reason="prompt_input_exit")).returncode == 0
    c.run("finalize")
    return injected


def loop(sid):
    return [bash(sid, i, ok=False) for i in range(3)]


def the_rule(c):
    rules = c.json("rules")
    assert len(rules) == 1, rules
    return rules[0]


def events(c, sid):
    return [e["trailers"]["Cogit-Event"] for e in c.json("log", "--session", sid)]


def test_four_sessions_and_a_revert(initialized):
    c = initialized
    # Session 1 loops on one error: a rule is created, with its first detection.
    session(c, "s1", loop("s1") + [bash("s1", 9, cmd="pip install widgets"), bash("s1", 10)])
    r1 = the_rule(c)
    assert (r1["detector"], r1["detections"], r1["suppressions"]) == ("error_loop", 1, 0)
    assert "widgets" in r1["signature"] and r1["source"] == "detector"
    assert events(c, "s1").count("rule.detect") == 1
    # The fold commit lists the senses that fired.
    end = [e for e in c.json("log", "--session", "s1") if e["trailers"]["Cogit-Event"] == "session.end"][0]
    assert "Senses fired:" in end["body"] and "interrupt" in end["body"]

    # Session 2 is shown the rule and does not loop: a suppression, higher confidence.
    injected = session(c, "s2", [bash("s2", 1), read("s2", 2)])
    assert f"[{r1['id']}]" in injected
    r2 = the_rule(c)
    assert (r2["detections"], r2["suppressions"], r2["sessions_injected"]) == (1, 1, 1)
    assert r2["confidence"] > r1["confidence"]
    (sup,) = [e for e in c.json("log", "--session", "s2") if e["trailers"]["Cogit-Event"] == "rule.suppress"]
    assert sup["trailers"]["Cogit-Rule"] == r1["id"] and sup["trailers"]["Cogit-Session"] == "s2"

    # Session 3 is shown the rule but runs no commands: neither detection nor suppression.
    injected = session(c, "s3", [read("s3", 1), read("s3", 2, "/tmp/b.py")])
    assert f"[{r1['id']}]" in injected
    r3 = the_rule(c)
    assert (r3["detections"], r3["suppressions"], r3["confidence"]) == (1, 1, r2["confidence"])
    assert not {"rule.detect", "rule.suppress"} & set(events(c, "s3"))

    # Session 4 loops despite the rule: a detection of the same rule, no second rule.
    session(c, "s4", loop("s4"))
    r4 = the_rule(c)
    assert (r4["id"], r4["detections"], r4["suppressions"]) == (r1["id"], 2, 1)
    # Issue 22: it was shown and the loop happened anyway: that counts against its wording.
    assert r4["misses"] == 1 and r4["confidence"] < r3["confidence"]

    # Revert session 2's evidence commit: the ledger no longer counts it.
    c.run("revert", sup["sha"])
    r5 = the_rule(c)
    assert (r5["detections"], r5["suppressions"]) == (2, 0)
    assert r5["confidence"] < r4["confidence"] and r5["confidence"] == ledger.confidence(2, 0, 0, misses=1)
    shown = c.json("rules", "show", r1["id"])
    assert [e["kind"] for e in shown["ledger"]] == ["detect", "detect"]
    assert [e["session"] for e in shown["ledger"]] == ["s1", "s4"]
    # rules.yaml's cache follows the ledger.
    (item,) = c.json("show", "rules")["rules"]
    assert (item["detections"], item["suppressions"], item["last_suppressed"]) == (2, 0, None)
    assert "confidence" not in item
    c.assert_healthy()


def test_revert_of_a_suppression_returns_the_confidence_and_a_second_revert_restores_it(initialized):
    c = initialized
    session(c, "a1", loop("a1"))
    before = the_rule(c)["confidence"]
    session(c, "a2", [bash("a2", 1)])
    after = the_rule(c)["confidence"]
    assert after > before
    (sup,) = [e for e in c.json("log", "--session", "a2") if e["trailers"]["Cogit-Event"] == "rule.suppress"]
    c.run("revert", sup["sha"])
    assert the_rule(c)["confidence"] == before
    revert = c.json("log", "-n", "1")[0]
    assert revert["trailers"]["Cogit-Reverts"] == sup["sha"]
    c.run("revert", revert["sha"])  # undo the undo: the suppression counts again
    assert the_rule(c)["confidence"] == after
    assert "▃" in c.run("rules", "show", the_rule(c)["id"]).out
    c.assert_healthy()


def test_a_persons_rule_learns_the_same_way(initialized):
    c = initialized
    c.run("add", "rule", "Read the error message before running the command again", "--detector", "error_loop")
    rule = the_rule(c)
    assert (rule["source"], rule["confidence"]) == ("cli", ledger.confidence(0, 0, 0))
    # Issue 22: a general error_loop rule is about failures; a session with none is no evidence,
    # one that failed once and did not loop suppresses it.
    injected = session(c, "p0", [bash("p0", 1)])
    assert f"[{rule['id']}]" in injected and the_rule(c)["suppressions"] == 0
    injected = session(c, "p1", [bash("p1", 1, ok=False), bash("p1", 2)])
    assert f"[{rule['id']}]" in injected
    assert the_rule(c)["suppressions"] == 1
    session(c, "p2", loop("p2"))
    after = the_rule(c)
    assert (after["id"], after["detections"], after["suppressions"]) == (rule["id"], 1, 1)  # no second rule
    assert c.run("add", "rule", "x", "--detector", "nope", check=False).returncode == 2


def test_a_project_session_records_evidence_in_the_project_only(initialized, tmp_path):
    from conftest import git

    c = initialized
    proj = tmp_path / "proj"
    proj.mkdir()
    git(proj, "init", "-q")
    git(proj, "remote", "add", "origin", "https://github.com/acme/widgets.git")
    session(c, "q1", loop("q1"), cwd=str(proj))
    rules = c.json("rules")
    assert len(rules) == 1 and rules[0]["scope"].startswith("project/")
    assert c.json("show", "rules")["rules"] == []  # global memory has none
    injected = session(c, "q2", [bash("q2", 1)], cwd=str(proj))
    assert f"[{rules[0]['id']}]" in injected
    assert c.json("rules")[0]["suppressions"] == 1
    assert [e for e in c.json("log", "--scope", "global") if e["trailers"].get("Cogit-Rule")] == []  # main's history has no evidence


def test_a_global_rule_earns_its_evidence_in_the_project_where_the_session_ran(initialized, tmp_path):
    """Each piece of evidence lands in exactly one scope: the project's branch when the
    session ran in a project, also for a global rule; the rule's confidence counts it."""
    from conftest import git

    c = initialized
    proj = tmp_path / "proj"
    proj.mkdir()
    git(proj, "init", "-q")
    git(proj, "remote", "add", "origin", "https://github.com/acme/widgets.git")
    c.run("add", "rule", "Read the error message before running the command again", "--detector", "error_loop")
    rule = the_rule(c)
    injected = session(c, "g1", [bash("g1", 1, ok=False), bash("g1", 2)], cwd=str(proj))
    assert f"[{rule['id']}]" in injected
    after = the_rule(c)
    (branch,) = [b for b in c.git("branch", "--format=%(refname:short)").split() if b.startswith("project/")]
    assert (after["scope"], after["suppressions"], after["evidence_by_scope"]) == ("global", 1, {branch: 1})
    assert after["confidence"] > rule["confidence"]
    # The commit is in the project's history only; main's copy of the rule is untouched.
    assert "rule.suppress" not in c.git("log", "main", "--format=%B")
    (sha,) = c.git("log", branch, "--format=%H", "--grep=Cogit-Event: rule.suppress").split()
    assert c.json("show", "rules")["rules"][0]["suppressions"] == 0
    assert [e["scope"] for e in c.json("rules", "show", rule["id"])["ledger"]] == [branch]
    # A session outside the project is shown the rule with the confidence it earned there.
    outside = session(c, "g2", [read("g2", 1)])
    assert f"[{rule['id']}] (confidence {after['confidence']:.0%})" in outside
    # Reverting the project's evidence commit takes it out of the ledger again.
    c.run("revert", sha, "--project", branch.split("/", 1)[1])
    reverted = the_rule(c)
    assert (reverted["suppressions"], reverted["confidence"]) == (0, rule["confidence"])
    assert f"[{rule['id']}] (confidence {rule['confidence']:.0%})" in session(c, "g3", [read("g3", 1)])
    c.assert_healthy()


def test_rules_below_the_floor_leave_the_digest_but_not_memory():
    from cogit.domain import rank

    old = {"id": "ru-0001", "text": "old", "detector": "error_loop", "detections": 1, "suppressions": 0,
           "last_detected": "2020-01-01T00:00:00Z", "created_at": "2020-01-01T00:00:00Z"}
    fresh = dict(old, id="ru-0002", last_detected="2026-11-01T00:00:00Z")
    now = ledger.parse_time("2026-11-30T00:00:00Z")
    assert [r["id"] for r in rank.ranked("rules", [old, fresh], now)] == ["ru-0002"]
    # No decay during the dormancy grace, then a half-life.
    t0 = 0.0
    assert ledger.confidence(4, t0, t0 + 59 * 86400) == ledger.confidence(4, t0, t0)
    assert ledger.confidence(4, t0, t0 + 120 * 86400) == pytest.approx(ledger.confidence(4, t0, t0) / 2, abs=1e-4)


# --- heuristics ranked by evidence ---------------------------------------------------------

PROGRAMS = ["ruff", "mypy", "black", "tox", "nox", "make"]


def _heuristic_setup(c, quota=3):
    cfg = c.home / "memory" / "config.yaml"
    # Room for exactly `quota` of these lines: the budget, not a count, is what cuts the rest
    # (sections share the budget by rank), and the floor's last slot rotates.
    text = cfg.read_text().replace("  heuristics: 5\n", f"  heuristics: {quota}\n")
    cfg.write_text(text.replace("max_chars: 2000", "max_chars: 410"))
    c.run("commit", "-m", "Heuristic quota")
    for p in PROGRAMS:
        c.run("add", "heuristic", f"Run {p} before committing")
    return {h["text"].split()[1]: h["id"] for h in c.json("show", "heuristics")["heuristics"]}


def _shown_heuristics(text):
    block = text.split("What works:\n", 1)[1].split("\n\n")[0]
    return [line.rsplit("[", 1)[1].rstrip("]") for line in block.splitlines() if line.startswith("• ")]


def test_a_heuristic_that_worked_rises_to_the_top(initialized):
    c = initialized
    ids = _heuristic_setup(c)
    by_id = {v: k for k, v in ids.items()}
    picked = []

    def run_the_rotated_ones_program(injected):
        shown = _shown_heuristics(injected)
        assert len(shown) == 3
        picked.append(shown[-1])  # the rotating slot: below the top two
        return [bash("h1", 1, cmd=f"{by_id[shown[-1]]} check .")]

    session(c, "h1", run_the_rotated_ones_program)
    target = picked[0]
    heur = {h["id"]: h for h in c.json("show", "heuristics")["heuristics"]}
    assert heur[target]["use_count"] == 1 and heur[target]["last_used"]
    assert sum(h["use_count"] for h in heur.values()) == 1  # only the one that applied
    assert _shown_heuristics(session(c, "h2", []))[0] == target  # it rose to the top


def test_a_never_shown_heuristic_is_shown_within_a_bounded_number_of_sessions(initialized):
    c = initialized
    ids = _heuristic_setup(c)
    seen = set()
    for n in range(len(ids) - 2):  # top two + one rotating slot over the 4 waiting
        seen |= set(_shown_heuristics(session(c, f"v{n}", [])))
    assert seen == set(ids.values())


def test_the_cap_prunes_the_lowest_score_not_the_most_praised(initialized):
    from cogit.paths import Home
    from cogit.store import memory
    from cogit.store.git.provenance import Provenance
    from cogit.store.write.transact import Change

    c = initialized
    cfg = c.home / "memory" / "config.yaml"
    cfg.write_text(cfg.read_text().replace("  heuristics: 30", "  heuristics: 3"))
    c.run("commit", "-m", "Small cap")
    for text in ("oldest but praised", "second", "third"):
        c.run("add", "heuristic", text)
    praised = c.json("show", "heuristics")["heuristics"][0]["id"]

    def praise(state):
        for h in state["heuristics"]["items"]:
            if h["id"] == praised:
                h["evidence"] = 3
        return Change("Praise by hand")

    memory.write(Home(c.home), Provenance(event="human.edit", source="human"), praise)
    c.run("add", "heuristic", "fourth")
    left = [h["text"] for h in c.json("show", "heuristics")["heuristics"]]
    # The unpraised three tie on score; which of them goes depends on one-second timestamps.
    assert "oldest but praised" in left and len(left) == 3


def test_the_digest_never_ranks_by_file_order():
    from cogit.digest.assemble import compile_text

    items = [{"id": f"h-{n:04x}", "text": f"heuristic {n}", "use_count": 0, "created_at": "2026-11-01T00:00:00Z",
              "updated_at": "2026-11-01T00:00:00Z", "source": "cli"} for n in range(4)]
    items[3].update(use_count=5, evidence=2, last_used="2026-11-29T00:00:00Z")
    state = {"heuristics": {"items": items}, "tools": {"sessions": 0}}
    text = compile_text([("global", state)], {"digest": {"heuristics": 3}})["text"]
    assert _shown_heuristics(text)[0] == "h-0003"


def test_the_digest_shows_confidence_with_the_configured_decay():
    from cogit.digest.assemble import compile_text

    import time

    now = time.time()
    then = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now - 100 * 86400))  # dormant, still above the floor
    rule = {"id": "ru-00aa", "text": "a rule", "detector": "error_loop", "detections": 2, "suppressions": 0,
            "last_detected": then, "created_at": then}
    state = {"rules": {"items": [rule]}, "tools": {"sessions": 0}}
    default = ledger.of_item(rule, now)
    fast = {"learning": {"rule_dormant_days": 1, "rule_half_life_days": 1, "rule_min_confidence": 0}}
    quick = ledger.of_item(rule, now, fast)
    assert f"(confidence {default:.0%})" in compile_text([("global", state)], {})["text"]
    assert quick < default and f"(confidence {quick:.0%})" in compile_text([("global", state)], fast)["text"]
