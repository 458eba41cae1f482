"""The senses scan error texts, test commands and test paths by hand (no `re` on the hook
path); these properties hold every scanner to exactly what the regular expression it
replaced gives, on generated text built from the characters those expressions care about
(Unicode digits, letters IGNORECASE folds, separators, white space)."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from cogit.senses import scan

I = re.IGNORECASE

# The expressions as they were in cogit/senses/call.py (the reference).
TRUNC = re.compile(r"\.\.\. \[\d+ characters truncated\] \.\.\.")
EXIT = re.compile(r"^\s*exit code (-?\d+)\s*$", I)
NOISE = re.compile(r"^(?:traceback \(most recent call last\):|[=_-]{3,}\s*(?:failures|errors)\s*[=_-]{3,})$", I)
STRONG = re.compile(
    r"\b[A-Za-z_]\w*(?:Error|Exception)\b|\b(?:error|fatal|panic)(?:\[\w+\])?\s*[:!]|\berror\s+[A-Z]+\d+|^E\s{2,}\S", I)
NORMALIZERS = (
    (re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?"), "<ts>"),
    (re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"), "<ts>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", I), "<id>"),
    (re.compile(r"\b0x[0-9a-f]+\b", I), "<hex>"),
    (re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b", I), "<hex>"),
    (re.compile(r"(?<![\w.@+-])(?:[A-Za-z]:)?(?:~|\.{1,2})?(?:[\w.@+-]*[/\\])+[\w.@+-]*"), "<path>"),
    (re.compile(r"(?<![\w-])[\w-]+\.(?:py|pyi|js|jsx|ts|tsx|mjs|cjs|go|rs|rb|java|kt|c|h|cc|cpp|hpp|cs|php|swift|"
                r"json|ya?ml|toml|ini|cfg|md|txt|sh|css|scss|html|vue|svelte|lock|log|so|o)\b", I), "<path>"),
    (re.compile(r"\d+(?:\.\d+)*"), "<n>"),
)
TOKEN = re.compile(r"<\w+>|\w+")
TEST_ARG = re.compile(
    r"(?:^|/)(?:test_[\w-]*\.py|[\w-]+_test\.(?:py|go)|[\w.-]+\.(?:test|spec)\.[cm]?[jt]sx?|[\w-]+_spec\.rb)$|::")
TEST_FILE = re.compile(
    r"(?:^|/)(?:tests?|__tests__|spec|specs)/|(?:^|/)test_[^/]*$|_test\.[a-z]+$|\.(?:test|spec)\.[a-z]+$|Tests?\.[a-z]+$")


def reference_normalize(text: str) -> str:
    for pattern, repl in NORMALIZERS:
        text = pattern.sub(repl, text)
    return " ".join(text.lower().split())


ODD = ["\u0130", "\u0131", "\u212a", "\u017f", "\u0663", "\u00b2", "\u2168", "\u00e9", "\u00a0", "\u2003", "\x1c"]
CHARS = list("0123456789abcdefABCDEFxXgzT Z:-+.,@/\\~_=[]!<>\n\t") + ODD
WORDS = ["Error", "error", "exception", "Exception", "ValueError", "fatal", "panic", "E  ", "E", "exit code ",
         "Traceback (most recent call last):", "===", "failures", "errors", "... [12 characters truncated] ...",
         "2024-01-02", "T12:34", ":56", ".789", "+02:00", "Z", "12:34:56", "0x1F", "deadbeef1", "a1b2c3d",
         "c0ffee00-1234-5678-9abc-def012345678", "/usr/lib", "C:", "~/x", "../", "foo.py", ".pyi", ".yml", ".sh",
         "TS2304", "[E0308]", " ", "test_", "_test.py", "_test.go", ".test.tsx", ".spec.mjs", "_spec.rb", "::",
         "tests/", "__tests__/", "spec/", "Test.", "Tests.java", ".js", "\n", "E ", ".7x", "\u017fh", "a" * 30 + "1" * 33]
PIECE = st.one_of(st.sampled_from(CHARS), st.sampled_from(WORDS))
TEXT = st.lists(PIECE, max_size=40).map("".join)
# texts that start as the anchored patterns (`^`) start, so that their tails get explored
HEADS = ["", " ", "\t", "exit code ", "EXIT CODE ", " exit code -", "E", "e", "E  ", "E\t ", "=== ", "---",
         "Traceback (most recent call last):", "___ failures", "== errors =="]
ANCHORED = st.tuples(st.sampled_from(HEADS), st.lists(st.sampled_from(list("0123456789 \t\n-=_xE:") + ODD),
                                                      max_size=8).map("".join), TEXT).map("".join)


@settings(max_examples=2500, deadline=None)
@given(st.one_of(TEXT, ANCHORED))
@example("ValueError: bad value 0x1f at 2024-01-02T03:04:05Z in /x/y.py line 3")
@example("error TS2304: Cannot find name 'x'")
@example("E       assert 1 == 2")
@example("fatal[E0308]: mismatched types")
@example("Xerror")
@example("E x")
@example("Exit code 1")
@example(" exit code -12 \n")
@example("EXIT CODE 3x")
@example("e   assert x")
@example("=== failure\u017f ===")
@example("ValueExcept\u0131on")
def test_error_lines_are_judged_as_the_patterns_judge_them(text):
    assert scan.cut_truncations(text) == TRUNC.sub("\n", text)
    m = EXIT.match(text)
    assert scan.exit_code(text) == (m.group(1) if m else None)
    assert scan.is_noise(text) == bool(NOISE.match(text))
    assert scan.names_error(text) == bool(STRONG.search(text))
    assert scan.strip_pytest_e(text) == re.sub(r"^E\s+", "", text)
    assert scan.tokens(text) == TOKEN.findall(text)


@settings(max_examples=1500, deadline=None)
@given(TEXT)
@example("2024-01-02T03:04:05.123+02:00 at 12:34:56,7 id c0ffee00-1234-5678-9abc-def012345678 0xFF abc1234 "
         "C:~/src/x.py ../a/b foo.PYI bar.yml 1.2.3")
@example("2024-01-02T1:23")
@example("12:34:567")
@example("x.py-y")
@example("12:34:56.7x")
@example("2024-01-02 12:34 done")
@example("x.\u017fh y.JS")
@example("a" * 32 + "1" * 32 + " " + "a" * 32 + "1" * 33)
def test_signatures_normalize_as_the_patterns_did(text):
    assert scan.normalize(text) == reference_normalize(text)


ARG = st.lists(st.one_of(st.sampled_from(list("ab_-./:\u0663\u00e9\n")),
                         st.sampled_from(["test_", "_test.py", "_test.go", ".test.", ".spec.", "ts", "js", "x",
                                          "c", "m", "_spec.rb", "::", ".py", "tests/", "__tests__/", "spec/",
                                          "specs/", "Test.", "Tests.", "java", "\u017f"])), max_size=12).map("".join)


@settings(max_examples=2000, deadline=None)
@given(ARG)
@example("tests/test_x.py")
@example("src/app.test.tsx")
@example("pkg/x_test.go\n")
@example("a.b.spec.cjs")
def test_test_arguments_and_paths_are_found_as_the_patterns_found_them(arg):
    assert scan.names_tests(arg) == bool(TEST_ARG.search(arg))
    assert scan.is_test_path(arg) == bool(TEST_FILE.search(arg))


def test_the_failure_path_imports_no_re(tmp_path):
    """A failed pytest run, a passing one and a test file written, through the real hook entrypoint."""
    import json
    import os
    import subprocess
    import sys

    from cogit.launch import hook_argv

    env = dict(os.environ, COGIT_HOME=str(tmp_path / "home"))
    fail = {"session_id": "s-scan", "cwd": str(tmp_path), "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
            "tool_input": {"command": "cd x && uv run pytest tests/test_a.py::test_b -q"}, "tool_use_id": "t1",
            "error": "Exit code 1\nE       AssertionError: 2024-01-02 12:00:01 /x/y.py:3 0xdeadbeef\n"
                     "FAILED tests/test_a.py::test_b - ValueError: bad\n1 failed in 0.12s"}
    ok = {"session_id": "s-scan", "cwd": str(tmp_path), "hook_event_name": "PostToolUse", "tool_name": "Bash",
          "tool_input": {"command": "pytest -q tests/test_a.py"}, "tool_use_id": "t2",
          "tool_response": {"stdout": "1 passed in 0.01s", "stderr": "", "interrupted": False, "isImage": False}}
    # (an edit of a code file also runs the spatial sense, which parses the repository's
    # imports within its own time budget: that sense may import re, and is not this test's)
    write = {"session_id": "s-scan", "cwd": str(tmp_path), "hook_event_name": "PostToolUse", "tool_name": "Write",
             "tool_input": {"file_path": str(tmp_path / "tests" / "expected.txt"), "content": "b"},
             "tool_use_id": "t3", "tool_response": {"type": "create", "filePath": str(tmp_path / "tests" / "expected.txt")}}
    for body in (fail, ok, write, fail):
        argv = hook_argv("claude", body["hook_event_name"])
        argv.insert(1, "-X")
        argv.insert(2, "importtime")
        proc = subprocess.run(argv, input=json.dumps(body).encode(), capture_output=True, env=env, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.decode().splitlines() if "|" in line}
        assert "cogit.senses.call" in imported, "the hook did not analyse the call"
        assert "re" not in imported, body["hook_event_name"]
    log = tmp_path / "home" / "runtime" / "logs" / "hooks.log"
    assert not log.exists() or "Error" not in log.read_text()
