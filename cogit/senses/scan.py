"""Hand-written scanners for error texts, test commands and test paths. Standard library only.

These run in the PostToolUse / PostToolUseFailure hooks, on every failed tool call. They
used to be regular expressions; `import re` and compiling them cost about ten
milliseconds, most of a hook's budget. Each function here gives exactly what the
expression in its docstring gives (tests/senses/test_scan.py holds them to it on
generated text, Unicode included), so error signatures stored before stay the same.

What the expressions meant, spelled out once: `\\w` is `str.isalnum()` or "_", `\\s` is
`str.isspace()`, `\\d` is `str.isdecimal()`; under IGNORECASE the ASCII letters also
match four other characters (İ and ı match i, K (Kelvin) matches k, ſ matches s), which
`_FOLD` maps so that case-insensitive words can be found with `str.find`.
"""

_FOLD = {c: c + 32 for c in range(65, 91)}  # A-Z -> a-z
_FOLD.update({0x130: ord("i"), 0x131: ord("i"), 0x212A: ord("k"), 0x17F: ord("s")})
_SEP = "/\\"
_PATH_PUNCT = ".@+-"
_HEX = frozenset("0123456789abcdefABCDEF")
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
# `[A-Za-z_]` and `[A-Z]` under IGNORECASE
_CI_LETTERS = _ASCII_LETTERS | frozenset("\u0130\u0131\u212a\u017f")
_CLASS_START = _CI_LETTERS | {"_"}  # `[A-Za-z_]` under IGNORECASE
_EXTS = frozenset(
    "py pyi js jsx ts tsx mjs cjs go rs rb java kt c h cc cpp hpp cs php swift json yaml yml toml ini cfg md "
    "txt sh css scss html vue svelte lock log so o".split()
)


def fold(text: str) -> str:
    """Lower-case as IGNORECASE compares ASCII words, keeping every offset."""
    return text.translate(_FOLD)


def _w(c: str) -> bool:
    return c.isalnum() or c == "_"


def _word_start(s: str, i: int) -> bool:
    """`\\b` before s[i], where s[i] is a word character."""
    return i == 0 or not _w(s[i - 1])


def _word_end(s: str, i: int) -> bool:
    """`\\b` at i, where s[i - 1] is a word character."""
    return i >= len(s) or not _w(s[i])


def _run(s: str, i: int, ok) -> int:
    """The end of the run of characters from i that satisfy ok."""
    n = len(s)
    while i < n and ok(s[i]):
        i += 1
    return i


def _dec(s: str, i: int, count: int) -> bool:
    """Exactly `count` decimal digits at i (`\\d{count}`)."""
    return i + count <= len(s) and all(c.isdecimal() for c in s[i:i + count])


def _at_end(s: str, i: int) -> bool:
    """`$` at i (no MULTILINE): the end, or just before a final newline."""
    return i == len(s) or (i == len(s) - 1 and s[i] == "\n")


# --- lines of an error text ------------------------------------------------

def cut_truncations(text: str) -> str:
    r"""re.sub(r"\.\.\. \[\d+ characters truncated\] \.\.\.", "\n", text)."""
    out, pos, start = [], 0, 0
    while (i := text.find("... [", start)) >= 0:
        j = _run(text, i + 5, str.isdecimal)
        if j > i + 5 and text.startswith(" characters truncated] ...", j):
            end = j + len(" characters truncated] ...")
            out += (text[pos:i], "\n")
            pos = start = end
        else:
            start = i + 1
    return "".join(out) + text[pos:] if out else text


def exit_code(line: str) -> str | None:
    r"""The group of re.match(r"^\s*exit code (-?\d+)\s*$", line, re.I), or None."""
    i = _run(line, 0, str.isspace)
    if fold(line[i:i + 10]) != "exit code ":
        return None
    j = i + 10
    k = j + 1 if line[j:j + 1] == "-" else j
    end = _run(line, k, str.isdecimal)
    if end == k or _run(line, end, str.isspace) != len(line):
        return None
    return line[j:end]


