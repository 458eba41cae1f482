"""What a user prompt says about memory: explicit requests, praise, engagement.

Standard library only (it runs in the UserPromptSubmit hook). Only the user's own
prompt is analysed: text from tool output (a web page, a file) never reaches here,
so "remember this" inside a fetched page can never become memory.
"""


from cogit import bounds
from cogit.senses.text import DOTALL, IGNORECASE, LazyRe

# `import re` (enum, functools, the compiler: several ms) is paid only by a prompt that
# may match: cheap substring checks go first, and the patterns compile on first use.

MAX_TEXT = 500

# "remember this: X", "remember that X", "remember: X", "please remember X", "note: X".
_EXPLICIT = LazyRe(
    r"(?:^|(?<=[.!?\n]))\s*(?:please\s+|pls\s+|and\s+)?"
    r"(?:(?:remember|memorize|memorise)(?:\s+(?:this|that))?\s*[:\-–—]\s*|remember\s+that\s+|note\s*:\s*)"
    r"(?P<text>\S.*?)\s*(?:$|\n\n)",
    IGNORECASE | DOTALL,
)
_EXPLICIT_WORDS = ("remember", "memoriz", "memoris", "note")

_PRAISE_LIST = ("perfect", "exactly", "love it", "loved it", "great job", "nice work", "nailed it", "awesome", "brilliant",
                "excellent", "well done", "that's it", "that is it", "spot on", "fantastic", "beautiful")
_PRAISE_WORDS = LazyRe(r"\b(" + "|".join(_PRAISE_LIST) + r")\b", IGNORECASE)
_PRAISE_EMOJI = ("🎉", "🙌", "🥳", "👏", "💯", "🔥", "✨", "🚀", "❤️", "😍", "👌")
_NEGATION = LazyRe(r"\b(not|n't|never|no)\s+(quite\s+)?(perfect|exactly|great|awesome)\b", IGNORECASE)
# White space is shortened before any pattern runs: `\s*` tried at every newline of a long
# run of blank lines would rescan the run (quadratic). A run of spaces becomes one space and
# a run holding two or more line breaks one blank line, so no run is longer than 3 characters.
_HSPACE = LazyRe(r"[^\S\n]{2,}")
_BLANK = LazyRe(r"\s*\n\s*\n\s*")


def _folded(text: str) -> str:
    """`text` case-folded for substring checks that must find whatever IGNORECASE would
    match (casefold maps ſ to s and K to k as re does; İ folds to two characters)."""
    return text.casefold().replace("i\u0307", "i")


def _spacing_is_short(text: str) -> bool:
    """True when neither _HSPACE nor _BLANK would change `text`: its only white space is
    single spaces, single newlines and bare blank lines ("\n\n")."""
    if not {c for c in set(text) if c.isspace()} <= {" ", "\n"}:
        return False
    return "  " not in text and "\n\n\n" not in text and " \n" not in text and "\n " not in text


def bounded(prompt) -> str:
    """The prompt as analysed: its first PROMPT_HEAD and last PROMPT_TAIL characters
    (cogit/bounds.py), its white space shortened."""
    if not isinstance(prompt, str):
        return ""
    text = bounds.cut(prompt, bounds.PROMPT_HEAD, bounds.PROMPT_TAIL)
    if _spacing_is_short(text):
        return text
    return _BLANK.sub("\n\n", _HSPACE.sub(" ", text))


# A throwaway acknowledgement: one of these (any case), then only `.`, `!` or spaces.
_THROWAWAY = frozenset(("ok", "okay", "k", "yes", "yep", "no", "nope", "thank", "thanks", "thank you", "thanks you",
                        "thx", "continue", "go on", "go ahead", "sure", "y", "n", "lgtm"))


def explicit_request(prompt: str) -> str | None:
    """The text the user asked to remember, or None."""
    text = bounded(prompt)
    folded = _folded(text)
    if not any(word in folded for word in _EXPLICIT_WORDS):
        return None  # the pattern needs one of these words
    m = _EXPLICIT.search(text)
    if not m:
        return None
    text = " ".join(m.group("text").split()).strip(" \"'")
    if len(text) < 3:
        return None
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def praise(prompt: str) -> str | None:
    """The praise in a prompt (evidence that the previous turn's approach worked)."""
    text = bounded(prompt)
    folded = _folded(text)
    if not any(word in folded for word in _PRAISE_LIST) and "great" not in folded:  # _NEGATION needs one too
        return next((emoji for emoji in _PRAISE_EMOJI if emoji in text), None)
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
    if len(text) < min_chars or len(text.split()) < 6:
        return False
    return _folded(text.rstrip(".! ")) not in _THROWAWAY
