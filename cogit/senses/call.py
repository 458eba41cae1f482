"""One tool call, as the senses see it: built from a Claude Code PostToolUse / PostToolUseFailure payload.

Claude Code sends a successful call as `PostToolUse` with a structured `tool_response`
(its shape depends on the tool) and a failed one as `PostToolUseFailure` with a string
`error` and no `tool_response` (for Bash, `error` starts with "Exit code N").
A call is a failure when there is an `error`, or, conservatively, when the response itself
says so (`interrupted: true` on Bash, `isError`/`is_error: true` on MCP results). Output on
stderr, or words such as "error" inside a successful result, are not failures: reading a log
or a test file must not look like pain.
"""

import os

from cogit import bounds


WRITE_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
READ_TOOLS = ("Read", "NotebookRead", "WebFetch", "BashOutput")
SEARCH_TOOLS = ("Grep", "Glob", "LS", "WebSearch", "ToolSearch")
EXEC_TOOLS = ("Bash", "PowerShell")

MAX_TARGET = 300
MAX_CMD = 300
MAX_SIG = 200
# Claude Code truncates Bash output for the model at about this many characters.
MAX_OUTPUT = 30000


def kind_of(tool):
    if tool in WRITE_TOOLS:
        return "write"
    if tool in READ_TOOLS:
        return "read"
    if tool in SEARCH_TOOLS:
        return "search"
    if tool in EXEC_TOOLS:
        return "exec"
    return "other"


def _s(value):
    return value if isinstance(value, str) else ""


def _abspath(path, cwd):
    if not path:
        return ""
    if not os.path.isabs(path) and cwd:
        path = os.path.join(cwd, path)
    return os.path.normpath(path)


def _one_line(text, limit):
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- error signatures -------------------------------------------------------

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


# Lines that name the error, noise lines, timestamps, ids, paths and numbers are found by
# the hand-written scanners of cogit/senses/scan.py, each held to the regular expression
# it replaced: no `re` on the path of a failed tool call. (Imported where used: a
# successful Read never needs them.)


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


# --- test runs and test files ----------------------------------------------

def _segments(cmd):
    """A shell command cut at &&, ||, ;, | and newlines (string operations: no `re` needed)."""
    for sep in ("&&", "||", ";", "|"):
        cmd = cmd.replace(sep, "\n")
    return cmd.split("\n")


def _is_python(prog):
    """python, python3, python3.11 ...: the name, then only digits and dots."""
    return prog.startswith("python") and all(c.isdigit() or c == "." for c in prog[6:])
_WRAPPERS = frozenset(
    "uv poetry pipenv hatch pdm rye npx pnpx bunx exec time env nice sudo xvfb-run command".split()
)
_SUITE_ONLY = frozenset("tox nox ctest phpunit".split())
_FILTER_OPTS = frozenset("-k -m -run --run -t --testNamePattern --test-name-pattern --grep -g --filter".split())


def _runner_args(segment):
    """The arguments after the test runner when this command segment runs tests, else None."""
    toks = [t.strip("'\"") for t in segment.split()]
    i = 0
    while i < len(toks):
        tok = toks[i]
        base = tok.rsplit("/", 1)[-1]
        if "=" in tok and not tok.startswith("-"):  # FOO=1 pytest
            i += 1
        elif base in _WRAPPERS:
            i += 2 if i + 1 < len(toks) and toks[i + 1] == "run" else 1
        elif base == "timeout":
            i += 1
            while i < len(toks) and (toks[i].startswith("-") or toks[i][:1].isdigit()):
                i += 1
        else:
            break
    if i >= len(toks):
        return None
    prog, args = toks[i].rsplit("/", 1)[-1], toks[i + 1 :]
    words = [a for a in args if not a.startswith("-")]
    if prog in ("pytest", "py.test", "jest", "vitest", "mocha", "rspec"):
        return args
    if prog in _SUITE_ONLY:
        return []
    if _is_python(prog) and args[:2] in (["-m", "pytest"], ["-m", "unittest"]):
        return args[2:]
    if prog in ("npm", "pnpm", "yarn", "bun"):
        if words[:1] == ["test"] or words[:1] == ["t"]:
            return args[args.index(words[0]) + 1 :]
        if words[:1] == ["run"] and len(words) > 1 and words[1].startswith("test"):
            return args[args.index(words[1]) + 1 :]
        return None
    if prog in ("deno", "go", "swift", "mix", "dotnet") and words[:1] == ["test"]:
        return args[args.index("test") + 1 :]
    if prog == "node" and "--test" in args:
        return [a for a in args if a != "--test"]
    if prog == "cargo" and words[:1] in (["test"], ["nextest"]):
        rest = args[args.index(words[0]) + 1 :]
        # a positional argument of cargo test is a test-name filter
        return ["--filter" if not a.startswith("-") else a for a in rest if a != "run"]
    if prog in ("make", "rake", "mvn", "gradle", "gradlew") and any(w in ("test", "check") for w in words):
        return []
    if prog == "bundle" and words[:2] == ["exec", "rspec"]:
        return args[args.index("rspec") + 1 :]
    return None


