"""Secret redaction: nothing that looks like a credential is ever stored in memory.

Standard library only, and `re` is imported only when a text holds one of a kind's
trigger substrings (plain `in` tests), so the hooks can call it on the per-call path:
most texts pay a few substring searches and no regular expression at all. Each
secret is replaced by `[REDACTED:<kind>]`; the commit message says how many were
redacted, never what.

Bounded work (no super-linear pattern on agent or tool text):
- every pattern has bounded repetition and starts with a literal, and token kinds
  check the character before the literal *after* it (`x(?<![...].)`), so a run of
  token characters is entered once, not at every position;
- case-insensitive kinds run on an ASCII-lowered copy (same length, same offsets)
  with case-sensitive patterns, keeping the literal-prefix search;
- a text is cut to MAX_CHARS (512 KiB) before any analysis: what lies beyond is
  replaced by `[REDACTED:unscanned]` (nothing in memory is that long: values are at
  most 2,000 characters and a hand-edited file at most 256 KiB, so only a hostile
  input is cut);
- the rest is analysed in windows of WINDOW characters (256 KiB) that overlap by
  OVERLAP characters (20 KiB, longer than any secret a pattern can match).
So 4 MB of one token costs what 512 KiB costs: tens of milliseconds.

This module is the engine (redact, clip, find, redact_tree); which kinds there are, their
triggers, patterns and the checks that confirm a match are the table in
cogit/secret_kinds.py.
"""

from cogit.secret_kinds import CHECKS, HINTS, KINDS, TABLE, assignments, end_of_window

__all__ = ["KINDS", "clip", "find", "redact", "redact_tree"]

MAX_CHARS = 512 * 1024
WINDOW = 256 * 1024
OVERLAP = 20 * 1024

_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_COMPILED: dict[str, object] = {}
_CLEAN: set[str] = set()  # texts already found clean (most of a document, on every write)


def redact(text: str, allow=()) -> tuple[str, int]:
    """Return (text with secrets replaced, number of replacements).

    `allow`: literal strings never redacted (config `redaction.allowlist`): a match
    whose secret part equals an entry is kept.
    """
    if not text:
        return text, 0
    if len(text) > MAX_CHARS:
        head, n = redact(text[:MAX_CHARS], allow)
        return head + "[REDACTED:unscanned]", n + 1
    if text in _CLEAN:
        return text, 0
    spans = find(text, allow)
    if not spans:
        _remember_clean(text)
        return text, 0
    out, last = [], 0
    for start, end, kind in spans:
        out.append(text[last:start])
        out.append(f"[REDACTED:{kind}]")
        last = end
    out.append(text[last:])
    return "".join(out), len(spans)


def clip(text: str, head: int, tail: int = 0, gap: str = "…", allow=()) -> str:
    """Redact, then cut: `text` redacted, at most `head` characters of its start and `tail` of
    its end (around `gap`) kept, never a part of a secret.

    Cutting first would leave the start of a secret too short to be recognised (`ghp_` and
    20 characters) in a rule, a signature or a summary. The cut points are chosen in the
    original text, moved off any secret; only a window of OVERLAP characters past each cut
    point is analysed, so a 4 MB error text costs what its head and tail cost."""
    if not text:
        return text
    if len(text) <= head + tail:
        return redact(text, allow)[0]
    window = text[: head + OVERLAP]
    h = head
    spans = find(window, allow)
    for s, e, _ in spans:
        if s < h < e:
            h = s  # the secret that straddles the cut goes, whole
    # (a marker longer than its secret may be cut: it is cogit's own text)
    out = _replace(window, [sp for sp in spans if sp[1] <= h], 0, h)[:head]
    if tail <= 0:
        return out + gap
    offset = max(h, len(text) - tail - OVERLAP)
    window = text[offset:]
    t = len(text) - tail - offset
    spans = find(window, allow)
    for s, e, _ in spans:
        if s < t < e:
            t = e
    end = _replace(window, [sp for sp in spans if sp[0] >= t], t, len(window))
    return out + gap + end[len(end) - tail:]


