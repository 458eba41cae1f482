"""Bounded work on untrusted text: error signatures, call records and prompt analysis take
time linear in their (cut) input, whatever the shape of the text.

Times are compared with each other, never with absolute budgets alone: the best CPU time of
a few runs on 2 KB against 8 KB (quadratic work would take 16x, linear 4x), then 400 KB and
4 MB against 8 KB (the cut: about 1x). The small sizes come first, so quadratic code fails
here in seconds instead of hanging on 4 MB.
"""

from __future__ import annotations

import base64
import random
import time

import pytest

from cogit import bounds
from cogit.learn import prompts
from cogit.senses import signature as S
from cogit.senses import make_call, read_prompt

KB = 1000
MB = 1000 * KB


def best(fn, *args, runs=3):
    """The best CPU time of a few runs: CPU time, so that a loaded machine does not count."""
    out = float("inf")
    for _ in range(runs):
        t = time.process_time()
        fn(*args)
        out = min(out, time.process_time() - t)
    return out


def token(kind: str, n: int) -> str:
    """One long word of n characters, of the shapes that made the old patterns quadratic."""
    rnd = random.Random(n)
    if kind == "base64":  # a real blob: letters, digits, + and /
        return base64.b64encode(rnd.randbytes(n * 3 // 4 + 3)).decode()[:n]
    if kind == "alnum":  # one \w run: [A-Za-z_]\w*Error rescanned it from every position
        return base64.b64encode(rnd.randbytes(n * 3 // 4 + 3)).decode().replace("+", "x").replace("/", "y")[:n]
    if kind == "dotted":  # name characters and dots: the path pattern's [\w.@+-]* run
        return ("a1." * n)[:n]
    if kind == "dashed":  # \b at every dash: the file-name pattern's [\w-]+ run
        return ("ab-" * n)[:n]
    raise ValueError(kind)


def assert_linear(fn, make, label):
    """2 KB against 8 KB (both inside every cut: the patterns themselves), then 400 KB and 4 MB
    against 8 KB (the cut). Quadratic code fails the first check within seconds."""
    fn(make(100))  # compile the patterns first
    # up to three tries: a busy machine (two test workers, other jobs) can stall one
    # measurement, but quadratic code is 16x slower at 8 KB in every try
    for _ in range(3):
        t2 = best(fn, make(2 * KB))
        t8 = best(fn, make(8 * KB))
        if t8 < 8 * t2 + 0.002:
            break
    assert t8 < 8 * t2 + 0.002, f"{label}: 2 KB {t2 * 1000:.1f} ms, 8 KB {t8 * 1000:.1f} ms (quadratic?)"
    for n in (400 * KB, 4 * MB):  # cut: as fast as 8 KB (400 KB first: uncut code fails it quickly)
        tn = best(fn, make(n), runs=1 if n < MB else 3)
        assert tn < 5 * t8 + 0.005, f"{label}: 8 KB {t8 * 1000:.1f} ms, {n // KB} KB {tn * 1000:.1f} ms (not cut?)"


@pytest.mark.parametrize("kind", ["base64", "alnum", "dotted", "dashed"])
def test_signature_of_one_long_token_is_linear_and_cut(kind):
    assert_linear(lambda text: S.describe(text, "make"), lambda n: "Exit code 1\n" + token(kind, n), kind)
    sig, line = S.describe("Exit code 1\n" + token(kind, 4 * MB))
    assert len(sig) <= S.MAX_SIG and len(line) <= 160


@pytest.mark.parametrize("kind", ["alnum", "dotted", "dashed"])
def test_every_error_scanner_is_linear_on_uncut_text(kind):
    """The scanners themselves (cogit/senses/scan.py), on a whole 40 KB token: no rescanning
    from every position."""
    from cogit.senses import scan

    for fn in (scan.normalize, scan.names_error, scan.is_noise, scan.cut_truncations, scan.exit_code, scan.tokens,
               scan.names_tests, scan.is_test_path):
        fn("x")
        t10, t40 = best(fn, token(kind, 10 * KB)), best(fn, token(kind, 40 * KB))
        assert t40 < 8 * t10 + 0.002, (fn.__name__, kind, t10, t40)


def test_the_error_signature_reads_head_and_tail_only():
    middle = "ValueError: in the middle\n" * 100_000
    text = "Exit code 1\n" + "x\n" * 10 + middle + "KeyError: 'at the end'\n"
    sig, line = S.describe(text)
    assert line == "KeyError: 'at the end'"
    assert "keyerror" in sig
    # the cut keeps the exit code and lines on both sides
    assert S._picked(text)[1] == "1"
    cut = bounds.cut(text, bounds.ERROR_HEAD, bounds.ERROR_TAIL)
    assert len(cut) <= bounds.ERROR_HEAD + bounds.ERROR_TAIL + len(bounds.GAP)


@pytest.mark.parametrize("where", ["error", "stderr", "command", "file_path", "content", "old_string"])
def test_make_call_is_bounded_for_every_huge_field(where):
    def make(n):
        blob = token("alnum", n)
        ti = {"command": "pytest -q", "description": "run"}
        tool, response, error = "Bash", {"stdout": "", "stderr": "", "interrupted": False}, None
        if where == "error":
            error = "Exit code 1\n" + blob
        elif where == "stderr":
            response = {"stdout": "", "stderr": blob, "interrupted": True}
        elif where == "command":
            ti["command"] = "pytest " + blob
        elif where == "file_path":
            tool, ti, response = "Read", {"file_path": "/tmp/" + blob}, {"type": "text", "file": {"content": "x"}}
        elif where == "content":
            tool, ti, response = "Write", {"file_path": "/tmp/x.py", "content": blob}, {"type": "create"}
        else:
            tool, ti, response = "Edit", {"file_path": "/tmp/x.py", "old_string": blob, "new_string": blob + "y"}, {}
        return tool, ti, response, error

    def run(args):
        tool, ti, response, error = args
        return make_call(tool, ti, response, error, 5, 1.0, "/tmp", tool_use_id="t1")

    assert_linear(run, make, where)
    rec = run(make(4 * MB))
    # nothing big reaches the record the hook keeps in the session state
    assert len(repr(rec)) < 2 * bounds.PATH, {k: len(str(v)) for k, v in rec.items()}
    if where in ("error", "stderr"):
        assert rec["ok"] is False and rec["sig"]
    if where == "content":
        assert rec["size"] > 4 * MB  # what entered the context is counted before the cut


def test_write_fingerprints_still_tell_big_contents_apart():
    a = "x" * 300_000
    same = make_call("Write", {"file_path": "/tmp/a.py", "content": a}, {}, None, 1, 1.0, "/tmp")["h"]
    assert same == make_call("Write", {"file_path": "/tmp/a.py", "content": a}, {}, None, 1, 1.0, "/tmp")["h"]
    assert same != make_call("Write", {"file_path": "/tmp/a.py", "content": a + "z"}, {}, None, 1, 1.0, "/tmp")["h"]
    assert same != make_call("Write", {"file_path": "/tmp/a.py", "content": "y" + a[1:]}, {}, None, 1, 1.0, "/tmp")["h"]


PROMPTS = {
    "blank lines": lambda n: "Fix the build.\n" + "\n" * n,
    "spaces after a request": lambda n: "remember: x" + " " * n + "y",
    "sentences": lambda n: ("Ok.\n" * n)[:n],
    "words": lambda n: ("refactor the exporter module " * n)[:n],
    "no no no": lambda n: ("no " * n)[:n],
    "one token": lambda n: token("alnum", n),
}


@pytest.mark.parametrize("shape", list(PROMPTS))
def test_prompt_analysis_is_linear_and_cut(shape):
    make = PROMPTS[shape]

    def analyse(text):
        return prompts.explicit_request(text), prompts.praise(text), prompts.meaningful(text), read_prompt(text)

    assert_linear(analyse, make, shape)


def test_prompt_cut_keeps_the_head_and_the_tail():
    log = "ERROR something\n" * 250_000  # a pasted 4 MB log
    assert prompts.explicit_request("Here is the log:\n" + log + "\nremember this: deploys need the VPN") == "deploys need the VPN"
    assert prompts.explicit_request("remember this: the log below is from staging\n\n" + log) == "the log below is from staging"
    assert prompts.praise("Perfect, thanks!\n" + log) == "Perfect"
    assert read_prompt("Refactor the exporter\n" + log)["summary"].startswith("Refactor the exporter")
    # white space is shortened, kind kept: a blank line still ends a remembered text (a
    # lesson is words: "remember: a b" is too short to be one since the phrasing corpus)
    assert prompts.explicit_request("remember:  use  tabs \n \n c") == "use tabs"
    assert prompts.explicit_request("remember: use\ntabs") == "use tabs"
