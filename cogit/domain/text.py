"""What text may be stored: no control characters but tab and newline, no lone surrogates.

A NUL or another control character in a commit message makes a commit `git fsck`
refuses (and a forge that checks objects then refuses every later push); a lone
surrogate (a JSON `\\ud800`) cannot be encoded at all. The write path cleans every stored
string and the git adapter every commit message with `clean_text`. Pure.
"""

_CONTROL = dict.fromkeys([c for c in range(32) if c not in (9, 10)] + list(range(0x7F, 0xA0)))


def clean_text(text: str) -> str:
    """`text` without control characters, a lone surrogate (from a JSON `\\ud800`) as U+FFFD."""
    if text.isascii() and text.replace("\n", "").replace("\t", "").isprintable():
        return text
    text = text.translate(_CONTROL)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
    return text
