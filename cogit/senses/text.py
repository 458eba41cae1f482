"""Small helpers shared by the senses: the tag every signal starts with, and short renderings."""

import os

# `import re` costs milliseconds (enum, functools...) on a path that runs on every
# tool call; most calls need no pattern at all. So `re` is imported on first use.
IGNORECASE, MULTILINE, DOTALL = 2, 8, 16  # the values of re.I, re.M, re.S


class _LazyModule:
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        return getattr(__import__(self._name), attr)


re = _LazyModule("re")


class LazyRe:
    """A regular expression compiled on first use: the hook pays only for the patterns a call needs."""

    __slots__ = ("args", "rx")

    def __init__(self, *args):
        self.args = args
        self.rx = None

    def __getattr__(self, name):
        if self.rx is None:
            self.rx = re.compile(*self.args)
        return getattr(self.rx, name)


TAG_RE = LazyRe(r"^\[cogit:([a-z0-9]+)\]", MULTILINE)


def tag(sense):
    """Every signal's first line starts with `[cogit:<sense>]`; `fired()` reads them back."""
    return "[cogit:%s]" % sense


def fired(text):
    """The senses that spoke in a message returned by `observe`, in order (empty for None)."""
    return TAG_RE.findall(text) if text else []


def display(path, base=None):
    """A path relative to base when it lies inside it, else the path itself."""
    if not path:
        return "?"
    if base:
        try:
            rel = os.path.relpath(path, base)
        except ValueError:
            rel = path
        if not rel.startswith(".."):
            return rel
    return path


def clip(text, limit):
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def listing(items, limit=3):
    """'a, b and c' / 'a, b, c and 4 more'."""
    items = list(items)
    if not items:
        return ""
    if len(items) <= limit:
        return items[0] if len(items) == 1 else "%s and %s" % (", ".join(items[:-1]), items[-1])
    return "%s and %d more" % (", ".join(items[:limit]), len(items) - limit)


def plural(n, word, many=None):
    return "%d %s" % (n, word if n == 1 else (many or word + "s"))


def tokens_k(chars):
    """Characters as an approximate token count: '~9k tokens' (about 4 characters per token)."""
    tokens = chars / 4.0
    if tokens >= 1000:
        return "~%dk tokens" % round(tokens / 1000.0)
    return "~%d tokens" % (int(round(tokens / 10.0)) * 10)


def duration(seconds):
    seconds = max(0, int(seconds))
    if seconds < 60:
        return "%ds" % seconds
    if seconds < 3600:
        return "%dm" % (seconds // 60)
    return "%dh %02dm" % (seconds // 3600, (seconds % 3600) // 60)