def program(cmd):
    """The program a command runs, past `cd x &&`, env assignments and wrappers: 'pytest', 'npm' …"""
    for segment in _segments(cmd or ""):
        toks = [t.strip("'\"") for t in segment.split()]
        while toks and (("=" in toks[0] and not toks[0].startswith("-")) or toks[0].rsplit("/", 1)[-1] in _WRAPPERS):
            toks = toks[2:] if len(toks) > 1 and toks[1] == "run" else toks[1:]
        if toks and toks[0] not in ("cd", "pushd", "source", ".", "set", "export"):
            prog = toks[0].rsplit("/", 1)[-1]
            if _is_python(prog) and len(toks) > 2 and toks[1] == "-m":
                return toks[2]  # python -m pip -> pip
            return prog
    return ""


def run_scope(cmd):
    """'suite' or 'targeted' when the command runs tests, else None.

    The runner has to be the program of one command segment (after wrappers such as `uv run`,
    `timeout 60` or `FOO=1`), so `pip install pytest` or `grep pytest` are not test runs.
    Targeted means it names test files, node ids (`x.py::test_y`) or a name filter (-k, -run, -t);
    a bare runner or a directory counts as the suite.
    """
    if not cmd:
        return None
    scope = None
    for segment in _segments(cmd):
        args = _runner_args(segment)
        if args is None:
            continue
        from . import scan
        if any(a.split("=", 1)[0] in _FILTER_OPTS or scan.names_tests(a) for a in args):
            scope = scope or "targeted"
        else:
            scope = "suite"
    return scope


def is_test_file(path):
    from . import scan

    return bool(path) and scan.is_test_path(path.replace("\\", "/"))


CODE_EXT = frozenset(
    ".py .pyi .js .jsx .ts .tsx .mjs .cjs .mts .cts .go .rs .rb .java .kt .kts .scala .c .h .cc .cpp .hpp "
    ".cs .swift .php .vue .svelte .ex .exs .lua .dart".split()
)


def is_code_file(path):
    return os.path.splitext(path or "")[1].lower() in CODE_EXT


# --- sizes: what enters the model's context ----------------------------------


def _items(value):
    """(the first bounds.ITEMS items of a list, the factor that extrapolates their sizes to all)."""
    if len(value) <= bounds.ITEMS:
        return value, 1.0
    return value[: bounds.ITEMS], len(value) / float(bounds.ITEMS)


