"""No control characters in history (issue 20, part 5).

A NUL (or another control character, or a lone surrogate) in a prompt, an MCP `remember`,
a tool's output, a session id, a hand edit, an import or a model's answer must never make
a commit that fails `git fsck`: a remote that checks objects (as hosted forges do) would
refuse that push and every later one. Hostile input goes in through every entry path; the
memory repository passes `git fsck --strict` and a bare remote with
`receive.fsckObjects=true` (the real git) accepts the push.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

from conftest import Cogit, git

BAD = "nul\x00 bell\x07 esc\x1b[31m del\x7f bs\x08 cr\r vt\x0b sep\u2028 c1\x85 end"
SID = "c0ffee00-0b1c-4d2e-8f90-1a2b3c4d5e6f"


def hook(c: Cogit, event: str, **fields):
    payload = {"session_id": fields.pop("session_id", SID), "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
               "hook_event_name": event, **fields}
    # json.dumps writes the NUL and the lone surrogate as \u escapes, as an agent's JSON would
    proc = c.run("hook", "claude", event, input=json.dumps(payload), check=False)
    assert proc.returncode == 0, proc.err
    return proc


def test_hostile_input_on_every_path_keeps_history_fsck_clean_and_pushable(initialized, tmp_path):
    from gitservers import init_bare

    c = initialized
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    remote = init_bare(tmp_path / "srv" / "memory.git", env)
    git(remote, "config", "receive.fsckObjects", "true")
    c.run("remote", "add", "origin", str(remote))
    c.run("sync")
    # the command line cannot carry a NUL (execve), everything else it can
    argv_bad = BAD.replace("\x00", "")
    c.run("add", "learning", f"cli {argv_bad}", "--context", f"ctx {argv_bad}")
    c.run("focus", "set", f"focus {argv_bad}", "-p", f"prio {argv_bad}")
    # a hand edit: YAML escapes for a NUL and the others
    path = c.home / "memory" / "avoidances.yaml"
    path.write_text(path.read_text().replace("items: []", "items:\n" + (
        '  - id: a-00cc33\n    text: "hand \\0 \\a \\e \\x7f end"\n'
        "    created_at: '2026-01-01T00:00:00Z'\n    updated_at: '2026-01-01T00:00:00Z'\n    source: human\n")))
    c.run("commit")
    # hooks: a prompt, a tool name, failing tool output, a session id with a NUL
    bad_sid = "s\x00" + SID[2:]
    for sid in (SID, bad_sid):
        hook(c, "SessionStart", source="startup", session_id=sid)
        hook(c, "UserPromptSubmit", prompt=f"remember this: prompt {BAD}", session_id=sid)
        for n in range(3):
            hook(c, "PostToolUseFailure", tool_name="Bash", tool_input={"command": f"make {BAD}"}, session_id=sid,
                 error=f"Exit code 2\nerror: {BAD}", tool_use_id=f"toolu_{n}")
        hook(c, "PostToolUse", tool_name="Bash", tool_input={"command": "make fixed"}, session_id=sid,
             tool_response={"stdout": "ok", "stderr": ""}, tool_use_id="toolu_ok")
        hook(c, "PostToolUse", tool_name=f"mcp__srv__{BAD}", tool_input={}, tool_response="ok", session_id=sid,
             tool_use_id="toolu_mcp")
        hook(c, "UserPromptSubmit", prompt="great, that works", session_id=sid)
        hook(c, "SessionEnd", reason=f"exit {BAD}", session_id=sid)
    c.run("finalize")
    # MCP remember (the real server, JSON-RPC carries the NUL)
    from test_mcp import payload, session as mcp_session

    async def steps(client):
        return payload(await client.call_tool("remember", {"kind": "heuristic", "text": f"mcp {BAD}"}))

    assert mcp_session(c, tmp_path, steps, COGIT_AGENT="agent\x01name")["status"] == "remembered"
    # an import, with raw control bytes in the file
    md = tmp_path / "CLAUDE.md"
    md.write_bytes(b"# Notes\n- import nul\x00 esc\x1b del\x7f end\n")
    c.run("import", "claude-memory", str(md), check=False)
    # a model's answer
    model = tmp_path / "model.py"
    model.write_text("import json, sys\nsys.stdin.read()\nprint(json.dumps({'insights': [%r], 'learnings': [{'text': %r}]}))\n"
                     % (f"reflect {BAD}", f"proposal {BAD}"))
    c.run("reflect", "--command", f"{sys.executable} {model}")
    for p in c.json("review"):
        c.run("accept", p["id"])
    texts = json.dumps(c.json("show"))
    assert "prompt nul" in texts and "mcp nul" in texts and "reflect nul" in texts  # the paths were taken
    # history: fsck-clean, and a checking remote takes it
    c.assert_healthy()
    proc = c.run("sync", check=False)
    assert proc.returncode == 0, proc.out + proc.err
    git(remote, "fsck", "--strict")
    assert git(remote, "rev-parse", "main").strip() == c.git("rev-parse", "main").strip()
    # no control character in any commit message or header
    raw = c.git("log", "--all", "--format=%an%x1f%ae%x1f%B%x1e")
    assert not [ch for ch in raw if (ord(ch) < 32 and ch not in "\n\x1f\x1e") or 0x7f <= ord(ch) < 0xa0]


def test_a_lone_surrogate_neither_breaks_a_session_nor_a_commit(initialized, tmp_path):
    """JSON may escape half of a surrogate pair (`\\ud800`): no UTF-8 file can hold it. The
    hook keeps the session's records (U+FFFD instead), the fold commits, reflect prints."""
    c = initialized
    hook(c, "SessionStart", source="startup")
    hook(c, "UserPromptSubmit", prompt="remember this: half \ud800 a pair")
    hook(c, "PostToolUse", tool_name="Bash", tool_input={"command": "ls \udfff"}, tool_response={"stdout": "x"},
         tool_use_id="toolu_1")
    hook(c, "SessionEnd", reason="exit")
    c.run("finalize")
    assert "half \ufffd a pair" in [i["text"] for i in c.json("show", "learnings")["learnings"]]
    assert c.json("show", "tools")["tools"]["tools"]["Bash"]["calls"] == 1
    log = c.home / "runtime" / "logs" / "hooks.log"
    assert not log.exists() or "UnicodeEncodeError" not in log.read_text()
    model = tmp_path / "model.py"
    model.write_text("import sys\nsys.stdin.read()\nprint('{\"insights\": [\"lone \\\\ud800 half\"]}')\n")
    out = c.run("reflect", "--command", f"{sys.executable} {model}").out
    assert "lone \ufffd half" in out
    c.assert_healthy()


