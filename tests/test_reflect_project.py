"""Issue 22 part 5: in a project, the project's rules and sessions count. A project's
reflection reads its own rules (with the global ones beneath) and its own sessions, and a
session in a project triggers the reflection of that project, with that project's counts."""

from __future__ import annotations

import json
import sys
import time

from conftest import git, wait_for
from test_learning_loop import bash, loop, read, session

NAME = "github.com/acme/widgets"


def _project(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    git(proj, "init", "-q")
    git(proj, "remote", "add", "origin", "https://github.com/acme/widgets.git")
    return proj


def _branch(c) -> str:
    (branch,) = [b for b in c.git("branch", "--format=%(refname:short)").split() if b.startswith("project/")]
    return branch


def test_a_project_reflection_sees_the_projects_rules_and_sessions(initialized, tmp_path):
    c = initialized
    proj = _project(tmp_path)
    c.run("add", "rule", "Read the error message before running the command again", "--detector", "circular_search")
    session(c, "main1", [read("main1", 1)], prompt="A session outside the project, about the docs of the parser")
    # The project's own rule: learned in its first session, shown in the next two, which loop anyway.
    for sid in ("q1", "q2", "q3"):
        session(c, sid, loop(sid), cwd=str(proj))
    rules = c.json("rules", "--project", NAME)
    (own,) = [r for r in rules if r["scope"].startswith("project/")]
    assert (own["detections"], own["misses"]) == (3, 2)
    dry = c.json("reflect", "--project", NAME, "--dry-run")
    assert own["id"] in dry["prompt"] and "Read the error message" in dry["prompt"]  # its rules, the global ones beneath
    sessions = dry["prompt"].split("Session ")[1:]
    assert [s[:2] for s in sessions] == ["q3", "q2", "q1"]  # the project's sessions, not main's
    c.run("reflect", "--project", NAME)
    msg = c.git("log", "-1", _branch(c), "--format=%B")
    assert "Cogit-Model: cogit-builtin" in msg and f"Cogit-Project: {NAME}" in msg
    patterns = [i["text"] for i in c.json("show", "reflections", "--project", NAME)["reflections"]]
    assert any(f"Rule {own['id']}" in t and "in 2 sessions" in t for t in patterns), patterns
    assert c.json("show", "reflections", "--project", "global")["reflections"] == []  # main reflected on nothing


def _hooks(c, sid, cwd, prompts, calls=()):
    """A session through the hooks; SessionEnd starts the detached finalize (and the trigger)."""
    base = {"session_id": sid, "transcript_path": f"/tmp/{sid}.jsonl", "cwd": cwd}
    c.hook("SessionStart", dict(base, hook_event_name="SessionStart", source="startup"))
    for i in range(prompts):
        c.hook("UserPromptSubmit", dict(base, hook_event_name="UserPromptSubmit", permission_mode="default",
                                        prompt=f"Please fix the widgets import of app.py, attempt number {i}, and keep tests green"))
    for event, body in calls:
        body["cwd"] = cwd
        c.hook(event, body)
    c.hook("SessionEnd", dict(base, hook_event_name="SessionEnd", reason="other"))
    assert wait_for(lambda: not any((c.home / "runtime" / "sessions").iterdir()), 60)


def _set(c, text_from: str, text_to: str):
    path = c.home / "memory" / "config.yaml"
    text = path.read_text()
    assert text_from in text
    path.write_text(text.replace(text_from, text_to))
    c.run("commit", "-m", "settings")
    c.confirm_waiting()


def test_a_projects_sessions_trigger_its_reflection_with_its_own_counts(initialized, tmp_path):
    c = initialized
    proj = _project(tmp_path)
    seen = tmp_path / "prompts"
    script = tmp_path / "reflector.py"
    script.write_text(f"import json, pathlib, sys\np = pathlib.Path({str(seen)!r})\np.mkdir(exist_ok=True)\n"
                      "n = len(list(p.iterdir())) + 1\n(p / str(n)).write_text(sys.stdin.read())\n"
                      "print(json.dumps({'insights': [f'auto reflection {n}']}))\n")
    _set(c, "  command: null", f"  command: {json.dumps(f'{sys.executable} {script}')}")
    _set(c, "  min_interactions: 10", "  min_interactions: 3")
    _set(c, "  min_hours: 4", "  min_hours: 0")
    # Outside the project: two meaningful prompts, not due on main.
    _hooks(c, "m1", "/tmp", 2)
    # The project's first session learns a rule there (so the project has memory); two prompts: not due.
    _hooks(c, "p1", str(proj), 2, loop("p1"))
    time.sleep(1)
    assert not seen.exists()
    # Two more in the project: four of the project's own since it never reflected: due, on the project.
    _hooks(c, "p2", str(proj), 2, [bash("p2", 1, cmd="python -m app --check")])
    branch = _branch(c)
    assert wait_for(lambda: "Cogit-Trigger: auto" in c.git("log", "-1", branch, "--format=%B"), 40)
    msg = c.git("log", "-1", branch, "--format=%B")
    assert "Cogit-Source: reflection" in msg and f"Cogit-Project: {NAME}" in msg
    assert "Cogit-Event: reflection" not in c.git("log", "main", "--format=%B")  # main was not reflected on
    (prompt,) = [p.read_text() for p in seen.iterdir()]
    (rule,) = [r for r in c.json("rules", "--project", NAME) if r["scope"] == branch]
    assert rule["id"] in prompt and prompt.count("Session ") == 2  # the project's rule and its two sessions
    assert [p["text"] for p in c.json("review", "--project", NAME)] == ["auto reflection 1"]
    marker = json.loads((c.home / "runtime" / "reflect.json").read_text())
    assert set(marker["projects"]) == {branch}
    # Two more in the project: two since its last reflection, not due (main's count does not matter).
    _hooks(c, "p3", str(proj), 2)
    time.sleep(1.5)
    assert len(list(seen.iterdir())) == 1
    c.assert_healthy()