def is_noise(line: str) -> bool:
    r"""re.match(r"^(?:traceback \(most recent call last\):|[=_-]{3,}\s*(?:failures|errors)\s*[=_-]{3,})$",
    line, re.I): a line that says nothing about which error it is."""
    head = "traceback (most recent call last):"
    if fold(line[:len(head)]) == head and _at_end(line, len(head)):
        return True
    bar = "=_-".__contains__
    i = _run(line, 0, bar)
    if i < 3:
        return False
    i = _run(line, i, str.isspace)
    low = fold(line[i:i + 8])
    if low == "failures":
        i += 8
    elif low[:6] == "errors":
        i += 6
    else:
        return False
    i = _run(line, i, str.isspace)
    end = _run(line, i, bar)
    return end - i >= 3 and _at_end(line, end)


def names_error(line: str) -> bool:
    r"""re.search(r"\b[A-Za-z_]\w*(?:Error|Exception)\b|\b(?:error|fatal|panic)(?:\[\w+\])?\s*[:!]"
    r"|\berror\s+[A-Z]+\d+|^E\s{2,}\S", line, re.I) is not None: a line that names the error."""
    if line[:1] in ("E", "e"):
        j = _run(line, 1, str.isspace)
        if j - 1 >= 2 and j < len(line):
            return True
    low = fold(line)
    # an exception class: a word that starts with a letter and ends in Error or Exception
    for suffix in ("error", "exception"):
        start = 0
        while (k := low.find(suffix, start)) >= 0:
            end = k + len(suffix)
            start = k + 1
            if not _word_end(line, end):
                continue
            p = k
            while p > 0 and _w(line[p - 1]):
                p -= 1
            if p < k and line[p] in _CLASS_START:
                return True
    # "error:", "fatal[E0308]:", "panic!" and "error TS2304"
    for word in ("error", "fatal", "panic"):
        start = 0
        while (k := low.find(word, start)) >= 0:
            start = k + 1
            if not _word_start(line, k):
                continue
            i = k + 5
            if line[i:i + 1] == "[":
                m = _run(line, i + 1, _w)
                if m > i + 1 and line[m:m + 1] == "]":
                    i = m + 1
            j = _run(line, i, str.isspace)
            if line[j:j + 1] in (":", "!"):
                return True
            if word == "error":
                j = _run(line, k + 5, str.isspace)
                if j > k + 5:
                    m = _run(line, j, _CI_LETTERS.__contains__)
                    if j < m < len(line) and line[m].isdecimal():
                        return True
    return False


def strip_pytest_e(line: str) -> str:
    r"""re.sub(r"^E\s+", "", line): pytest's "E   " margin taken off."""
    if line[:1] == "E":
        j = _run(line, 1, str.isspace)
        if j > 1:
            return line[j:]
    return line


def tokens(sig: str) -> list[str]:
    r"""re.findall(r"<\w+>|\w+", sig): the words of a signature, placeholders whole."""
    out, i, n = [], 0, len(sig)
    while i < n:
        c = sig[i]
        if c == "<":
            j = _run(sig, i + 1, _w)
            if j > i + 1 and sig[j:j + 1] == ">":
                out.append(sig[i:j + 1])
                i = j + 1
                continue
            i += 1
        elif _w(c):
            j = _run(sig, i, _w)
            out.append(sig[i:j])
            i = j
        else:
            i += 1
    return out


# --- normalizing a signature -----------------------------------------------

def _sub(text: str, match, repl: str, starts=None) -> str:
    """Replace, left to right and without overlap, every span `match(text, i)` finds (it
    returns the end of a match at i, or -1); `starts(text, i)` may skip ahead to the next
    position worth trying."""
    out, pos, i, n = [], 0, 0, len(text)
    while i < n:
        if starts is not None:
            i = starts(text, i)
            if i >= n:
                break
        end = match(text, i)
        if end > i:
            out += (text[pos:i], repl)
            pos = i = end
        else:
            i += 1
    return "".join(out) + text[pos:] if out else text


def _next_decimal(text: str, i: int) -> int:
    n = len(text)
    while i < n and not text[i].isdecimal():
        i += 1
    return i


