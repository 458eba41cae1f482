"""Did a shell command fail? Read from its output text alone, for agents that send the
output without an exit code (Codex's PostToolUse, when its rollout record says nothing).

Only endings that a command writes when it *exits non-zero* count, read on the last
lines of the output, so a successful command that prints "error", "Traceback" or
"Exit code: 1" somewhere is not a failure:

- Python's uncaught exception: a `Traceback (most recent call last):` block whose last
  line, at column 0, is the exception (`ModuleNotFoundError: No module named 'x'`);
- the shell's own complaint as the last line (`bash: line 1: foo: command not found`,
  `… No such file or directory`, `… Permission denied`, `… syntax error …`);
- a test run's summary with failures or errors (pytest's `1 failed, 2 passed in 0.1s`);
- make's `make: *** [target] Error 2`, go's `exit status 1`, npm's `npm ERR!` /
  `npm error`, cargo's `error: could not compile`, node's `Node.js v…` footer after an
  uncaught exception.

Standard library only, no `re` (this runs on every shell call of the agent): string
search on at most the last TAIL characters.
"""

TAIL = 8_000
_TRACEBACK = "Traceback (most recent call last):"
_EXC_SUFFIXES = ("Error", "Exception", "Exit", "Interrupt", "Failure", "Warning")
_SHELLS = ("bash: ", "/bin/bash: ", "/usr/bin/bash: ", "sh: ", "/bin/sh: ", "/usr/bin/sh: ", "zsh: ", "/bin/zsh: ",
           "dash: ", "/bin/dash: ")
_SHELL_COMPLAINTS = ("command not found", "No such file or directory", "Permission denied", "syntax error")


def _last_lines(text: str, n: int) -> list[str]:
    """The last `n` non-blank lines of text, right-stripped, last one last."""
    out = []
    end = len(text)
    while end > 0 and len(out) < n:
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end].rstrip()
        if line:
            out.append(line)
        end = start - 1
    out.reverse()
    return out


def _is_exception_line(line: str) -> bool:
    """`pkg.mod.SomeError: message` or `SomeError` at column 0."""
    if not line or line[0].isspace():
        return False
    head = line.split(":", 1)[0]
    if not head or " " in head:
        return False
    name = head.rsplit(".", 1)[-1]
    if not (name[:1].isalpha() or name[:1] == "_") or not all(c.isalnum() or c in "._" for c in head):
        return False
    return name.endswith(_EXC_SUFFIXES) or name in ("SystemExit", "KeyboardInterrupt")


def _python_exception(tail: str) -> bool:
    i = tail.rfind(_TRACEBACK)
    if i < 0 or (i > 0 and tail[i - 1] != "\n"):
        return False
    last = _last_lines(tail[i:], 1)
    return bool(last) and _is_exception_line(last[0])


def _test_summary(line: str) -> bool:
    """pytest's last line, `= 1 failed, 2 passed in 0.12s =` (or without the bars)."""
    body = line.strip("= ")
    k = body.rfind(" in ")
    if k <= 0:
        return False
    took = body[k + 4:].split(" ", 1)[0]
    if not took.endswith("s") or not took[:-1].replace(".", "", 1).isdigit():
        return False
    for part in body[:k].split(","):
        words = part.split()
        if len(words) == 2 and words[0].isdigit() and int(words[0]) > 0 and words[1] in ("failed", "error", "errors"):
            return True
    return False


def failed(text) -> str | None:
    """Why the output says its command exited non-zero (a short phrase), or None."""
    if not isinstance(text, str) or not text:
        return None
    tail = text[-TAIL:]
    lines = _last_lines(tail, 3)
    if not lines:
        return None
    last = lines[-1].strip()
    if _python_exception(tail):
        return "an uncaught Python exception"
    if last.startswith(_SHELLS) and any(c in last for c in _SHELL_COMPLAINTS):
        return "the shell's error"
    if _test_summary(last):
        return "a test run with failures"
    if (last.startswith("make: *** ") or (last.startswith("make[") and ": *** " in last)) and " Error " in last:
        return "make's error"
    if last.startswith("exit status ") and last[12:].isdigit() and int(last[12:]) > 0:
        return "a non-zero exit status"
    if last.startswith(("npm ERR!", "npm error ")):
        return "npm's error"
    if last.startswith("error: could not compile"):
        return "a failed compile"
    if last.startswith("Node.js v"):
        before = _last_lines(tail, 16)[:-1]
        if any(line.startswith("    at ") for line in before) and any(_is_exception_line(line) for line in before):
            return "an uncaught Node.js exception"
    return None
