"""cogit/learn/remember.py is held to the regular expressions it replaced (kept here only):
the same lesson, or none, for every text hypothesis builds from the phrasings' vocabulary."""

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogit.learn import prompts, remember

# The patterns cogit/learn/prompts.py ran before the hand-written matcher, verbatim.
_LEAD = (r"(?:(?:also|and|oh|ah|ok|okay|so|plus|btw|by\s+the\s+way|one\s+more\s+thing|one\s+last\s+thing|"
         r"important|fyi)\s*[,:;!\-–—]?\s+)*")
_POLITE = r"(?P<please>(?:please|pls|plz|kindly)\s*,?\s+)?"
_DONT = r"(?:don['’]?t|do\s+not|never)\s+forget"
_MEM = r"(?:remember|memori[sz]e)"
_EXPLICIT = re.compile(
    r"(?:^|(?<=[.!?\n]))\s*(?=[a-z])" + _LEAD + _POLITE +
    r"(?:"
    r"(?:" + _MEM + r"|" + _DONT + r")(?:\s+(?:this|that))?\s*[:\-–—]\s*"
    r"|" + _MEM + r"\s*,\s+"
    r"|(?:" + _MEM + r"|" + _DONT + r")\s+that\s+"
    r"|(?:remember|" + _DONT + r")\s+(?P<to>to\s+)"
    r"|keep\s+(?:(?:this|that)\s+)?in\s+mind\s*[:\-–—,]?\s*(?:that\s+)?"
    r"|(?:i\s+want|i['’]?d\s+like|i\s+need)\s+you\s+to\s+" + _MEM + r"(?:\s+(?:this|that))?\s*[:\-–—,]?\s*"
    r"|(?:make|take)\s+a\s+note(?:\s+of\s+(?:this|that))?\s*[:\-–—]\s*"
    r"|for\s+future\s+reference\s*[:\-–—,]\s*"
    r"|note\s*:\s*"
    r"|(?(please)" + _MEM + r"\s+(?!(?:to|me|you|what|when|how|why|where|who|if|whether)\b)|(?!))"
    r")"
    r"(?P<text>\S.*?)\s*(?:$|\n\n)",
    re.IGNORECASE | re.DOTALL,
)
_TURN = re.compile(
    r"(?:(?<=[.!?;])\s+|\s*\n\s*)(?=(?:now|then|next|ok|okay|alright|anyway|anyways|first|please|pls|"
    r"can\s+you|could\s+you|would\s+you|will\s+you|let['’]?s|go\s+ahead|back\s+to|meanwhile|moving\s+on|"
    r"thanks|thank\s+you|thx|ty|but\s+first|right|so\s+now|after\s+that|also\s+(?:fix|run|add|check|update|make))\b)",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\s*\n\s*")
_LASTING = re.compile(r"\b(?:always|never|every\s+time|each\s+time|whenever|from\s+now\s+on|in\s+(?:the\s+)?future|"
                      r"going\s+forward|before\s+(?:every|each|any)|after\s+(?:every|each|any)|by\s+default)\b", re.IGNORECASE)
_AFTER = re.compile(
    r"(?:^|(?<=[.!?\n]))\s*(?P<text>[^.!?\n]*?[^\s.!?,;:\-–—])\s*[,;:.!\-–—]+\s*(?:so\s+|and\s+)?(?:please\s+)?"
    r"(?:(?:" + _MEM + r"|" + _DONT + r")\s+(?:this|that)|keep\s+(?:this|that)\s+in\s+mind)"
    r"(?:\s*,?\s*please)?\s*[.!]*\s*(?:$|\n)",
    re.IGNORECASE,
)


def old_matched_request(text):
    lesson = None
    m = _EXPLICIT.search(text)
    if m:
        lesson = _TURN.split(m.group("text"), maxsplit=1)[0]
        first = _SENTENCE.split(lesson, maxsplit=1)[0].rstrip()
        if first.endswith("?"):
            return None
        if m.group("to") is not None and not _LASTING.search(lesson):
            return None
        lesson = prompts._clean(lesson)
    if lesson is None or sum(c.isalnum() for c in lesson[:50]) < 3:
        m = _AFTER.search(text)
        if not m or len(m.group("text").split()) < 3:
            return None
        lesson = prompts._clean(m.group("text"))
    if sum(c.isalnum() for c in lesson[:50]) < 3:
        return None
    return lesson if len(lesson) <= prompts.MAX_TEXT else lesson[: prompts.MAX_TEXT - 1] + "…"


WORDS = ("remember", "Remember", "REMEMBER", "memorize", "memorise", "memoriZe", "don't", "don’t", "dont", "do", "not",
         "never", "forget", "this", "that", "This", "to", "keep", "in", "mind", "i", "I", "want", "I'd", "i’d", "id",
         "like", "need", "you", "make", "take", "a", "note", "of", "for", "future", "reference", "please", "Please",
         "pls", "plz", "kindly", "also", "Also", "and", "oh", "ah", "ok", "okay", "so", "plus", "btw", "by", "the", "way",
         "one", "more", "last", "thing", "important", "fyi", "me", "what", "when", "how", "why", "where", "who", "if",
         "whether", "now", "then", "next", "alright", "anyway", "anyways", "first", "can", "could", "would", "will",
         "let's", "let’s", "lets", "go", "ahead", "back", "meanwhile", "moving", "on", "thanks", "thank", "thx", "ty",
         "but", "right", "after", "fix", "run", "add", "check", "update", "always", "every", "time", "each",
         "whenever", "from", "going", "forward", "before", "any", "default", "tests", "linter", "x", "bug", "_",
         "remembered", "thistle", "tomorrow", "keeper", "notes", "anything", "everything", "İ", "ı", "ſ", "K",
         "KEEP", "ſo", "thıs", "İn", "deploy", "main", "42", "é")
SEPS = (" ", "  ", "\n", "\n\n", "\t", "\u2003", " \n ", ".", ". ", "!", "?", "? ", ";", ":", ": ", ",", ", ", "-", " - ",
        "–", "—", "'", "…", "...", "\n\n\n", ".\n", "!!")
pieces = st.lists(st.one_of(st.sampled_from(WORDS), st.sampled_from(SEPS), st.text(max_size=2)), max_size=24)
texts = pieces.map("".join)
structured = st.lists(st.sampled_from(WORDS), min_size=1, max_size=14).flatmap(
    lambda ws: st.lists(st.sampled_from(SEPS), min_size=len(ws), max_size=len(ws)).map(
        lambda ss: "".join(w + s for w, s in zip(ws, ss))))
PHRASES = ("remember this", "remember that", "Remember", "remember", "memorise this", "don't forget", "do not forget",
           "never forget", "remember to", "don’t forget to", "keep in mind", "keep this in mind", "keep that in mind",
           "I want you to remember", "i'd like you to memorize that", "I need you to remember this", "make a note",
           "take a note of that", "for future reference", "note", "please", "pls", "kindly", "also", "ok so", "by the way",
           "one more thing", "btw", "always", "from now on", "in the future", "before every", "by default", "never",
           "now", "then", "can you", "thanks", "let's", "also fix", "run the linter before committing", "use tabs",
           "the deploy key lives in vault", "what", "to", "me", "that", "this", "so", "and please", "please remember this")
SHORT_SEPS = (" ", " ", " ", ": ", ", ", ". ", "! ", "? ", "\n", "\n\n", " - ", ":", ",", ".", "", "; ", " — ")
grammar = st.lists(st.tuples(st.sampled_from(PHRASES + WORDS[:40]), st.sampled_from(SHORT_SEPS)), min_size=1,
                   max_size=10).map(lambda ps: "".join(a + b for a, b in ps))
FAST = settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(st.one_of(texts, structured, grammar, grammar))
def test_explicit_matches_the_expression(text):
    m = _EXPLICIT.search(text)
    assert remember.explicit(text) == ((m.group("text"), m.group("to") is not None) if m else None)


@FAST
@given(st.one_of(texts, structured, grammar, grammar))
def test_after_matches_the_expression(text):
    m = _AFTER.search(text)
    assert remember.after(text) == (m.group("text") if m else None)


@FAST
@given(st.one_of(texts, structured, grammar, grammar))
def test_turn_sentence_lasting_match_the_expressions(text):
    assert remember.turn_cut(text) == _TURN.split(text, maxsplit=1)[0]
    assert remember.first_sentence(text) == _SENTENCE.split(text, maxsplit=1)[0]
    assert remember.lasting(text) == bool(_LASTING.search(text))


@FAST
@given(st.one_of(texts, structured, grammar, grammar))
def test_the_lesson_matches_the_expressions(text):
    assert prompts.matched_request(text) == old_matched_request(text)


def test_the_fold_is_the_one_re_uses():
    """IGNORECASE matches these non-ASCII characters to ASCII letters, and no others."""
    import sys

    extra = {chr(c): x for c in range(128, sys.maxunicode + 1) for x in [chr(c).translate(remember._FOLD)]
             if x != chr(c)}
    found = {chr(c) for c in range(128, sys.maxunicode + 1) if re.fullmatch("[a-z]", chr(c), re.IGNORECASE)}
    assert set(extra) == found
    for c, x in extra.items():
        assert re.fullmatch(x, c, re.IGNORECASE)
