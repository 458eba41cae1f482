"""One tool call, as the senses see it: built from a Claude Code PostToolUse / PostToolUseFailure payload.

Claude Code sends a successful call as `PostToolUse` with a structured `tool_response`
(its shape depends on the tool) and a failed one as `PostToolUseFailure` with a string
`error` and no `tool_response` (for Bash, `error` starts with "Exit code N").
A call is a failure when there is an `error`, or, conservatively, when the response itself
says so (`interrupted: true` on Bash, `isError`/`is_error: true` on MCP results). Output on
stderr, or words such as "error" inside a successful result, are not failures: reading a log
or a test file must not look like pain.

The record's parts live beside it, each imported only when a call needs it: sizes.py
(what enters the context: every call), commands.py (what a command runs, test and code
files: shell calls and writes), signature.py (the error signature: failures only).
"""

import os

from cogit import bounds


WRITE_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
READ_TOOLS = ("Read", "NotebookRead", "WebFetch", "BashOutput")
SEARCH_TOOLS = ("Grep", "Glob", "LS", "WebSearch", "ToolSearch")
EXEC_TOOLS = ("Bash", "PowerShell")

MAX_TARGET = 300
MAX_CMD = 300


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


def first_items(value):
    """(the first bounds.ITEMS items of a list, the factor that extrapolates their sizes to all)."""
    if len(value) <= bounds.ITEMS:
        return value, 1.0
    return value[: bounds.ITEMS], len(value) / float(bounds.ITEMS)


def _one_line(text, limit):
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
        edits = first_items(ti["edits"])[0] if isinstance(ti.get("edits"), list) else []
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
        from .signature import normalize

        tail = _s(r.get("stderr")) or _s(r.get("stdout"))
        tail = _redacted(tail, 0, 500) if len(tail) > 500 else _redacted(tail, 500)
        return "interrupted | " + (normalize(tail)[:150] if tail.strip() else "no output")
    if r.get("isError") is True or r.get("is_error") is True:
        from .signature import signature

        content = r.get("content")
        text = ""
        if isinstance(content, list):
            text = " ".join(_s(c.get("text")) for c in first_items(content)[0] if isinstance(c, dict))
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
            out[key] = [_cut_strings(v) if isinstance(v, dict) else v for v in first_items(value)[0]]
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
    from .sizes import input_size, response_size, search_hits

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
        from .signature import describe

        call["sig"], call["err"] = describe(_redacted(err, bounds.ERROR_HEAD, bounds.ERROR_TAIL), cmd, call)
        out = min(len(err), 10000)
    else:
        sig = _failure_in_response(tool, tool_response)
        if sig:
            call["ok"] = False
            call["sig"] = sig
            call["err"] = _one_line(sig, 160)
        out = response_size(tool, tool_response)
    call["size"] = input_size(full) + out
    if cmd:
        from .commands import run_scope

        scope = run_scope(cmd)
    else:
        scope = None
    if scope:
        call["is_test"] = True
        call["scope"] = scope
    if kind == "write":
        call["h"] = _change_hash(tool, full)
        from .commands import is_test_file

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