def _texts(value, limit=MAX_OUTPUT):
    """Total length of the text blocks of an MCP/Agent style result."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list):
        value, scale = _items(value)
        total = 0
        for item in value:
            if isinstance(item, dict):
                if isinstance(item.get("text"), str):
                    total += len(item["text"])
                elif item.get("type") == "image":
                    total += 6000
            elif isinstance(item, str):
                total += len(item)
        return min(int(total * scale), limit)
    return 0


def _input_size(tool_input):
    """Characters of the input the model wrote (they sit in the context too)."""
    total = 0
    for _, value in zip(range(bounds.ITEMS), tool_input.values()):
        if isinstance(value, str):
            total += len(value)
        elif isinstance(value, list):  # MultiEdit edits
            items, scale = _items(value)
            part = 0
            for item in items:
                if isinstance(item, dict):
                    part += sum(len(v) for _, v in zip(range(bounds.ITEMS), item.values()) if isinstance(v, str))
            total += int(part * scale)
    return total


def response_size(tool, tool_response):
    """Characters of the result that the model sees, estimated per tool from the structured response."""
    r = tool_response
    if r is None:
        return 0
    if isinstance(r, str):
        return min(len(r), MAX_OUTPUT)
    if isinstance(r, list):
        return _texts(r)
    if not isinstance(r, dict):
        return 0
    if tool in EXEC_TOOLS or "stdout" in r:
        return min(len(_s(r.get("stdout"))) + len(_s(r.get("stderr"))), MAX_OUTPUT)
    f = r.get("file")
    if isinstance(f, dict):  # Read: {"type": "text", "file": {"content", "numLines", ...}}
        if r.get("type") == "image" or "base64" in f:
            return 6000
        content = _s(f.get("content"))
        lines = f.get("numLines") if isinstance(f.get("numLines"), int) else content.count("\n") + 1
        return len(content) + 7 * lines  # Read prefixes each line with its number and a tab
    if tool in ("Edit", "MultiEdit", "Write") or "structuredPatch" in r:
        patch = r.get("structuredPatch")
        total = 120
        if isinstance(patch, list):
            hunks, scale = _items(patch)
            part = 0
            for hunk in hunks:
                if isinstance(hunk, dict) and isinstance(hunk.get("lines"), list):
                    lines, more = _items(hunk["lines"])
                    part += int(sum(len(x) + 8 for x in lines if isinstance(x, str)) * more)
            total += int(part * scale)
        return total
    if "filenames" in r or "mode" in r:  # Grep / Glob
        content = _s(r.get("content"))
        if content:
            return min(len(content), MAX_OUTPUT)
        names = r.get("filenames")
        if not isinstance(names, list):
            return 0
        names, scale = _items(names)
        return int(sum(len(n) + 1 for n in names if isinstance(n, str)) * scale)
    if isinstance(r.get("result"), str):  # WebFetch
        return len(r["result"])
    if "content" in r:  # Agent (completed), MCP {"content": [...]}
        return _texts(r["content"])
    return _approx_json_len(r, MAX_OUTPUT)


def search_hits(r):
    """How much a Grep/Glob found (files, or lines in content mode); None when unknown.

    The learning loop tells a fruitless repeated search (nothing found, again) from a search
    that finds things (progress, e.g. the leftovers of a rename shrinking)."""
    if not isinstance(r, dict):
        return None
    for key in ("numFiles", "numLines", "numMatches"):
        if isinstance(r.get(key), int) and not isinstance(r.get(key), bool) and r[key] > 0:
            return r[key]
    names = r.get("filenames")
    if isinstance(names, list) and names:
        return len(names)
    content = _s(r.get("content"))
    if content.strip():
        return content.count("\n") + 1
    if "filenames" in r or "numFiles" in r or "content" in r:
        return 0
    return None


def _approx_json_len(value, limit):
    """len(json.dumps(value)) of a small value; of a big one an estimate from its first
    bounds.ITEMS values, stopping at limit (dumping 4 MB would cost what parsing it did)."""
    total, seen, todo, whole = 0, 0, [value], True
    while todo and total < limit and seen < bounds.ITEMS:
        v = todo.pop()
        seen += 1
        if isinstance(v, str):
            total += len(v) + 3
        elif isinstance(v, dict):
            total += 2
            for k, item in v.items():
                total += (len(k) + 4) if isinstance(k, str) else 8
                todo.append(item)
                if len(todo) > bounds.ITEMS:
                    whole = False
                    break
        elif isinstance(v, list):
            total += 2
            whole = whole and len(v) <= bounds.ITEMS
            todo.extend(v[: bounds.ITEMS])
        else:
            total += 6
    if whole and not todo and total < limit:  # walked whole and small: measure it exactly
        try:
            from cogit import jsonio

            return min(len(jsonio.dumps(value, default=str)), limit)
        except (TypeError, ValueError):
            return 0
    return min(total, limit)


# --- the call record ----------------------------------------------------------


def _target(tool, ti, cwd):
    path = _s(ti.get("file_path")) or _s(ti.get("notebook_path"))
    if tool in WRITE_TOOLS or tool in ("Read", "NotebookRead"):
        return _abspath(path or _s(ti.get("path")), cwd)
    if tool in EXEC_TOOLS:
        return _one_line(_s(ti.get("command")), MAX_TARGET)
    if tool in ("Grep", "Glob"):
        where = _abspath(_s(ti.get("path")), cwd) or _abspath(cwd or "", None)
        extra = _s(ti.get("glob")) or _s(ti.get("type"))
        return _one_line("%s in %s%s" % (_s(ti.get("pattern")), where, " (%s)" % extra if extra else ""), MAX_TARGET)
    if tool == "LS":
        return _abspath(_s(ti.get("path")), cwd)
    if tool == "WebFetch":
        return _one_line(_s(ti.get("url")), MAX_TARGET)
    if tool == "WebSearch":
        return _one_line(_s(ti.get("query")), MAX_TARGET)
    if path:
        return _abspath(path, cwd)
    return ""


def _fp(value):
    """A string as fingerprinted: whole when short, else its head, tail and length (bounds.FINGERPRINT_*)."""
    value = _s(value)
    if len(value) <= bounds.FINGERPRINT_HEAD + bounds.FINGERPRINT_TAIL:
        return value
    return "%s\2%d\2%s" % (value[: bounds.FINGERPRINT_HEAD], len(value), value[-bounds.FINGERPRINT_TAIL :])


def _change_hash(tool, ti):
    """A fingerprint of what a write puts in: two writes with the same fingerprint change nothing new."""
    if tool == "Edit":
        data = _fp(ti.get("old_string")) + "\0" + _fp(ti.get("new_string"))
    elif tool == "Write":
        data = _fp(ti.get("content"))
    elif tool == "MultiEdit":
        edits = _items(ti["edits"])[0] if isinstance(ti.get("edits"), list) else []
        data = "\0".join(_fp(e.get("old_string")) + "\1" + _fp(e.get("new_string")) for e in edits if isinstance(e, dict))
    elif tool == "NotebookEdit":
        data = _fp(ti.get("cell_id")) + "\0" + _fp(ti.get("new_source")) + "\0" + _fp(ti.get("edit_mode"))
    else:
        return None
    import zlib  # here: a .so that only writes need (~0.3 ms on every other call)

    return "%08x" % (zlib.crc32(data.encode("utf-8", "replace")) & 0xFFFFFFFF)


def _change_text(tool, ti):
    """'`old` -> `new`' for an Edit (the first edit of a MultiEdit), shortened; None otherwise."""
    if tool == "MultiEdit" and isinstance(ti.get("edits"), list) and ti["edits"] and isinstance(ti["edits"][0], dict):
        ti = ti["edits"][0]
    elif tool != "Edit":
        return None
    old, new = _s(ti.get("old_string")), _s(ti.get("new_string"))
    if not old and not new:
        return None
    # show the differing middle of the two strings, not their shared context
    a, b = old, new
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    j = 0
    while j < min(len(a), len(b)) - i and a[len(a) - 1 - j] == b[len(b) - 1 - j]:
        j += 1
    # keep a little shared context, cut at word boundaries
    i = max(0, i - 12)
    while i > 0 and not a[i - 1].isspace():
        i -= 1
    j = max(0, j - 12)
    while j > 0 and not a[len(a) - j].isspace():
        j -= 1
    a, b = a[i : len(a) - j], b[i : len(b) - j]
    return "`%s` -> `%s`" % (_one_line(a, 60), _one_line(b, 60))


# The strings of a tool_input that the call record keeps (command, target, change): redacted
# before any cut, so what a rule, a signature or a sense's message quotes holds no part of a
# secret. cogit/redact.py imports `re` only when a candidate is there.
_KEPT = ("command", "file_path", "notebook_path", "path", "pattern", "url", "query", "old_string", "new_string")


def _redacted(text, head, tail=0):
    from cogit.redact import clip

    return clip(text, head, tail, bounds.GAP)


def _redact_input(ti, full):
    for d, src in [(ti, full)] + [(e, o) for e, o in zip(ti.get("edits") or [], full.get("edits") or [])
                                  if isinstance(e, dict) and isinstance(o, dict)][:1]:
        for key in _KEPT:
            value = src.get(key)
            if isinstance(value, str) and value:
                d[key] = _redacted(value, bounds.INPUT_TEXT) if key not in _PATH_KEYS else _redacted(d.get(key) or "", bounds.PATH)


def _failure_in_response(tool, r):
    """A signature when a *successful* event's response still reports a failure, else None."""
    if not isinstance(r, dict):
        return None
    if r.get("interrupted") is True:
        tail = _s(r.get("stderr")) or _s(r.get("stdout"))
        tail = _redacted(tail, 0, 500) if len(tail) > 500 else _redacted(tail, 500)
        return "interrupted | " + (normalize(tail)[:150] if tail.strip() else "no output")
    if r.get("isError") is True or r.get("is_error") is True:
        content = r.get("content")
        text = ""
        if isinstance(content, list):
            text = " ".join(_s(c.get("text")) for c in _items(content)[0] if isinstance(c, dict))
        elif isinstance(content, str):
            text = content
        return signature(_redacted(text, bounds.ERROR_HEAD, bounds.ERROR_TAIL) if text else "%s reported an error" % tool)
    return None


