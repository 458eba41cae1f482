"""The core CLI against a real memory repository, checked with the real git binary."""

from __future__ import annotations

import json

import pytest


def ids(cogit, section):
    return [i["id"] for i in cogit.json("show", section)[section]]


def test_init_creates_memory_and_second_init_commits_nothing(cogit):
    first = cogit.run("init")
    assert first.out.startswith("Created memory in ")
    cogit.assert_healthy()
    head = cogit.git("rev-parse", "HEAD")
    second = cogit.run("init")
    assert "already exists" in second.out and "nothing changed" in second.out
    assert cogit.git("rev-parse", "HEAD") == head
    files = sorted(cogit.git("ls-files").split())
    assert files == sorted(f"{s}.yaml" for s in (
        "focus", "heuristics", "learnings", "avoidances", "engagement", "tools", "reflections", "rules", "config"))
    assert (cogit.home / "runtime").is_dir()


def test_add_show_and_trailers(initialized):
    c = initialized
    out = c.run("add", "learning", "Run tests with python -m pytest -q", "--category", "pattern").out
    assert out.startswith("[") and "Add learning l-" in out
    c.run("add", "heuristic", "Draft freely first, then check")
    c.run("add", "avoidance", "Building meta-systems instead of doing the work")
    shown = c.json("show")
    assert set(shown) == {"focus", "heuristics", "learnings", "avoidances", "engagement", "tools", "reflections", "rules", "config"}
    (learning,) = shown["learnings"]
    assert learning["text"] == "Run tests with python -m pytest -q" and learning["category"] == "pattern"
    assert learning["id"].startswith("l-") and learning["created_at"].endswith("Z")
    assert shown["heuristics"][0]["use_count"] == 0
    trailers = c.git("log", "-1", "--skip=2", "--format=%(trailers)")
    assert "Cogit-Event: learning.add" in trailers and "Cogit-Source: cli" in trailers
    assert "Cogit-Agent: human" in trailers and "Cogit-Session: -" in trailers and "Cogit-Project: global" in trailers
    assert c.git("log", "-1", "--format=%an <%ae>|%cn").strip() == "Test Person <test@example.com>|cogit"
    c.assert_healthy()


def test_noop_makes_no_commit(initialized):
    c = initialized
    c.run("add", "learning", "Same text")
    head = c.git("rev-parse", "HEAD")
    out = c.run("add", "learning", "Same text", "--force").out  # (without --force it is evidence: tests/test_dedupe.py)
    assert "already in memory" in out
    assert c.git("rev-parse", "HEAD") == head
    c.run("focus", "set", "Ship it", "-p", "tests")
    head2 = c.git("rev-parse", "HEAD")
    assert head2 != head
    assert "Nothing changed" in c.run("focus", "set", "Ship it", "-p", "tests").out
    assert c.git("rev-parse", "HEAD") == head2
    c.assert_healthy()


def test_focus_forget_and_show_at(initialized):
    c = initialized
    c.run("focus", "set", "Build the store", "-p", "schemas", "-p", "write path")
    focus = c.json("show", "focus")["focus"]
    assert focus["current"] == "Build the store" and focus["priorities"] == ["schemas", "write path"]
    c.run("add", "learning", "to be forgotten")
    (lid,) = ids(c, "learnings")
    before = c.git("rev-parse", "HEAD").strip()
    assert "Forget learning" in c.run("forget", lid).out
    assert ids(c, "learnings") == []
    assert [i["id"] for i in c.json("show", "learnings", "--at", before[:8])["learnings"]] == [lid]
    assert [i["id"] for i in c.json("show", "learnings", "--at", "HEAD~1")["learnings"]] == [lid]
    missing = c.run("forget", "l-000000", check=False)
    assert missing.returncode == 1 and "no item with id 'l-000000'" in missing.err and "cogit show" in missing.err
    c.assert_healthy()