def _replace(text: str, spans, start: int, end: int) -> str:
    out, last = [], start
    for s, e, kind in spans:
        out.append(text[last:s])
        out.append(f"[REDACTED:{kind}]")
        last = e
    out.append(text[last:end])
    return "".join(out)


def find(text: str, allow=()) -> list[tuple[int, int, str]]:
    """The secrets in a text as (start, end, kind), in order, not overlapping.

    No cut here (`cogit scan` reads whole blobs): the windows keep it linear."""
    low = None
    candidates = []
    for i, kind in enumerate(TABLE):
        if kind[5]:
            if low is None:
                low = text.translate(_LOWER)
            hay = low
        else:
            hay = text
        for t in kind[1]:
            if t in hay:
                hint = HINTS.get(kind[0])
                if hint is None or hint(hay, kind[1]):
                    candidates.append(i)
                break
    if not candidates:
        return []
    found, pos, n = [], 0, len(text)
    while pos < n:
        stop = min(n, pos + WINDOW + OVERLAP)
        window = text[pos:stop]
        wlow = low[pos:stop] if low is not None else None
        limit = len(window) if stop == n else WINDOW
        cut = limit
        for start, end, kind in _spans(window, wlow, candidates, allow):
            if start >= limit:
                break
            found.append((pos + start, pos + end, kind))
            cut = max(cut, end)
        pos += cut
    return found


def _remember_clean(text: str) -> None:
    if len(text) <= 4096:
        if len(_CLEAN) > 20000:
            _CLEAN.clear()
        _CLEAN.add(text)


def _spans(window: str, wlow: str | None, candidates: list[int], allow) -> list[tuple[int, int, str]]:
    """Non-overlapping (start, end, kind) of the secrets in one window, in order."""
    found = []
    for prio in candidates:
        kind, _, pattern, group, check, ci = TABLE[prio]
        rx = _COMPILED.get(kind)
        if rx is None:
            import re

            rx = _COMPILED[kind] = re.compile(pattern)
        hay = wlow if ci else window
        for m in (assignments(rx, hay, window) if kind == "secret" else rx.finditer(hay)):
            start, end = m.span(group)
            if check is not None:
                res = CHECKS[check](window, m, start, end)
                if not res:
                    continue
                if res is not True:
                    start, end, kind_found = res
                    found.append((start, end, prio, kind_found))
                    continue
            found.append((start, end, prio, kind))
    end_of_window()
    if not found:
        return []
    found.sort(key=lambda s: (s[0], -s[1], s[2]))
    spans, last = [], -1
    for start, end, _, kind in found:
        if start < last or end <= start:
            continue
        if allow and window[start:end] in allow:
            continue
        spans.append((start, end, kind))
        last = end
    return spans


def redact_tree(value, counter: list[int], allow=()):
    """Redact every string inside a document, keys of mappings included; returns the value.

    Mappings and sequences are changed in place (a ruamel document keeps its comments);
    a key whose redacted form collides with another keeps a ` (2)`-style suffix, so
    nothing is merged or lost.
    """
    if isinstance(value, str):
        new, n = redact(value, allow)
        counter[0] += n
        return new
    if isinstance(value, dict):
        for key in list(value.keys()):
            value[key] = redact_tree(value[key], counter, allow)
            if isinstance(key, str):
                new, n = redact(key, allow)
                if n:
                    counter[0] += n
                    _rename(value, key, new)
        return value
    if isinstance(value, list):
        for i, item in enumerate(value):
            value[i] = redact_tree(item, counter, allow)
        return value
    return value


def _rename(mapping: dict, old: str, new: str) -> None:
    """Rename a key in place, keeping its position (and, in ruamel maps, its comments)."""
    base, k = new, 2
    while new in mapping:
        new, k = f"{base} ({k})", k + 1
    keys = list(mapping.keys())
    pos = keys.index(old)
    val = mapping.pop(old)
    if hasattr(mapping, "insert"):  # ruamel's CommentedMap
        comment = getattr(mapping, "ca", None)
        mapping.insert(pos, new, val)
        if comment is not None and old in comment.items:
            comment.items[new] = comment.items.pop(old)
        return
    tail = [(k2, mapping.pop(k2)) for k2 in keys[pos + 1:]]
    mapping[new] = val
    mapping.update(tail)
