"""make_call on the payloads Claude Code really sends, error signatures, sizes, test-run detection."""

import json

import pytest

from cogit.senses import make_call
from cogit.senses.commands import is_test_file, program, run_scope
from cogit.senses.signature import error_line, normalize, signature, similarity

BASH_OK = {"stdout": "hello-from-tool", "stderr": "", "interrupted": False, "isImage": False, "noOutputExpected": False}


def call(tool, ti, resp=None, error=None, cwd="/w"):
    c = make_call(tool, ti, resp, error, 15, 100.0, cwd, tool_use_id="toolu_1")
    json.dumps(c)
    return c


def test_successful_bash_from_the_observed_payload():
    c = call("Bash", {"command": "echo hello-from-tool", "description": "run"}, BASH_OK)
    assert c["tool"] == "Bash" and c["kind"] == "exec" and c["ok"] is True and c["sig"] is None
    assert c["cmd"] == "echo hello-from-tool" and c["target"] == "echo hello-from-tool"
    assert c["size"] == len("echo hello-from-tool") + len("run") + len("hello-from-tool")
    assert c["is_test"] is False and c["t"] == 100.0 and c["id"] == "toolu_1" and c["ms"] == 15


def test_failed_bash_from_the_observed_post_tool_use_failure():
    err = "Exit code 2\nls: cannot access '/nonexistent-dir-xyz': No such file or directory"
    c = call("Bash", {"command": "ls /nonexistent-dir-xyz", "description": "run"}, None, err)
    assert c["ok"] is False
    assert c["sig"] == "ls: cannot access '<path>': no such file or directory"
    assert c["err"] == "ls: cannot access '/nonexistent-dir-xyz': No such file or directory"
    assert c["size"] >= len(err)


def test_stderr_or_error_words_in_a_successful_result_are_not_failures():
    noisy = dict(BASH_OK, stdout="ERROR: this log line is data\nTraceback (most recent call last):", stderr="warning: x")
    assert call("Bash", {"command": "cat app.log"}, noisy)["ok"] is True
    read = {"type": "text", "file": {"filePath": "/w/log.txt", "content": "Error: failed\n", "numLines": 1}}
    assert call("Read", {"file_path": "/w/log.txt"}, read)["ok"] is True


def test_interrupted_bash_and_mcp_errors_are_failures():
    c = call("Bash", {"command": "sleep 999"}, dict(BASH_OK, interrupted=True, stdout=""))
    assert c["ok"] is False and c["sig"].startswith("interrupted")
    mcp = {"content": [{"type": "text", "text": "Error: issue PAY-7 not found"}], "isError": True}
    c = call("mcp__jira__get_issue", {"issue_key": "PAY-7"}, mcp)
    assert c["ok"] is False and "not found" in c["sig"] and c["kind"] == "other"


def test_read_size_is_the_file_content_the_model_sees():
    content = "x = 1\n" * 500
    resp = {"type": "text", "file": {"filePath": "/w/a.py", "content": content, "numLines": 500, "startLine": 1, "totalLines": 500}}
    c = call("Read", {"file_path": "/w/a.py"}, resp)
    assert c["kind"] == "read" and c["target"] == "/w/a.py"
    assert c["size"] == len("/w/a.py") + len(content) + 7 * 500


def test_relative_paths_are_made_absolute_against_cwd():
    assert call("Read", {"file_path": "src/a.py"}, {})["target"] == "/w/src/a.py"
    assert call("Edit", {"file_path": "/x/../w/b.py", "old_string": "a", "new_string": "b"}, {})["target"] == "/w/b.py"


def test_sizes_of_other_tools():
    grep = {"mode": "files_with_matches", "filenames": ["/w/a.py", "/w/b.py"], "numFiles": 2}
    assert call("Grep", {"pattern": "foo"}, grep)["size"] == len("foo") + 16
    assert call("Grep", {"pattern": "foo"}, {"mode": "content", "content": "a.py:1:foo", "numLines": 1})["size"] == 3 + 10
    glob = {"filenames": ["/w/a.py"], "durationMs": 3, "numFiles": 1, "truncated": False}
    assert call("Glob", {"pattern": "*.py"}, glob)["size"] == 4 + 8
    edit = {"filePath": "/w/a.py", "oldString": "a", "newString": "b", "originalFile": "A" * 100000,
            "structuredPatch": [{"lines": ["-a", "+b"]}], "userModified": False, "replaceAll": False}
    c = call("Edit", {"file_path": "/w/a.py", "old_string": "a", "new_string": "b"}, edit)
    assert c["size"] < 300  # the original file is in the response but never shown to the model
    agent = {"status": "completed", "content": [{"type": "text", "text": "r" * 900}], "totalTokens": 5}
    assert call("Agent", {"prompt": "p" * 10, "description": "d"}, agent)["size"] == 11 + 900
    assert call("WebFetch", {"url": "https://x", "prompt": "q"}, {"result": "z" * 50, "code": 200})["size"] == 9 + 1 + 50