_PATH_KEYS = frozenset(("file_path", "notebook_path", "path"))


def _cut_strings(d):
    """One level of a dict with its strings cut to bounds.INPUT_TEXT (paths over bounds.PATH: dropped)."""
    out = {}
    for _, (key, value) in zip(range(bounds.ITEMS), d.items()):
        if isinstance(value, str):
            if key in _PATH_KEYS:
                value = value if len(value) <= bounds.PATH else ""
            elif len(value) > bounds.INPUT_TEXT:
                value = bounds.cut(value, bounds.INPUT_TEXT)
        out[key] = value
    return out


def _bounded_input(ti):
    """tool_input as the senses analyse it: strings cut (bounds.INPUT_TEXT), lists of edits too."""
    out = _cut_strings(ti)
    for key, value in out.items():
        if isinstance(value, list):
            out[key] = [_cut_strings(v) if isinstance(v, dict) else v for v in _items(value)[0]]
    return out


def make_call(tool_name, tool_input, tool_response, error, duration_ms, now, cwd, tool_use_id=None):
    """Build the JSON-serialisable call record the senses work on.

    Keys: tool, target, kind (read/write/exec/search/other), ok, sig (normalized error signature
    or None), size (characters that entered the context: the model's input plus the result it
    sees), cmd (Bash command or None), is_test, t; and, when they apply: err (the telling error
    line, as written), scope ('suite' or 'targeted' test run), h (fingerprint of a write's
    content), change (what an Edit replaced, shortened), part (offset:limit of a partial Read),
    test_file (a write to a test file), created (a Write that created the file), id
    (tool_use_id), ms (duration).
    """
    tool = tool_name[: bounds.NAME] if isinstance(tool_name, str) and tool_name else "unknown"
    full = tool_input if isinstance(tool_input, dict) else {}
    ti = _bounded_input(full)  # what the senses analyse; sizes and fingerprints read `full`
    _redact_input(ti, full)
    kind = kind_of(tool)
    cmd = _s(ti.get("command")) if kind == "exec" else ""
    call = {
        "tool": tool,
        "target": _target(tool, ti, cwd),
        "kind": kind,
        "ok": True,
        "sig": None,
        "size": 0,
        "cmd": _one_line(cmd, MAX_CMD) if cmd else None,
        "is_test": False,
        "t": float(now) if isinstance(now, (int, float)) and not isinstance(now, bool) else 0.0,
    }
    if error is not None and error is not False:
        err = error if isinstance(error, str) else str(error)
        call["ok"] = False
        # Redacted, then cut (signatures, rules and messages quote it): never a part of a secret.
        call["sig"], call["err"] = describe(_redacted(err, bounds.ERROR_HEAD, bounds.ERROR_TAIL), cmd, call)
        out = min(len(err), 10000)
    else:
        sig = _failure_in_response(tool, tool_response)
        if sig:
            call["ok"] = False
            call["sig"] = sig
            call["err"] = _one_line(sig, 160)
        out = response_size(tool, tool_response)
    call["size"] = _input_size(full) + out
    scope = run_scope(cmd) if cmd else None
    if scope:
        call["is_test"] = True
        call["scope"] = scope
    if kind == "write":
        call["h"] = _change_hash(tool, full)
        if is_test_file(call["target"]):
            call["test_file"] = True
        if tool == "Write" and isinstance(tool_response, dict) and tool_response.get("type") == "create":
            call["created"] = True
        change = _change_text(tool, ti)
        if change:
            call["change"] = change
    if tool == "Read" and (ti.get("offset") or ti.get("limit")):
        call["part"] = "%s:%s" % (ti.get("offset") or 0, ti.get("limit") or "")
    if kind == "search":
        call["hits"] = search_hits(tool_response) if call["ok"] else 0
    if isinstance(tool_use_id, str) and tool_use_id:
        call["id"] = tool_use_id
    if isinstance(duration_ms, (int, float)) and not isinstance(duration_ms, bool):
        call["ms"] = duration_ms
    return call