def _iso_time(s: str, i: int) -> int:
    r"""\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?"""
    if not (_dec(s, i, 4) and s[i + 4:i + 5] == "-" and _dec(s, i + 5, 2) and s[i + 7:i + 8] == "-"
            and _dec(s, i + 8, 2)):
        return -1
    end = i + 10
    if s[end:end + 1] not in ("T", " ") or end + 1 >= len(s):
        return end
    for hours in (2, 1):
        j = end + 1 + hours
        if _dec(s, end + 1, hours) and s[j:j + 1] == ":" and _dec(s, j + 1, 2):
            break
    else:
        return end
    j += 3
    if s[j:j + 1] == ":" and _dec(s, j + 1, 2):
        j += 3
    if s[j:j + 1] in (".", ",") and j + 1 < len(s) and s[j + 1].isdecimal():
        j = _run(s, j + 1, str.isdecimal)
    if s[j:j + 1] == "Z":
        return j + 1
    if s[j:j + 1] in ("+", "-") and _dec(s, j + 1, 2):
        k = j + 3
        if s[k:k + 1] == ":" and _dec(s, k + 1, 2):
            return k + 3
        if _dec(s, k, 2):
            return k + 2
    return j


def _clock(s: str, i: int) -> int:
    r"""\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"""
    if not _word_start(s, i):
        return -1
    for hours in (2, 1):
        j = i + hours
        if _dec(s, i, hours) and s[j:j + 1] == ":" and _dec(s, j + 1, 2) and s[j + 3:j + 4] == ":" \
                and _dec(s, j + 4, 2):
            end = j + 6
            if s[end:end + 1] in (".", ",") and end + 1 < len(s) and s[end + 1].isdecimal():
                frac = _run(s, end + 1, str.isdecimal)
                if _word_end(s, frac):
                    return frac
            if _word_end(s, end):
                return end
    return -1


def _is_hex(c: str) -> bool:
    return c in _HEX


def _uuid(s: str, i: int) -> int:
    r"""\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b (re.I)"""
    if not (_is_hex(s[i]) and _word_start(s, i)):
        return -1
    j = i
    for size in (8, 4, 4, 4, 12):
        if j > i:
            if s[j:j + 1] != "-":
                return -1
            j += 1
        if _run(s, j, _is_hex) - j < size:
            return -1
        j += size
    return j if _word_end(s, j) else -1


def _hex_number(s: str, i: int) -> int:
    r"""\b0x[0-9a-f]+\b (re.I)"""
    if s[i] != "0" or s[i + 1:i + 2] not in ("x", "X") or not _word_start(s, i):
        return -1
    end = _run(s, i + 2, _is_hex)
    return end if end > i + 2 and _word_end(s, end) else -1


def _hex_id(s: str, i: int) -> int:
    r"""\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b (re.I): a hash, with a digit and a letter."""
    if not (_is_hex(s[i]) and _word_start(s, i)):
        return -1
    end = _run(s, i, _is_hex)
    run = s[i:end]
    if not (7 <= len(run) <= 64 and _word_end(s, end)):
        return -1
    if any(c.isdigit() for c in run) and any(not c.isdigit() for c in run):
        return end
    return -1


def _path_char(c: str) -> bool:
    return c.isalnum() or c == "_" or c in _PATH_PUNCT


def _path_body(s: str, i: int) -> int:
    r"""(?:[\w.@+-]*[/\\])+[\w.@+-]*: the run of name characters and separators from i,
    when it holds a separator."""
    n, seen = len(s), False
    while i < n:
        c = s[i]
        if c in _SEP:
            seen = True
        elif not _path_char(c):
            break
        i += 1
    return i if seen else -1


def _path(s: str, i: int) -> int:
    r"""(?<![\w.@+-])(?:[A-Za-z]:)?(?:~|\.{1,2})?(?:[\w.@+-]*[/\\])+[\w.@+-]*"""
    if i > 0 and _path_char(s[i - 1]):
        return -1
    starts = [i + 2] if s[i] in _ASCII_LETTERS and s[i + 1:i + 2] == ":" else []
    for q in starts + [i]:
        if s[q:q + 1] == "~":
            end = _path_body(s, q + 1)
            if end >= 0:
                return end
        end = _path_body(s, q)
        if end >= 0:
            return end
    return -1


def _path_starts(s: str, i: int) -> int:
    """Skip a run of name characters that cannot start a path: only its first position can."""
    n = len(s)
    while i < n:
        c = s[i]
        if c in _SEP or c == "~" or i == 0 or not _path_char(s[i - 1]):
            return i
        i += 1
    return i


