"""What a user prompt says about memory: explicit requests, praise, engagement.

Standard library only (it runs in the UserPromptSubmit hook). Only the user's own
prompt is analysed: text from tool output (a web page, a file) never reaches here,
so "remember this" inside a fetched page can never become memory.
"""


from cogit import bounds
from cogit.learn import remember
from cogit.senses.text import IGNORECASE, LazyRe

# `import re` (enum, functools, the compiler: several ms) is paid only by a prompt that
# may match: cheap substring checks go first, and the patterns compile on first use.

MAX_TEXT = 500

# What counts as a request to remember ("remember this: X", "Also, please remember X",
# "don't forget to always X", "keep in mind that X", "for future reference: X", "X. Remember
# that." ...) is matched by hand in cogit/learn/remember.py: importing `re` and compiling
# these patterns was most of a "remember this" prompt's hook time. "remember to X" / "don't
# forget to X" is usually a reminder for the task at hand, so it is learned only when it
# says it lasts ("always", "never", "from now on" ...). The lesson ends where the prompt
# turns to the task ("Remember this: X. Now do Y" keeps X only).
_EXPLICIT_WORDS = ("remember", "memoriz", "memoris", "note", "forget", "mind", "reference")

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
    """The text the user asked to remember (the lesson only), or None."""
    text = bounded(prompt)
    folded = _folded(text)
    if not any(word in folded for word in _EXPLICIT_WORDS):
        return None  # every pattern needs one of these words
    return matched_request(text)


def matched_request(text: str) -> str | None:
    """explicit_request on an already bounded text, without the substring shortcut."""
    lesson = None
    m = remember.explicit(text)
    if m:
        lesson = remember.turn_cut(m[0])
        first = remember.first_sentence(lesson).rstrip()
        if first.endswith("?"):
            return None  # "Remember that bug from Tuesday?" asks; it does not teach
        if m[1] and not remember.lasting(lesson):
            return None  # "remember to run the tests": a reminder for this task
        lesson = _clean(lesson)
    if lesson is None or sum(c.isalnum() for c in lesson[:50]) < 3:  # nothing after it: "X. Keep that in mind!"
        before = remember.after(text)
        if not before or len(before.split()) < 3:
            return None
        lesson = _clean(before)
    if sum(c.isalnum() for c in lesson[:50]) < 3:
        return None  # "remember: ..." or "Remember , , ,": nothing to learn
    return lesson if len(lesson) <= MAX_TEXT else lesson[: MAX_TEXT - 1] + "…"


def _clean(text: str) -> str:
    return " ".join(text.split()).strip(" \"'")


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


# A session's title is its first prompt (the report names sessions by it). The hook keeps
# a bounded head, cut only at white space: a secret has none, so no cut leaves a piece of
# one that redaction could no longer recognise. The fold redacts it, shortens paths and
# cuts it to the trailer's length (cogit/learn/session_trailers.py); the store redacts again.
TITLE_HEAD = 600


def title(prompt) -> str:
    """The head of a first prompt as the session state keeps it (no lock, no `re`)."""
    if not isinstance(prompt, str):
        return ""
    words = prompt[: TITLE_HEAD * 2].split()
    if len(prompt) > TITLE_HEAD * 2 and not prompt[TITLE_HEAD * 2].isspace():
        words = words[:-1]  # the slice may have cut the last word (a secret) in two
    out, size = [], 0
    for w in words:
        if size + len(w) + 1 > TITLE_HEAD:
            break
        out.append(w)
        size += len(w) + 1
    return " ".join(out)
