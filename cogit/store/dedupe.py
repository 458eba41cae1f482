"""Near duplicates: adding what memory already holds adds evidence to it instead.

Two texts are near duplicates when, normalized (lowercase, words of letters and digits
only, single spaces), `difflib.SequenceMatcher(None, a, b).ratio()` is at least
THRESHOLD (0.85), and they hold the same numbers (every word with a digit in one is in
the other: "use Python 3.11" and "use Python 3.12" are different facts). Standard library
only. `ratio` is 2*M/T (M matching characters, T both lengths): 0.85 allows about one
changed word in seven ("Run the tests with pytest -q" ~ "run tests with pytest -q"),
while short texts that differ in a word stay apart ("use ruff" / "use rye": 0.67).
"""

from __future__ import annotations

import difflib
import re

from cogit.store.state import SINGULAR, now_iso

THRESHOLD = 0.85
_WORD = re.compile(r"\w+")


def normalize(text: str) -> str:
    return " ".join(w.lower() for w in _WORD.findall(text or ""))


def similarity(a: str, b: str) -> float:
    """1.0 for the same normalized text; 0.0 when their numbers differ."""
    na, nb = normalize(a), normalize(b)
    if na == nb:
        return 1.0
    if {w for w in na.split() if any(c.isdigit() for c in w)} != {w for w in nb.split() if any(c.isdigit() for c in w)}:
        return 0.0
    m = difflib.SequenceMatcher(None, na, nb, autojunk=False)
    if m.real_quick_ratio() < THRESHOLD or m.quick_ratio() < THRESHOLD:  # cheap upper bounds first
        return 0.0
    return m.ratio()


def nearest(items: list, text: str) -> tuple[dict, float] | None:
    """The most similar item at or over THRESHOLD, or None."""
    best = None
    for item in items:
        score = similarity(str(item.get("text", "")), text)
        if score >= THRESHOLD and (best is None or score > best[1]):
            best = (item, score)
    return best


class Found:
    """What `or_evidence` did, for the command to say: the item and the similarity."""

    item: dict | None = None
    score: float = 0.0


def or_evidence(section: str, text: str, apply, found: Found):
    """Wrap an add: when `section` holds a near duplicate of `text`, count one more piece
    of evidence on it (`evidence`, and `updated_at`) instead of adding; else add."""
    from cogit.store.write import Change

    def wrapped(state):
        items = state[section]["items"]
        match = nearest(items, text)
        if match is None:
            return apply(state)
        item, score = match
        item["evidence"] = int(item.get("evidence", 0) or 0) + 1
        item["updated_at"] = now_iso()
        found.item, found.score = dict(item), score
        kind = SINGULAR[section]
        same = "the same as" if score == 1.0 else f"nearly the same as (similarity {score:.2f})"
        return Change(f"Evidence for {kind} {item['id']}: restated as {text}",
                      body=f"The added text is {same} {kind} {item['id']}, so it counts as evidence for it "
                           f"(now {item['evidence']}) instead of a second item. `cogit add --force` keeps both.",
                      trailers={"Cogit-Event": f"{kind}.evidence", "Cogit-Item": item["id"]})

    return wrapped
