"""The error signature of a failed call: which error it is, normalized so that the same
error again reads the same (timestamps, ids, paths and numbers replaced), its telling
line as written, its values without locations, and how alike two signatures are.

Lines naming the error, noise lines, timestamps, ids, paths and numbers are found by the
hand-written scanners of cogit/senses/scan.py, each held to the regular expression it
replaced: no `re` on the path of a failed tool call. Imported only where a failure is
analysed (a successful call never needs this module's scanners).
"""

from cogit import bounds

from .call import _one_line

MAX_SIG = 200


# words of lines that mention a failure; plain substrings of the lower-cased line (a regex
# alternation of these costs ten times more per character)
_KEYWORDS = (
    "error", "exception", "traceback", "fail", "fatal", "panic", "abort", "cannot", "can't", "could not",
    "couldn't", "not found", "no such", "denied", "invalid", "unexpected", "undefined", "unresolved",
    "refused", "timeout", "timedout", "time out", "timed out", "missing", "unable", "not recognized",
    "segmentation", "killed",
)


def _mentions_failure(line):
    low = line.lower()
    return any(word in low for word in _KEYWORDS)


def normalize(text):
    """Lower-case text with timestamps, ids, hex, paths, line numbers and other numbers replaced."""
    from . import scan

    return scan.normalize(text)


def _picked(error):
    """(lines that say which error it is, exit code or None) of an error text.

    Lines naming the error (an exception, "error:", a compiler code) win over lines that merely
    mention a failure ("1 error in 0.12s"); with neither, the last lines are used.
    """
    from . import scan

    text = error if isinstance(error, str) else str(error)
    # the first and last few KB carry the exit code and the error; the middle is never read
    text = scan.cut_truncations(bounds.cut(text, bounds.ERROR_HEAD, bounds.ERROR_TAIL))
    lines = text.splitlines()
    if len(lines) > bounds.ERROR_LINES_HEAD + bounds.ERROR_LINES_TAIL:
        lines = lines[: bounds.ERROR_LINES_HEAD] + lines[-bounds.ERROR_LINES_TAIL :]
    lines = [line.strip() for line in lines if line.strip()]
    code = None
    if lines:
        code = scan.exit_code(lines[0])
        if code is not None:
            lines = lines[1:]
    lines = [line for line in lines if not scan.is_noise(line)]
    strong = [line for line in lines if scan.names_error(line)]
    if strong:
        return strong[-2:], code
    key = [line for line in lines if _mentions_failure(line)]
    return (key or lines)[-3:], code


def signature(error, cmd=None):
    """A short normalized signature of an error text.

    Uses the last few lines that look like an error (the exception of a traceback, the
    FAILED/summary lines of a test run), else the last lines. An error with no output at all
    ("Exit code 1" alone) is signed with the command, so that the same silent failure repeats
    its signature and different commands do not. Only the first ERROR_HEAD and the last
    ERROR_TAIL characters of the error are read (cogit/bounds.py): linear, a few ms at most.
    """
    return describe(error, cmd)[0]


def values_of(err):
    """The error as written, without where it happened: tokens naming a place (a path, a
    `file.ts(11,7)` or `x.py:12` location, the number after "line") are dropped, the values
    stay. The same type error moving down a file is one loop; "assert 0 == 3" then
    "assert 2 == 3" after an edit is red-green progress (the learning loop and the
    nociception run tell them apart by this)."""
    out, skip = [], False
    for tok in (err or "").split():
        if skip:
            skip = False
            if tok.strip(",:").isdigit():
                continue
        low = tok.lower()
        if "/" in tok or "\\" in tok or (("." in tok) and any(c in tok for c in "(:") and any(c.isdigit() for c in tok)):
            continue
        if low in ("line", "line:", "ln"):
            skip = True
            continue
        out.append(tok)
    return " ".join(out)


def error_line(error):
    """The most telling line of an error, as written (for messages; signatures are normalized)."""
    return describe(error)[1]


def describe(error, cmd=None, values=None):
    """(signature, error line) of an error text, reading it once. `values`, a dict, gets
    "vals": the picked lines as written without their locations (values_of)."""
    from . import scan

    picked, code = _picked(error)
    if picked:
        sig = normalize(" | ".join(line[:300] for line in picked))
        line = _one_line(scan.strip_pytest_e(picked[-1][:1000]), 160)
        if values is not None:
            values["vals"] = _one_line(values_of(" | ".join(scan.strip_pytest_e(x[:300]) for x in picked)), 200)
    else:
        sig = normalize("exit %s %s" % (code or "?", _one_line((cmd or "")[:1000], 120)))
        line = "exit code %s, no output" % code if code else "no output"
    return sig[:MAX_SIG] or "error", line


def similarity(a, b):
    """Jaccard similarity of the token sets of two signatures (1.0 for two equal strings)."""
    from . import scan

    if a == b:
        return 1.0
    ta, tb = set(scan.tokens(a or "")), set(scan.tokens(b or ""))
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / len(ta | tb)