def test_kinds_and_targets():
    assert call("Grep", {"pattern": "def x", "path": "src", "glob": "*.py"}, {})["target"] == "def x in /w/src (*.py)"
    assert call("Glob", {"pattern": "**/*.ts"}, {})["kind"] == "search"
    assert call("MultiEdit", {"file_path": "/w/a.py", "edits": []}, {})["kind"] == "write"
    assert call("NotebookEdit", {"notebook_path": "/w/n.ipynb", "new_source": "x"}, {})["target"] == "/w/n.ipynb"
    assert call("TodoWrite", {"todos": []}, {})["kind"] == "other"
    c = make_call(None, "not a dict", "weird", None, None, "x", None)
    assert c["tool"] == "unknown" and c["t"] == 0.0 and c["ok"] is True


def test_write_records_content_fingerprint_change_and_creation():
    a = call("Edit", {"file_path": "/w/a.py", "old_string": "return x + 1\n", "new_string": "return x + 2\n"}, {})
    b = call("Edit", {"file_path": "/w/a.py", "old_string": "return x + 1\n", "new_string": "return x + 3\n"}, {})
    assert a["h"] != b["h"] and a["change"] == "`return x + 1` -> `return x + 2`"
    w = call("Write", {"file_path": "/w/tests/test_a.py", "content": "x"}, {"type": "create", "filePath": "/w/tests/test_a.py"})
    assert w["created"] is True and w["test_file"] is True


@pytest.mark.parametrize("cmd, scope", [
    ("pytest -q", "suite"),
    (".venv/bin/python -m pytest tests/test_x.py -q", "targeted"),
    ("cd /w && uv run pytest -k slow", "targeted"),
    ("pytest tests/", "suite"),
    ("FOO=1 pytest tests/x_test.py::test_y", "targeted"),
    ("timeout 60 pytest", "suite"),
    ("npm test", "suite"),
    ("npm run test:unit", "suite"),
    ("npx jest src/a.test.ts", "targeted"),
    ("go test ./...", "suite"),
    ("go test ./pkg -run TestX", "targeted"),
    ("cargo test parse", "targeted"),
    ("make test", "suite"),
    ("node --test", "suite"),
    ("pip install pytest", None),
    ("grep -rn pytest .", None),
    ("git commit -m 'run pytest'", None),
    ("npm install", None),
    ("cargo build", None),
])
def test_run_scope(cmd, scope):
    assert run_scope(cmd) == scope


def test_program_skips_wrappers_and_reads_python_dash_m():
    assert program(".venv/bin/python -m pytest -q") == "pytest"
    assert program("python -m pip show x") == "pip"
    assert program("cd a && FOO=1 uv run ruff check") == "ruff"


def test_test_files():
    for path in ("/w/tests/a.py", "/w/test_a.py", "/w/a_test.go", "/w/src/a.spec.ts", "/w/__tests__/x.js", "/w/FooTest.java"):
        assert is_test_file(path), path
    for path in ("/w/src/contest.py", "/w/src/latest.py", "/w/attestation.rs"):
        assert not is_test_file(path), path


def test_normalize_replaces_volatile_parts():
    text = "2026-11-30T12:00:01.123Z at 0x7ffde1 commit deadbeef12 in /a/b/c.py:12:3 id 109b070b-016d-4036-996a-be382ebcb382 x.py"
    assert normalize(text) == "<ts> at <hex> commit <hex> in <path>:<n>:<n> id <id> <path>"


def test_signature_prefers_the_line_naming_the_error():
    err = ("Exit code 2\nImportError while importing test module '/w/tests/test_api.py'.\n"
           "E   ModuleNotFoundError: No module named 'api_client'\nERROR tests/test_api.py\n"
           "!!!!!!!! Interrupted: 1 error during collection !!!!!!!!\n1 error in 0.12s")
    assert "modulenotfounderror: no module named 'api_client'" in signature(err)
    assert "1 error in" not in signature(err)
    assert error_line(err) == "ModuleNotFoundError: No module named 'api_client'"


def test_same_error_with_different_numbers_and_paths_is_the_same_signature():
    a = "Exit code 1\nFile \"/tmp/pytest-41/x.py\", line 12\nValueError: bad value 17 at 12:00:01"
    b = "Exit code 1\nFile \"/tmp/pytest-42/y.py\", line 90\nValueError: bad value 3 at 13:10:59"
    assert signature(a) == signature(b)


def test_silent_failures_are_signed_with_their_command():
    assert signature("Exit code 1", "grep -q foo a.txt") != signature("Exit code 1", "rg bar")
    assert signature("Exit code 1", "grep -q foo a.txt") == signature("Exit code 1", "grep -q foo a.txt")
    assert error_line("Exit code 1") == "exit code 1, no output"


def test_similarity():
    assert similarity("a b c", "a b c") == 1.0
    assert similarity("ls: cannot access '<path>': no such file or directory",
                      "cat: .env.example: no such file or directory") < 0.6
    assert similarity("", "x") == 0.0