def test_log_filters_and_json(initialized):
    c = initialized
    c.run("add", "learning", "one")
    c.run("add", "heuristic", "two", env={"COGIT_AGENT": "claude-code", "COGIT_SESSION": "s-42"})
    c.run("focus", "set", "three")
    entries = c.json("log")
    assert [e["trailers"]["Cogit-Event"] for e in entries] == ["focus.set", "heuristic.add", "learning.add", "init"]
    assert set(entries[0]) >= {"sha", "summary", "author", "time", "trailers"}
    assert [e["summary"] for e in c.json("log", "--session", "s-42")] == [entries[1]["summary"]]
    assert len(c.json("log", "-n", "2")) == 2
    assert [e["trailers"]["Cogit-Event"] for e in c.json("log", "--event", "learning")] == ["learning.add"]
    assert c.json("log", "--source", "hook") == []
    assert len(c.json("log", "--since", "1d")) == 4
    assert c.json("log", "--since", "2999-01-01") == []
    lid = ids(c, "learnings")[0]
    assert [e["trailers"]["Cogit-Event"] for e in c.json("log", "--item", lid)] == ["learning.add"]
    text = c.run("log").out
    assert "event=heuristic.add" in text and "session=s-42" in text


def test_semantic_and_raw_diff(initialized):
    c = initialized
    c.run("add", "learning", "alpha")
    lid = ids(c, "learnings")[0]
    assert c.run("diff").out.strip() == f'+ learning {lid} "alpha"'
    c.run("add", "heuristic", "beta")
    c.run("forget", lid)
    out = c.run("diff", "HEAD~2").out
    hid = ids(c, "heuristics")[0]
    # HEAD~2 already had alpha: since then, beta came and alpha went.
    assert out.splitlines() == [f'+ heuristic {hid} "beta"', f'- learning {lid} "alpha"']
    out2 = c.run("diff", "HEAD~3", "HEAD").out.splitlines()
    assert f'+ heuristic {hid} "beta"' in out2 and not any(lid in line for line in out2)
    out3 = c.run("diff", "HEAD~1", "HEAD").out.strip()
    assert out3 == f'- learning {lid} "alpha"'
    raw = c.run("diff", "--raw").out
    assert raw.startswith("diff --git a/learnings.yaml b/learnings.yaml") and "-  - id: " + lid in raw
    js = json.loads(c.run("diff", "--json").out)
    assert js == [{"op": "removed", "section": "learnings", "id": lid, "text": "alpha", "fields": []}]


def test_diff_field_change_rendering(initialized):
    c = initialized
    c.run("focus", "set", "old")
    c.run("focus", "set", "new")
    assert '~ focus: current "old" → "new"' in c.run("diff").out


def test_unknown_section_and_usage_errors(initialized):
    c = initialized
    bad = c.run("show", "nonsense", check=False)
    assert bad.returncode == 2 and "unknown section 'nonsense'" in bad.err and "Sections:" in bad.err
    bad = c.run("add", "thing", "x", check=False)
    assert bad.returncode == 2
    bad = c.run("diff", "HEAD~99", check=False)
    assert bad.returncode == 1 and "unknown revision 'HEAD~99'" in bad.err


def test_commands_before_init_say_what_to_do(cogit):
    for args in (["show"], ["log"], ["add", "learning", "x"], ["status"]):
        proc = cogit.run(*args, check=False)
        assert proc.returncode == 1, args
        assert "Run `cogit init`" in proc.err, proc.err


def test_status(initialized):
    c = initialized
    c.run("add", "learning", "x")
    info = c.json("status")
    assert info["branch"] == "main" and info["commits"] == 2 and info["counts"]["learnings"] == 1
    assert info["digest"]["chars"] > 0 and info["hand_edits"] == []


def test_python_dash_m_and_console_script_agree(initialized):
    import os
    import subprocess
    import sys
    from pathlib import Path

    exe = Path(sys.executable).parent / "cogit"
    assert exe.exists(), "the cogit console script is installed with the package"
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, env=os.environ).stdout
    assert out.strip() == initialized.run("--version").out.strip()


@pytest.mark.parametrize("secret,kind", [
    ("AKIAABCDEFGHIJKLMNOP", "aws-key"),
    ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github-token"),
    ("sk-ant-api03-abcdefghijklmnopqrstuv", "api-key"),
])
def test_secrets_are_redacted_before_storing(initialized, secret, kind):
    c = initialized
    out = c.run("add", "learning", f"deploy with key {secret} on prod").out
    assert "redacted 1 secret" in out
    (item,) = c.json("show", "learnings")["learnings"]
    assert secret not in item["text"] and "[REDACTED:" in item["text"]
    assert secret not in c.git("log", "-p", "--all")
    c.assert_healthy()
