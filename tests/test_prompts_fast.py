"""The prompt hook's checks without `re` for most prompts give the answers of the patterns.

cogit/learn/prompts.py runs cheap substring checks before any regular expression (so the
UserPromptSubmit hook imports `re` only for prompts that may match); the reference here
is the pattern-only definition it had before."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from cogit import bounds
from cogit.learn import prompts

PRAISE = re.compile(
    r"\b(perfect|exactly|love it|loved it|great job|nice work|nailed it|awesome|brilliant|excellent|"
    r"well done|that's it|that is it|spot on|fantastic|beautiful)\b", re.IGNORECASE)
NEGATION = re.compile(r"\b(not|n't|never|no)\s+(quite\s+)?(perfect|exactly|great|awesome)\b", re.IGNORECASE)
HSPACE = re.compile(r"[^\S\n]{2,}")
BLANK = re.compile(r"\s*\n\s*\n\s*")
THROWAWAY = re.compile(r"^\s*(ok(ay)?|k|yes|yep|no|nope|thanks?( you)?|thx|continue|go on|go ahead|sure|y|n|lgtm)[.! ]*$",
                       re.IGNORECASE)


def ref_bounded(prompt):
    if not isinstance(prompt, str):
        return ""
    return BLANK.sub("\n\n", HSPACE.sub(" ", bounds.cut(prompt, bounds.PROMPT_HEAD, bounds.PROMPT_TAIL)))


def ref_explicit(prompt):
    # The patterns themselves (prompts.matched_request) on the reference bounding: what is
    # compared is the substring shortcut and the white-space shortcut in front of them.
    return prompts.matched_request(ref_bounded(prompt))


def ref_praise(prompt):
    text = ref_bounded(prompt)
    if NEGATION.search(text):
        return None
    m = PRAISE.search(text)
    if m:
        return m.group(0)
    return next((e for e in prompts._PRAISE_EMOJI if e in text), None)


def ref_meaningful(prompt, min_chars=40):
    text = bounds.cut(prompt, bounds.PROMPT_HEAD, bounds.PROMPT_TAIL).strip() if isinstance(prompt, str) else ""
    if THROWAWAY.match(text):
        return False
    return len(text) >= min_chars and len(text.split()) >= 6


WORDS = ["remember", "Remember this:", "REMEMBER THAT", "memorise -", "memoriſe:", "note:", "NOTE :", "please", "pls",
         "and", "perfect", "not", "n't", "never", "no", "quite", "exactly", "great", "great job", "Nailed it", "awesome",
         "that's it", "spot on", "ok", "okay", "thanks", "thank you", "lgtm", "go ahead", "K", "the", "tests",
         "🎉", "🔥", "x", ".", "!", "?", "-", "—", ":", "İ", "ı",
         "Also, remember this:", "Please remember", "don't forget:", "Don’t forget that", "keep in mind", "KEEP THIS IN MIND",
         "remember to", "always", "Now", "then", "remember that.", "for future reference", "note", ",", "forget", "mind", "keep in\nmind", "future\nreference:"]
SPACES = [" ", "  ", "\n", "\n\n", "\n\n\n", " \n", "\n ", "\t", "\r\n", "\u00a0", "\u2028", "\x1c", ""]
texts = st.lists(st.one_of(st.sampled_from(WORDS), st.sampled_from(SPACES), st.text(max_size=6)), max_size=30).map("".join)


@settings(max_examples=1500, deadline=None)
@given(texts)
def test_prompt_checks_equal_the_patterns(text):
    assert prompts.bounded(text) == ref_bounded(text)
    assert prompts.explicit_request(text) == ref_explicit(text)
    assert prompts.praise(text) == ref_praise(text)
    assert prompts.meaningful(text) == ref_meaningful(text)
    assert prompts.meaningful(text, 5) == ref_meaningful(text, 5)


def test_examples():
    for text in ["Remember this: run pytest -q", "ok", "ok....  !!", "thank you!", "perfect, thanks", "not quite perfect 🎉",
                 "not great 🎉", "that was great 🎉", "please remember that the API is v2\n\nand more", "x" * 50,
                 "ok . . . . . . . . . . . . . . . . . . . . .", "note:  a\n\n\n  b"]:
        assert (prompts.explicit_request(text), prompts.praise(text), prompts.meaningful(text), prompts.bounded(text)) == \
               (ref_explicit(text), ref_praise(text), ref_meaningful(text), ref_bounded(text)), text


def test_an_ordinary_prompt_needs_no_re():
    import subprocess
    import sys

    root = str(__import__("pathlib").Path(prompts.__file__).parents[2])
    # -S: no site (an editable install's finder imports re at start-up); the package by path
    code = (f"import sys; sys.path.insert(0, {root!r}); from cogit.learn import prompts; t = 'Please fix the failing test in module 3 and explain why.';"
            "prompts.explicit_request(t); prompts.praise(t); prompts.meaningful(t); print('re' in sys.modules)")
    out = subprocess.run([sys.executable, "-E", "-P", "-S", "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