def _file_name(s: str, i: int) -> int:
    r"""(?<![\w-])[\w-]+\.(?:py|pyi|js|…|so|o)\b (re.I): a bare file name with a known extension."""
    c = s[i]
    if not (_w(c) or c == "-") or (i > 0 and (_w(s[i - 1]) or s[i - 1] == "-")):
        return -1
    dot = _run(s, i, lambda ch: _w(ch) or ch == "-")
    if s[dot:dot + 1] != ".":
        return -1
    end = _run(s, dot + 1, _w)
    return end if fold(s[dot + 1:end]) in _EXTS else -1


def _number(s: str, i: int) -> int:
    r"""\d+(?:\.\d+)*"""
    if not s[i].isdecimal():
        return -1
    end = _run(s, i, str.isdecimal)
    while s[end:end + 1] == "." and end + 1 < len(s) and s[end + 1].isdecimal():
        end = _run(s, end + 1, str.isdecimal)
    return end


def normalize(text: str) -> str:
    """Lower-case text with timestamps, ids, hex, paths, line numbers and other numbers replaced
    (the substitutions run in this order, each on the result of the one before)."""
    text = _sub(text, _iso_time, "<ts>", _next_decimal)
    text = _sub(text, _clock, "<ts>", _next_decimal)
    text = _sub(text, _uuid, "<id>")
    text = _sub(text, _hex_number, "<hex>")
    text = _sub(text, _hex_id, "<hex>")
    text = _sub(text, _path, "<path>", _path_starts)
    text = _sub(text, _file_name, "<path>")
    text = _sub(text, _number, "<n>", _next_decimal)
    return " ".join(text.lower().split())


# --- test commands and test files ------------------------------------------

def _name_chars(s: str, extra: str = "-") -> bool:
    return all(_w(c) or c in extra for c in s)


def _js_test_ext(ext: str) -> bool:
    r"""[cm]?[jt]sx?"""
    if ext[:1] in ("c", "m"):
        ext = ext[1:]
    return ext in ("js", "ts", "jsx", "tsx")


def names_tests(arg: str) -> bool:
    r"""re.search(r"(?:^|/)(?:test_[\w-]*\.py|[\w-]+_test\.(?:py|go)|[\w.-]+\.(?:test|spec)\.[cm]?[jt]sx?"
    r"|[\w-]+_spec\.rb)$|::", arg) is not None: a test runner argument that names test files or ids."""
    if "::" in arg:
        return True
    ends = [arg[:-1]] if arg.endswith("\n") else []
    for s in [arg] + ends:
        name = s.rsplit("/", 1)[-1]
        if "\n" in name:
            continue
        if name.startswith("test_") and name.endswith(".py") and len(name) >= 8 and _name_chars(name[5:-3]):
            return True
        for tail in ("_test.py", "_test.go", "_spec.rb"):
            if name.endswith(tail) and len(name) > len(tail) and _name_chars(name[:-len(tail)]):
                return True
        parts = name.rsplit(".", 2)
        if len(parts) == 3 and parts[1] in ("test", "spec") and _js_test_ext(parts[2]) and parts[0] \
                and _name_chars(parts[0], ".-"):
            return True
    return False


def _lower_ext(s: str, i: int) -> bool:
    r"""[a-z]+$ from i."""
    if i >= len(s):
        return False
    end = _run(s, i, "abcdefghijklmnopqrstuvwxyz".__contains__)
    return end > i and _at_end(s, end)


def is_test_path(path: str) -> bool:
    r"""re.search(r"(?:^|/)(?:tests?|__tests__|spec|specs)/|(?:^|/)test_[^/]*$|_test\.[a-z]+$"
    r"|\.(?:test|spec)\.[a-z]+$|Tests?\.[a-z]+$", path) is not None."""
    slashed = "/" + path
    for folder in ("test", "tests", "__tests__", "spec", "specs"):
        if f"/{folder}/" in slashed:
            return True
    if path.rsplit("/", 1)[-1].startswith("test_"):
        return True
    for marker in ("_test.", ".test.", ".spec.", "Test.", "Tests."):
        start = 0
        while (k := path.find(marker, start)) >= 0:
            if _lower_ext(path, k + len(marker)):
                return True
            start = k + 1
    return False
