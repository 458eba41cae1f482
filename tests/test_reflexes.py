"""Issue 23 part 1: reflexes. A learned rule is given at the moment it is about: before the
tool call (PreToolUse) that runs the command a learned loop failed with, before a third read
of an unchanged file, and at the first failure matching a rule's signature; once per
episode, never for a withheld rule, and as a block of an exact repeat only when this
machine asks for it. Every session runs through the real `cogit hook claude EVENT`
subprocesses, and the rules come from real sessions folded by the real `cogit finalize`."""

from __future__ import annotations

import json

from test_learning_loop import payload, session

CMD = "python3 src/app.py"
FIX = "PYTHONPATH=src python3 src/app.py"
ERR = "Exit code 1\nTraceback (most recent call last):\n  File \"src/app.py\", line 1, in <module>\nModuleNotFoundError: No module named 'dih_helpers'"


def fail(sid, n, cmd=CMD, err=ERR):
    return "PostToolUseFailure", payload(sid, "PostToolUseFailure", tool_name="Bash", tool_input={"command": cmd, "description": "run"},
                                         tool_use_id=f"t{n}", error=err, is_interrupt=False, duration_ms=20)


def ok(sid, n, cmd=FIX):
    return "PostToolUse", payload(sid, "PostToolUse", tool_name="Bash", tool_input={"command": cmd, "description": "run"},
                                  tool_response={"stdout": "app ran", "stderr": "", "interrupted": False}, tool_use_id=f"t{n}",
                                  duration_ms=20)


def pre(sid, n, cmd=CMD, tool="Bash", tool_input=None):
    return payload(sid, "PreToolUse", tool_name=tool, tool_input=tool_input or {"command": cmd, "description": "run"},
                   tool_use_id=f"t{n}", permission_mode="default")


def learned(c):
    """A first session loops on `python3 src/app.py` three times, then finds the fix."""
    session(c, "s1", [fail("s1", 1), fail("s1", 2), fail("s1", 3), ok("s1", 4)])
    (rule,) = c.json("rules")
    assert FIX in rule["text"] and rule["detector"] == "error_loop", rule
    return rule


def start(c, sid):
    out = c.hook("SessionStart", payload(sid, "SessionStart", source="startup"))
    assert out.returncode == 0 and out.err == ""


def context(out, event="PreToolUse"):
    assert out.returncode == 0 and out.err == "", out.err
    if not out.out:
        return ""
    reply = json.loads(out.out)["hookSpecificOutput"]
    assert reply["hookEventName"] == event
    return reply.get("additionalContext") or ""


def state(c, sid):
    return json.loads((c.home / "runtime" / "sessions" / sid / "state.json").read_text())


def test_the_rule_and_its_fix_before_the_command_it_is_about_once(initialized):
    c = initialized
    rule = learned(c)
    table = json.loads((c.home / "runtime" / "digest" / "main.reflex.json").read_text())
    assert [(r["id"], r["cmd"], r["fix"]) for r in table["rules"]] == [(rule["id"], CMD, FIX)]
    start(c, "s2")
    assert context(c.hook("PreToolUse", pre("s2", 1, cmd="ls -la"))) == ""  # not what the rule is about: silent
    text = context(c.hook("PreToolUse", pre("s2", 2)))
    assert text.startswith("[cogit:reflex]") and f"[{rule['id']}]" in text and FIX in text, text
    # The call fails anyway: the rule was given in this episode already, nothing more.
    assert "[cogit:reflex]" not in context(c.hook(*fail("s2", 2)), "PostToolUseFailure")
    assert context(c.hook("PreToolUse", pre("s2", 3))) == ""
    receipts = [r for r in state(c, "s2")["receipts"] if r["source"] == "reflex"]
    assert [r["shown"] for r in receipts] == [[rule["id"]]]
    # The fix itself is what the rule says: no reflex before it.
    assert context(c.hook("PreToolUse", pre("s2", 4, cmd=FIX))) == ""


