"""Secrets out of state before a commit: the allowlist, and redaction of text a person wrote.

The write path (store/write/transact.py) redacts every value, key and message itself with
cogit/redact.py; what needs more care is a hand-edited file, whose comments and layout
are kept: that is `redact_raw`.
"""

from __future__ import annotations

from typing import Any

from cogit.domain.text import clean_text  # noqa: F401 (the write path cleans with it)
from cogit.errors import InvalidState
from cogit.redact import redact, redact_tree
from cogit.store.state import schema, yamlio




def clean_tree(value):
    """clean_text on every string of a document, keys of mappings included (in place, as redact_tree)."""
    from cogit.redact import _rename

    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        for key in list(value.keys()):
            value[key] = clean_tree(value[key])
            if isinstance(key, str):
                new = clean_text(key)
                if new != key:
                    _rename(value, key, new)
        return value
    if isinstance(value, list):
        for i, item in enumerate(value):
            value[i] = clean_tree(item)
    return value


def allowlist(config) -> frozenset:
    """config `redaction.allowlist`: literal strings that are never redacted."""
    entries = ((config or {}).get("redaction") or {}).get("allowlist") or ()
    return frozenset(str(e) for e in entries)


def redact_raw(section: str, data: bytes, name: str, allow=()) -> tuple[bytes, Any, int]:
    """Redact a section whose text a person wrote, comments included, keeping its layout.

    Values and keys are redacted in the parsed document first (then the document is
    written back by ruamel, comments kept); then the whole text is redacted, which
    reaches what only the text holds: comments. The result must parse to the same
    data, else (a match that straddles YAML syntax) only comment text is redacted,
    and if even that is not clean the comments are dropped: a secret is never kept.
    Returns (text, plain document, number of secrets redacted).
    """
    rt = schema.parse(section, data, name)
    count = [0]
    redact_tree(rt, count, allow)
    text = yamlio.dump(rt) if count[0] else data.decode("utf-8")
    doc = yamlio.plain(rt)
    new, n = redact(text, allow)
    if n:
        for candidate in (new, _redact_comments(text, allow)):
            try:
                if yamlio.plain(schema.parse(section, candidate, name)) == doc:
                    text = candidate
                    break
            except InvalidState:
                continue
        else:
            text = yamlio.canonical(doc, "") or yamlio.dump(doc)
        count[0] += n
    return text.encode("utf-8"), doc, count[0]


def _redact_comments(text: str, allow=()) -> str:
    """Redact only what follows a `#` that starts a YAML comment (outside quotes), line by line."""
    out = []
    for line in text.splitlines(keepends=True):
        at = _comment_start(line)
        out.append(line if at < 0 else line[:at] + redact(line[at:], allow)[0])
    return "".join(out)


def _comment_start(line: str) -> int:
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"" and (i == 0 or line[i - 1] in " :[{,-"):
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return i
    return -1