@pytest.mark.parametrize("transport", ["git", "dulwich"])
def test_a_pulled_commit_that_fails_fsck_is_refused(initialized, tmp_path, transport):
    """A remote holding a commit with a NUL in its message (made with `git hash-object
    --literally`): the pull is refused before anything local moves, memory stays fsck-clean,
    over either transport (git's fetch checks objects itself; dulwich's does not)."""
    from gitservers import init_bare

    c = initialized
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    remote = init_bare(tmp_path / "srv" / "memory.git", env)
    c.run("remote", "add", "origin", str(remote))
    c.run("sync")
    tip = git(remote, "rev-parse", "main").strip()
    tree = git(remote, "rev-parse", "main^{tree}").strip()
    raw = (f"tree {tree}\nparent {tip}\nauthor x <x@y> 1700000000 +0000\ncommitter x <x@y> 1700000000 +0000\n\n"
           "hello\x00world\n").encode()
    obj = tmp_path / "commit.raw"
    obj.write_bytes(raw)
    bad = git(remote, "hash-object", "-t", "commit", "--literally", "-w", str(obj)).strip()
    git(remote, "update-ref", "refs/heads/main", bad)
    before = c.git("rev-parse", "main").strip()
    proc = c.run("pull", check=False, env={"COGIT_SYNC_TRANSPORT": transport})
    assert proc.returncode != 0 and "NUL" in proc.err, proc.out + proc.err
    assert c.git("rev-parse", "main").strip() == before
    c.assert_healthy()


def test_a_lone_surrogate_anywhere_in_a_payload_is_replaced_and_a_plain_one_kept_as_it_is():
    """The payload reader looks for lone surrogates in the parsed strings (keys, nested lists
    included), not by searching the text: a 4 MB payload no longer pays two text searches."""
    import io
    import json

    from cogit.hooks.payload import read_payload

    raw = '{"a": {"\\ud800k": ["x", "half \\udc00"]}, "b": "\\ud83d\\ude00 whole", "c": "' + "Q" * 100_000 + '"}'
    got = read_payload(io.BytesIO(raw.encode()))
    assert got["a"] == {"\ufffdk": ["x", "half \ufffd"]} and got["b"] == "\U0001F600 whole"
    json.dumps(got, ensure_ascii=False).encode("utf-8")  # writable as UTF-8 now
    plain = {"session_id": "s", "tool_response": {"stdout": "é ok", "lines": ["a", 1, None]}}
    assert read_payload(io.BytesIO(json.dumps(plain).encode())) == plain