def test_the_first_failure_that_matches_a_rule_gets_it_at_once_and_again_in_a_new_episode(initialized):
    c = initialized
    rule = learned(c)
    start(c, "s3")
    # An agent that sent no PreToolUse for it (or a command the rule did not name): the failure.
    text = context(c.hook(*fail("s3", 1, cmd="python3 src/app.py --verbose")), "PostToolUseFailure")
    assert f"{'[cogit:reflex]'} This failure" in text and FIX in text, text
    assert "[cogit:reflex]" not in context(c.hook(*fail("s3", 2)), "PostToolUseFailure")  # once per episode
    assert context(c.hook(*ok("s3", 3)), "PostToolUse") == ""  # the fix worked: the episode is over
    text = context(c.hook(*fail("s3", 4)), "PostToolUseFailure")
    assert f"[{rule['id']}]" in text, text  # a new episode, the rule again
    shown = [r["shown"] for r in state(c, "s3")["receipts"] if r["source"] == "reflex"]
    assert shown == [[rule["id"]], [rule["id"]]]
    # Another error is not what the rule is about.
    other = "Exit code 1\nFileNotFoundError: [Errno 2] No such file or directory: 'data.csv'"
    assert "[cogit:reflex]" not in context(c.hook(*fail("s3", 5, cmd="python3 load.py", err=other)), "PostToolUseFailure")


def test_a_withheld_rule_never_fires(initialized):
    c = initialized
    rule = learned(c)
    start(c, "s4")
    path = c.home / "runtime" / "sessions" / "s4" / "state.json"
    doc = json.loads(path.read_text())
    doc["withheld"] = [rule["id"]]  # what measuring the rule's effect stores (issue 23 part 2)
    path.write_text(json.dumps(doc))
    assert context(c.hook("PreToolUse", pre("s4", 1))) == ""
    assert "[cogit:reflex]" not in context(c.hook(*fail("s4", 1)), "PostToolUseFailure")
    assert not [r for r in state(c, "s4")["receipts"] if r["source"] == "reflex"]


def test_an_exact_repeat_is_blocked_only_when_this_machine_asks_for_it(initialized):
    c = initialized
    rule = learned(c)
    start(c, "s5")
    assert "[cogit:reflex]" in context(c.hook(*fail("s5", 1)), "PostToolUseFailure")
    out = c.hook("PreToolUse", pre("s5", 2))
    assert out.out == ""  # off by default: the hint was given, the repeat runs
    # A synced config.yaml cannot turn it on: only this machine's file decides.
    cfg = c.home / "memory" / "config.yaml"
    cfg.write_text(cfg.read_text() + "reflex:\n  block_repeats: true\n")
    c.run("commit", "-m", "block repeats")
    assert c.hook("PreToolUse", pre("s5", 3)).out == ""
    (c.home / "machine-settings.json").write_text(json.dumps({"reflex": {"block_repeats": True}}))
    reply = json.loads(c.hook("PreToolUse", pre("s5", 4)).out)["hookSpecificOutput"]
    assert reply["permissionDecision"] == "deny" and "additionalContext" not in reply
    assert FIX in reply["permissionDecisionReason"] and f"[{rule['id']}]" in reply["permissionDecisionReason"]
    assert c.hook("PreToolUse", pre("s5", 5, cmd="python3 src/app.py -v")).out == ""  # not an exact repeat
    # After a file was written, the same command is a new attempt: no block.
    edit = payload("s5", "PostToolUse", tool_name="Edit", tool_input={"file_path": "/tmp/src/app.py", "old_string": "a", "new_string": "b"},
                   tool_response={"filePath": "/tmp/src/app.py"}, tool_use_id="e1", duration_ms=3)
    assert c.hook("PostToolUse", edit).returncode == 0
    assert c.hook("PreToolUse", pre("s5", 6)).out == ""


