"""The frame around what cogit injects: no text inside a block can end it or open another.

cogit tells a model what memory holds inside tags: the digest in `<cogit-memory>` …
`</cogit-memory>`, a per-turn update in `<cogit-memory-update>` … `</cogit-memory-update>`.
The agents wrap hook output in frames of their own: Claude Code in `<system-reminder>`,
Gemini CLI in `<hook_context>` (and it shows every `<` as `&lt;`, so `&lt;/cogit-memory&gt;`
in an item would read exactly as cogit's own closing tag there). Item texts, sense messages
and MCP answers quote what strangers wrote (a pulled memory, a tool's output, a model's
answer), so a tag in them would end the block early and let the rest pose as the user's
or the system's words.

`neutral(text)`: every tag-like `<name` (also `</ name`, `&lt;name`, `&#60;name`, a
full-width `＜name`) whose name starts with one of FRAME_NAMES gets its `<` replaced by
`‹`, which no agent reads as a tag; characters that do not show (zero-width, bidi
controls, Unicode tag characters) and control characters other than tab and newline are
dropped first, so `</cog\u200bit-memory>` is caught too. `guard(text)`: the same for a
whole reply, keeping only cogit's own frame lines (an opening tag on a line of its own,
closed by its closing tag on a line of its own). The digest compiler and the per-turn
update neutralise each line they build; the hooks guard every reply at the one place
they all pass (cogit/hooks/core.py `handle`), and the MCP server every answer.

Standard library only, no `re`: this runs on every prompt.
"""

FRAME_NAMES = ("cogit", "system", "hook", "user-prompt", "user_prompt")
FRAMES = {"<cogit-memory>": "</cogit-memory>", "<cogit-memory-update>": "</cogit-memory-update>"}
SAFE_LT = "\u2039"  # ‹
_OPENERS = ("<", "\uff1c", "\ufe64", "&lt;", "&#60;", "&#x3c;", "&#060;")
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _dropped() -> dict:
    cps = [c for c in range(0x20) if c not in (9, 10)] + list(range(0x7F, 0xA0))
    cps += [0xAD, 0x61C, 0x180E, *range(0x200B, 0x2010), *range(0x202A, 0x202F), *range(0x2060, 0x2065),
            *range(0x2066, 0x2070), 0xFEFF, *range(0xFFF9, 0xFFFC), *range(0xE0000, 0xE0080)]
    return dict.fromkeys(cps)


_DROP: dict = {}


def clean(text: str) -> str:
    """`text` without control characters (but tab and newline) and characters that do not show."""
    if text.isascii() and text.replace("\n", "").replace("\t", "").isprintable():
        return text
    if not _DROP:
        _DROP.update(_dropped())
    return text.translate(_DROP)


def neutral(text: str) -> str:
    """`text` with every framing tag made harmless (see the module's docstring)."""
    if not text:
        return text
    text = clean(text)
    if "<" not in text and "&" not in text and text.isascii():
        return text
    low = text.translate(_LOWER)  # ASCII only: the same length, the same offsets
    hits = []
    for opener in _OPENERS:
        i = low.find(opener)
        while i >= 0:
            j = i + len(opener)
            k = j
            while k < len(low) and k - j < 8 and low[k] in " \t\n/\\":
                k += 1
            if low.startswith(FRAME_NAMES, k):
                hits.append((i, j))
            i = low.find(opener, j)
    if not hits:
        return text
    out, last = [], 0
    for i, j in sorted(hits):
        out.append(text[last:i])
        out.append(SAFE_LT)
        last = j
    out.append(text[last:])
    return "".join(out)


def block(open_tag: str, lines: list[str], close_tag: str) -> str:
    """A block of cogit's: its frame, and between them the lines neutralised."""
    return "\n".join([open_tag, *(neutral(line) for line in lines), close_tag])


def guard(text: str | None) -> str | None:
    """A reply as it may reach a model: cogit's own frame lines kept, every other tag neutralised.

    A frame is an opening tag alone on a line and the last line holding its closing tag
    alone before the next frame of another kind opens (or the text ends); an opening tag
    that is never closed is no frame."""
    if not text:
        return text
    lines = text.split("\n")
    keep: set[int] = set()
    i = 0
    while i < len(lines):
        close = FRAMES.get(lines[i])
        if close is None:
            i += 1
            continue
        end = None
        j = i + 1
        while j < len(lines):
            if lines[j] == close:
                end = j
            elif lines[j] in FRAMES and lines[j] != lines[i]:
                break
            j += 1
        if end is None:
            i += 1
            continue
        keep.update((i, end))
        i = end + 1
    return "\n".join(line if n in keep else neutral(line) for n, line in enumerate(lines))
