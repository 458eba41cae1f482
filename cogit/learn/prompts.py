"""What a user prompt says about memory: explicit requests, praise, engagement.

Standard library only (it runs in the UserPromptSubmit hook). Only the user's own
prompt is analysed: text from tool output (a web page, a file) never reaches here,
so "remember this" inside a fetched page can never become memory.
"""

from __future__ import annotations

import re

from cogit import bounds

MAX_TEXT = 500

# "remember this: X", "remember that X", "remember: X", "please remember X", "note: X".
_EXPLICIT = re.compile(
    r"(?:^|(?<=[.!?\n]))\s*(?:please\s+|pls\s+|and\s+)?"
    r"(?:(?:remember|memorize|memorise)(?:\s+(?:this|that))?\s*[:\-–—]\s*|remember\s+that\s+|note\s*:\s*)"
    r"(?P<text>\S.*?)\s*(?:$|\n\n)",
    re.IGNORECASE | re.DOTALL,
)

_PRAISE_WORDS = re.compile(
    r"\b(perfect|exactly|love it|loved it|great job|nice work|nailed it|awesome|brilliant|excellent|"
    r"well done|that's it|that is it|spot on|fantastic|beautiful)\b",
    re.IGNORECASE,
)
_PRAISE_EMOJI = ("🎉", "🙌", "🥳", "👏", "💯", "🔥", "✨", "🚀", "❤️", "😍", "👌")
_NEGATION = re.compile(r"\b(not|n't|never|no)\s+(quite\s+)?(perfect|exactly|great|awesome)\b", re.IGNORECASE)
# White space is shortened before any pattern runs: `\s*` tried at every newline of a long
# run of blank lines would rescan the run (quadratic). A run of spaces becomes one space and
# a run holding two or more line breaks one blank line, so no run is longer than 3 characters.
_HSPACE = re.compile(r"[^\S\n]{2,}")
_BLANK = re.compile(r"\s*\n\s*\n\s*")


def bounded(prompt) -> str:
    """The prompt as analysed: its first PROMPT_HEAD and last PROMPT_TAIL characters
    (cogit/bounds.py), its white space shortened."""
    if not isinstance(prompt, str):
        return ""
    text = bounds.cut(prompt, bounds.PROMPT_HEAD, bounds.PROMPT_TAIL)
    return _BLANK.sub("\n\n", _HSPACE.sub(" ", text))


_THROWAWAY = re.compile(r"^\s*(ok(ay)?|k|yes|yep|no|nope|thanks?( you)?|thx|continue|go on|go ahead|sure|y|n|lgtm)[.! ]*$", re.IGNORECASE)


def explicit_request(prompt: str) -> str | None:
    """The text the user asked to remember, or None."""
    m = _EXPLICIT.search(bounded(prompt))
    if not m:
        return None
    text = " ".join(m.group("text").split()).strip(" \"'")
    if len(text) < 3:
        return None
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def praise(prompt: str) -> str | None:
    """The praise in a prompt (evidence that the previous turn's approach worked)."""
    text = bounded(prompt)
    if _NEGATION.search(text):
        return None
    m = _PRAISE_WORDS.search(text)
    if m:
        return m.group(0)
    for emoji in _PRAISE_EMOJI:
        if emoji in text:
            return emoji
    return None


def meaningful(prompt: str, min_chars: int = 40) -> bool:
    """A real request or discussion, as opposed to a throwaway acknowledgement."""
    text = bounds.cut(prompt, bounds.PROMPT_HEAD, bounds.PROMPT_TAIL).strip() if isinstance(prompt, str) else ""
    if _THROWAWAY.match(text):
        return False
    return len(text) >= min_chars and len(text.split()) >= 6
