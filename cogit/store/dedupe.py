"""Near duplicates: adding what memory already holds adds evidence to it instead.

Two texts are near duplicates when their *content words* overlap with a Jaccard index
(|A ∩ B| / |A ∪ B|) of at least THRESHOLD (0.8). Content words: the text lowercased, split
into words of letters and digits, without a short list of filler words (the, a, with, …;
never "not", "never", "before", "after", which change a meaning), a plural "s" dropped from
words of four letters or more. So "Run the tests with pytest -q" and "run tests with
pytest -q." are one item (1.0), while texts that differ in a word that carries the meaning
stay apart: "Run ruff before committing" / "Run mypy before committing" (0.6), "use ruff" /
"use rye" (0.33). Texts whose words with digits differ are never near duplicates
("Use Python 3.11" / "Use Python 3.12"). In long texts one changed word in ten still
counts as a restatement. Standard library only.
"""

from __future__ import annotations

import re

from cogit.store.state.documents import SINGULAR
from cogit.domain.times import now_iso

THRESHOLD = 0.8
_WORD = re.compile(r"\w+")
FILLER = frozenset("a an the to of in on at for with and or is are be it its this that these those you your we our "
                   "i my me as by from so then than do does".split())


def normalize(text: str) -> str:
    return " ".join(w.lower() for w in _WORD.findall(text or ""))


def content_words(text: str) -> frozenset[str]:
    words = set()
    for w in normalize(text).split():
        if w in FILLER:
            continue
        if len(w) >= 4 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        words.add(w)
    return frozenset(words)


def similarity(a: str, b: str) -> float:
    """1.0 for the same normalized text, else the Jaccard index of the content words."""
    if normalize(a) == normalize(b):
        return 1.0
    wa, wb = content_words(a), content_words(b)
    if not wa or not wb or _numbers(wa) != _numbers(wb):
        return 0.0  # different numbers are different facts ("Python 3.11" / "3.12", "item 1" / "item 2")
    return len(wa & wb) / len(wa | wb)


def _numbers(words: frozenset[str]) -> frozenset[str]:
    return frozenset(w for w in words if any(c.isdigit() for c in w))


def nearest(items: list, text: str) -> tuple[dict, float] | None:
    """The most similar item at or over THRESHOLD, or None."""
    best = None
    for item in items:
        score = similarity(str(item.get("text", "")), text)
        if score >= THRESHOLD and (best is None or score > best[1]):
            best = (item, score)
    return best


def stored_text(text: str, state) -> str:
    """`text` as the write path will store it: its secrets redacted (main's allowlist kept)."""
    from cogit.redact import redact
    from cogit.store.write.scrub import allowlist

    return redact(text, allowlist(state.get("config")))[0]


class Found:
    """What `or_evidence` did, for the command to say: the item and the similarity."""

    item: dict | None = None
    score: float = 0.0
    exact: bool = False  # the same normalized text, not only the same content words


def or_evidence(section: str, text: str, apply, found: Found):
    """Wrap an add: when `section` holds a near duplicate of `text`, count one more piece
    of evidence on it (`evidence`, and `updated_at`) instead of adding; else add."""
    from cogit.store.write.transact import Change

    def wrapped(state):
        items = state[section]["items"]
        # Memory holds redacted text: two texts that differ only in their secret are one item.
        match = nearest(items, stored_text(text, state))
        if match is None:
            return apply(state)
        item, score = match
        item["evidence"] = int(item.get("evidence", 0) or 0) + 1
        item["updated_at"] = now_iso()
        found.item, found.score = dict(item), score
        found.exact = normalize(str(item.get("text", ""))) == normalize(stored_text(text, state))
        kind = SINGULAR[section]
        same = "the same as" if found.exact else f"nearly the same as (similarity {score:.2f})"
        return Change(f"Evidence for {kind} {item['id']}: restated as {text}",
                      body=f"The added text is {same} {kind} {item['id']}, so it counts as evidence for it "
                           f"(now {item['evidence']}) instead of a second item. `cogit add --force` keeps both.",
                      trailers={"Cogit-Event": f"{kind}.evidence", "Cogit-Item": item["id"]})

    return wrapped