def test_before_a_third_read_of_an_unchanged_file(initialized):
    c = initialized

    def read(sid, n, path="/tmp/notes.md"):
        return "PostToolUse", payload(sid, "PostToolUse", tool_name="Read", tool_input={"file_path": path},
                                      tool_response={"type": "text", "file": {"content": "x"}}, tool_use_id=f"r{n}", duration_ms=3)

    session(c, "r1", [read("r1", i) for i in range(5)])
    (rule,) = c.json("rules")
    assert rule["detector"] == "repeated_read"
    start(c, "r2")
    for n in range(2):
        assert context(c.hook("PreToolUse", pre("r2", n, tool="Read", tool_input={"file_path": "/tmp/notes.md"}))) == ""
        assert c.hook(*read("r2", n)).returncode == 0
    other = context(c.hook("PreToolUse", pre("r2", 7, tool="Read", tool_input={"file_path": "/tmp/other.md"})))
    assert other == ""
    text = context(c.hook("PreToolUse", pre("r2", 8, tool="Read", tool_input={"file_path": "/tmp/notes.md"})))
    assert "notes.md was read twice already" in text and f"[{rule['id']}]" in text, text


def test_no_rules_no_table_and_nothing_said(initialized):
    c = initialized
    start(c, "n1")
    assert not (c.home / "runtime" / "digest" / "main.reflex.json").exists()
    assert c.hook("PreToolUse", pre("n1", 1)).out == ""
    assert c.hook(*fail("n1", 1)).out == ""


def test_the_reflex_path_imports_only_the_standard_library_and_no_re_or_json(initialized):
    """The exact hook command `cogit install claude` writes, under `-X importtime`, for a
    PreToolUse that gives a reflex, one that gives nothing and a failure that gets one."""
    import os
    import subprocess

    from cogit.launch import hook_argv

    c = initialized
    learned(c)
    env = dict(os.environ, COGIT_HOME=str(c.home))
    for n, (event, body) in enumerate((("PreToolUse", pre("i1", 1)), ("PreToolUse", pre("i2", 1, cmd="ls")), fail("i3", 1))):
        argv = hook_argv("claude", event)
        proc = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], input=json.dumps(body).encode(), capture_output=True, env=env)
        assert proc.returncode == 0
        assert (b"[cogit:reflex]" in proc.stdout) == (n != 1), proc.stdout
        imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines() if "|" in line}
        top = {name.split(".")[0] for name in imported}
        assert not top & {"dulwich", "click", "ruamel", "jsonschema", "re", "json", "__future__"}, (event, top)
        if event == "PreToolUse":
            assert "cogit.senses" not in imported and "cogit.senses.call" not in imported, event  # ~20 ms


def test_a_project_rule_fires_in_its_project_only(initialized, tmp_path):
    """A rule learned in a project lives on the project's branch: its reflex table is the
    project's (with main's rules), and a session elsewhere gets nothing from it."""
    from conftest import git

    c = initialized
    proj = tmp_path / "proj"
    proj.mkdir()
    git(proj, "init", "-q")
    git(proj, "remote", "add", "origin", "https://github.com/acme/widgets.git")
    session(c, "p1", [fail("p1", 1), fail("p1", 2), fail("p1", 3), ok("p1", 4)], cwd=str(proj))
    (rule,) = c.json("rules")
    assert rule["scope"].startswith("project/")
    assert not (c.home / "runtime" / "digest" / "main.reflex.json").exists()
    out = c.hook("SessionStart", payload("p2", "SessionStart", cwd=str(proj), source="startup"))
    assert out.returncode == 0
    body = pre("p2", 1)
    body["cwd"] = str(proj)
    assert f"[{rule['id']}]" in context(c.hook("PreToolUse", body))
    start(c, "p3")  # cwd /tmp: no project
    assert context(c.hook("PreToolUse", pre("p3", 1))) == ""
