"""The "remember this" matcher: what cogit/learn/prompts.py recognises, by hand, without `re`.

A prompt that asks to remember ran five regular expressions, and importing `re` (enum,
functools, the compiler) and compiling them was most of the hook's time (2.5x `python -c
pass`). These functions do what those expressions did, character by character; the
expressions themselves live on in tests/test_remember_matcher.py, which holds this module
to them (hypothesis over the phrasings' vocabulary). Every scan is linear in the text apart
from short bounded look-aheads, so no input is slow.

Case-insensitive as `re.IGNORECASE` is: a folded copy of the text (same length, same
offsets) maps A-Z to a-z and the four other characters `re` matches to ASCII letters
(İ and ı to i, ſ to s, the Kelvin sign to k); white space is `str.isspace`, a word
character `str.isalnum` or `_`, as in `re`'s Unicode mode.
"""

_FOLD = str.maketrans({**{chr(c): chr(c + 32) for c in range(65, 91)},
                       "\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})

_MEM = (("remember",), ("memorize",), ("memorise",))
_DONT = (("don't", "forget"), ("don’t", "forget"), ("dont", "forget"), ("do", "not", "forget"), ("never", "forget"))
_LEAD = (("also",), ("and",), ("oh",), ("ah",), ("ok",), ("okay",), ("so",), ("plus",), ("btw",), ("by", "the", "way"),
         ("one", "more", "thing"), ("one", "last", "thing"), ("important",), ("fyi",))
_POLITE = ("please", "pls", "plz", "kindly")
_DASH = ":-–—"  # [:\-–—]
_LEAD_PUNCT = ",:;!-–—"
_NOT_AFTER_PLEASE = ("to", "me", "you", "what", "when", "how", "why", "where", "who", "if", "whether")
_TURN = tuple(tuple(w.split()) for w in (
    "now", "then", "next", "ok", "okay", "alright", "anyway", "anyways", "first", "please", "pls", "can you",
    "could you", "would you", "will you", "let's", "let’s", "lets", "go ahead", "back to", "meanwhile", "moving on",
    "thanks", "thank you", "thx", "ty", "but first", "right", "so now", "after that", "also fix", "also run",
    "also add", "also check", "also update", "also make"))
_LASTING = tuple(tuple(w.split()) for w in (
    "always", "never", "every time", "each time", "whenever", "from now on", "in the future", "in future",
    "going forward", "before every", "before each", "before any", "after every", "after each", "after any",
    "by default"))
_AFTER_SEP = ",;:.!-–—"
_AFTER_LAST_NOT = ".!?,;:-–—"


class _Text:
    __slots__ = ("t", "f", "n")

    def __init__(self, text: str):
        self.t, self.f, self.n = text, text.translate(_FOLD), len(text)

    def ws(self, i: int) -> int:
        """The end of the white space starting at i."""
        t, n = self.t, self.n
        while i < n and t[i].isspace():
            i += 1
        return i

    def seq(self, i: int, words) -> int:
        """The end of `words` at i, separated by white space (`\\s+`), or -1."""
        f = self.f
        for k, w in enumerate(words):
            if k:
                j = self.ws(i)
                if j == i:
                    return -1
                i = j
            if not f.startswith(w, i):
                return -1
            i += len(w)
        return i

    def any_seq(self, i: int, options) -> int:
        for words in options:
            j = self.seq(i, words)
            if j >= 0:
                return j
        return -1

    def word_end(self, i: int) -> bool:
        """`\\b` after a word character at i-1: i is the end or not a word character."""
        return i >= self.n or not (self.t[i].isalnum() or self.t[i] == "_")

    def this(self, i: int) -> int:
        return i + 4 if self.f.startswith("this", i) or self.f.startswith("that", i) else -1


def _lead(x: _Text, i: int) -> int:
    """After the run of lead-ins at i ("also, ", "ok so ", "by the way: ")."""
    while True:
        for words in _LEAD:
            j = x.seq(i, words)
            if j < 0:
                continue
            k = x.ws(j)
            if k < x.n and x.t[k] in _LEAD_PUNCT:
                m = x.ws(k + 1)
                if m > k + 1:
                    i = m
                    break
            elif k > j:
                i = k
                break
        else:
            return i


def _polite(x: _Text, i: int) -> int:
    """After "please " / "pls, " at i, or -1."""
    for w in _POLITE:
        if x.f.startswith(w, i):
            j = i + len(w)
            k = x.ws(j)
            if k < x.n and x.t[k] == ",":
                m = x.ws(k + 1)
                return m if m > k + 1 else -1
            return k if k > j else -1
    return -1


def _start(x: _Text, s: int) -> int:
    """s when a non-space character is there, else -1 (the `(?P<text>\\S` that follows each form)."""
    return s if s < x.n else -1


def _forms(x: _Text, i: int, polite: bool):
    """(start of the lesson, is it "remember to") for the first form that matches at i, or None."""
    n, t = x.n, x.t
    mem = x.any_seq(i, _MEM)
    mem_dont = mem if mem >= 0 else x.any_seq(i, _DONT)
    # remember this: X
    if mem_dont >= 0:
        j = mem_dont
        k = x.ws(j)
        if k > j and x.this(k) >= 0:
            j = k + 4
        k = x.ws(j)
        if k < n and t[k] in _DASH and _start(x, x.ws(k + 1)) >= 0:
            return x.ws(k + 1), False
    # Remember, X
    if mem >= 0:
        k = x.ws(mem)
        if k < n and t[k] == ",":
            m = x.ws(k + 1)
            if m > k + 1 and m < n:
                return m, False
    # remember that X
    if mem_dont >= 0:
        k = x.ws(mem_dont)
        if k > mem_dont and x.f.startswith("that", k):
            m = x.ws(k + 4)
            if m > k + 4 and m < n:
                return m, False
    # remember to X
    rem = x.seq(i, ("remember",))
    rem = rem if rem >= 0 else x.any_seq(i, _DONT)
    if rem >= 0:
        k = x.ws(rem)
        if k > rem and x.f.startswith("to", k):
            m = x.ws(k + 2)
            if m > k + 2 and m < n:
                return m, True
    # keep (this) in mind (that) X
    j = x.seq(i, ("keep",))
    if j >= 0:
        k = x.ws(j)
        if k > j:
            p = -1
            if x.this(k) >= 0 and x.ws(k + 4) > k + 4 and x.f.startswith("in", x.ws(k + 4)):
                p = x.ws(k + 4)
            elif x.f.startswith("in", k):
                p = k
            if p >= 0:
                j = x.seq(p, ("in", "mind"))
                if j >= 0:
                    s = _optional_punct(x, j, _DASH + ",")
                    if s >= 0:
                        if x.f.startswith("that", s):
                            m = x.ws(s + 4)
                            if m > s + 4 and m < n:
                                return m, False
                        return s, False
    # I want you to remember (this) X
    j = x.any_seq(i, (("i", "want"), ("i'd", "like"), ("i’d", "like"), ("id", "like"), ("i", "need")))
    if j >= 0:
        j = x.seq(x.ws(j), ("you", "to")) if x.ws(j) > j else -1
        if j >= 0 and x.ws(j) > j:
            j = x.any_seq(x.ws(j), _MEM)
            if j >= 0:
                k = x.ws(j)
                if k > j and x.this(k) >= 0:
                    s = _optional_punct(x, k + 4, _DASH + ",")
                    if s >= 0:
                        return s, False
                s = _optional_punct(x, j, _DASH + ",")
                if s >= 0:
                    return s, False
    # make a note (of this): X
    j = x.any_seq(i, (("make", "a", "note"), ("take", "a", "note")))
    if j >= 0:
        k = x.ws(j)
        if k > j:
            o = x.seq(k, ("of",))
            if o >= 0 and x.ws(o) > o and x.this(x.ws(o)) >= 0:
                j = x.ws(o) + 4
        k = x.ws(j)
        if k < n and t[k] in _DASH and x.ws(k + 1) < n:
            return x.ws(k + 1), False
    # for future reference: X
    j = x.seq(i, ("for", "future", "reference"))
    if j >= 0:
        k = x.ws(j)
        if k < n and t[k] in _DASH + "," and x.ws(k + 1) < n:
            return x.ws(k + 1), False
    # note: X
    j = x.seq(i, ("note",))
    if j >= 0:
        k = x.ws(j)
        if k < n and t[k] == ":" and x.ws(k + 1) < n:
            return x.ws(k + 1), False
    # please remember X (not "please remember to/what/...")
    if polite and mem >= 0:
        m = x.ws(mem)
        if m > mem and m < n:
            if not any(x.f.startswith(w, m) and x.word_end(m + len(w)) for w in _NOT_AFTER_PLEASE):
                return m, False
    return None


def _optional_punct(x: _Text, j: int, punct: str) -> int:
    """The lesson's start after `\\s*[punct]?\\s*` at j (then `\\S`), or -1. When only the
    end follows the punctuation mark, the mark itself starts the lesson (as `re` backtracks)."""
    a = x.ws(j)
    if a < x.n and x.t[a] in punct:
        b = x.ws(a + 1)
        return b if b < x.n else a
    return a if a < x.n else -1


def _text_end(x: _Text, s: int) -> int:
    """The end of `\\S.*?` from s before `\\s*(?:$|\\n\\n)` (DOTALL): the first white space
    that runs to the end or holds a blank line."""
    t, n = x.t, x.n
    i = s + 1
    while True:
        while i < n and not t[i].isspace():
            i += 1
        if i >= n:
            return n
        r = x.ws(i)
        if r == n or "\n\n" in t[i:r]:
            return i
        i = r


def explicit(text: str):
    """(the text after the request's form, is it "remember to") for the first request in
    `text` that starts a sentence or line, or None."""
    x = _Text(text)
    n, t, f = x.n, x.t, x.f
    p = 0
    while p <= n:
        if p == 0 or t[p - 1] in ".!?\n":
            q = x.ws(p)
            if q < n and "a" <= f[q] <= "z":
                i = _lead(x, q)
                found = None
                j = _polite(x, i)
                if j >= 0:
                    found = _forms(x, j, True)
                if found is None:
                    found = _forms(x, i, False)
                if found is not None:
                    s, to = found
                    return t[s:_text_end(x, s)], to
        p += 1
    return None


def _runs(x: _Text):
    """Each maximal run of white space as (start, end), in order."""
    t, n, i = x.t, x.n, 0
    while i < n:
        if t[i].isspace():
            r = x.ws(i)
            yield i, r
            i = r
        else:
            i += 1


def turn_cut(lesson: str) -> str:
    """`lesson` up to where the prompt turns to the task: a later sentence (after .!?;) or
    line that starts with "now", "then", "can you", "thanks" ... as a word."""
    x = _Text(lesson)
    for a, r in _runs(x):
        if ("\n" in lesson[a:r] or (a and lesson[a - 1] in ".!?;")) and \
                any((j := x.seq(r, words)) >= 0 and x.word_end(j) for words in _TURN):
            return lesson[:a]
    return lesson


def first_sentence(lesson: str) -> str:
    """`lesson` up to its first sentence end (.!?; then white space) or line break."""
    x = _Text(lesson)
    for a, r in _runs(x):
        if "\n" in lesson[a:r] or (a and lesson[a - 1] in ".!?;"):
            return lesson[:a]
    return lesson


def lasting(lesson: str) -> bool:
    """Does `lesson` say it lasts ("always", "from now on", "before every" ... as words)?"""
    x = _Text(lesson)
    t = x.t
    for i in range(x.n):
        if i and (t[i - 1].isalnum() or t[i - 1] == "_"):
            continue
        if any((j := x.seq(i, words)) >= 0 and x.word_end(j) for words in _LASTING):
            return True
    return False


def after(text: str):
    """The sentence before "... Remember that." / "..., keep this in mind!" at the end of a
    sentence or line, or None."""
    x = _Text(text)
    t, n = x.t, x.n
    for p in range(n + 1):
        if p and t[p - 1] not in ".!?\n":
            continue
        e1 = x.ws(p)
        q = e1 + 1
        while q <= n and t[q - 1] not in ".!?\n":
            c = t[q - 1]
            if not c.isspace() and c not in _AFTER_LAST_NOT and _after_tail(x, q):
                return t[e1:q]
            q += 1
    return None


def _after_tail(x: _Text, q: int) -> bool:
    t, n = x.t, x.n
    i = x.ws(q)
    j = i
    while j < n and t[j] in _AFTER_SEP:
        j += 1
    if j == i:
        return False
    k = x.ws(j)
    for w in ("so", "and"):
        if x.f.startswith(w, k) and x.ws(k + len(w)) > k + len(w):
            k = x.ws(k + len(w))
            break
    if x.f.startswith("please", k) and x.ws(k + 6) > k + 6:
        k = x.ws(k + 6)
    end = -1
    j = x.any_seq(k, _MEM)
    j = j if j >= 0 else x.any_seq(k, _DONT)
    if j >= 0:
        y = x.ws(j)
        if y > j:
            end = x.this(y)
    else:
        j = x.seq(k, ("keep",))
        if j >= 0 and x.ws(j) > j:
            y = x.this(x.ws(j))
            if y >= 0 and x.ws(y) > y:
                end = x.seq(x.ws(y), ("in", "mind"))
    if end < 0:
        return False
    a = x.ws(end)
    b = x.ws(a + 1) if a < n and t[a] == "," else a
    if x.f.startswith("please", b) and _closes(x, b + 6):
        return True
    return _closes(x, end)


def _closes(x: _Text, i: int) -> bool:
    """`\\s*[.!]*\\s*(?:$|\\n)` at i."""
    t, n = x.t, x.n
    y = x.ws(i)
    if "\n" in t[i:y]:
        return True
    z = y
    while z < n and t[z] in ".!":
        z += 1
    w = x.ws(z)
    return w == n or "\n" in t[z:w]
