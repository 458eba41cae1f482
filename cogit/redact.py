"""Secret redaction: nothing that looks like a credential is ever stored in memory.

Standard library only, so the hooks can use it too. Each match is replaced by
`[REDACTED:<kind>]`; the commit message says how many were redacted, never what.
"""

from __future__ import annotations

import re

_PATTERNS = [
    ("private-key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)", re.S)),
    ("aws-key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})\b")),
    ("api-key", re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}")),
    ("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("google-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}")),
    ("url-credentials", re.compile(r"(?<=://)[^/\s:@]+:[^/\s@]+(?=@)")),
    (
        "assignment",
        re.compile(
            r"(?i)(?<![A-Za-z0-9])((?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|auth)"
            r"\s*[:=]\s*)(['\"]?)([^\s'\"]{6,})\2"
        ),
    ),
]


_CLEAN: set[str] = set()  # strings already found clean (most of a document, on every write)


def redact(text: str) -> tuple[str, int]:
    """Return (text with secrets replaced, number of replacements)."""
    if text in _CLEAN:
        return text, 0
    original = text
    total = 0
    for kind, pattern in _PATTERNS:
        if kind == "assignment":
            text, n = pattern.subn(lambda m: f"{m.group(1)}[REDACTED:secret]", text)
        else:
            text, n = pattern.subn(f"[REDACTED:{kind}]", text)
        total += n
    if not total:
        if len(_CLEAN) > 20000:
            _CLEAN.clear()
        _CLEAN.add(original)
    return text, total


def redact_tree(value, counter: list[int]):
    """Redact every string inside a document, in place where it can; returns the value."""
    if isinstance(value, str):
        new, n = redact(value)
        counter[0] += n
        return new
    if isinstance(value, dict):
        for key in list(value.keys()):
            value[key] = redact_tree(value[key], counter)
        return value
    if isinstance(value, list):
        for i, item in enumerate(value):
            value[i] = redact_tree(item, counter)
        return value
    return value
