"""O2, context trend: how fast the context fills, against this session's own baseline.

Each call's size is what entered the context: the input the model wrote plus the result it
sees (a Read's file content, a Bash command's output, a Grep's matches …). The baseline is
the mean size of the session's calls before the recent window (each call counted at most
50,000 characters), never below `baseline_floor`. The sense speaks when the recent window
averages `multiplier` times the baseline, holds at least `min_recent_chars`, and at least
`min_large` of its calls are large.
"""

import os

from .base import cool, cooling, section
from .text import clip, listing, tag, tokens_k

NAME = "o2"


def _baseline():
    return {"n": 0, "sum": 0}


def track(state, cfg):
    """Fold the call that just left the recent window into the baseline."""
    recent = max(1, cfg["recent"])
    win = state["win"]
    if len(win) > recent:
        base = section(state, "o2", _baseline)
        base["n"] += 1
        base["sum"] += min(int(win[-recent - 1].get("size") or 0), 50000)


def sense(state, call, cfg):
    if not cfg["enabled"] or cooling(state, NAME):
        return None
    recent_n = max(1, cfg["recent"])
    base = section(state, "o2", _baseline)
    win = state["win"]
    if base["n"] < cfg["baseline_calls"] or len(win) < recent_n:
        return None
    baseline = max(base["sum"] / float(base["n"]), float(cfg["baseline_floor"]))
    recent = win[-recent_n:]
    total = sum(int(c.get("size") or 0) for c in recent)
    avg = total / float(recent_n)
    large_at = max(cfg["large_chars"], 2 * baseline)
    large = [c for c in recent if (c.get("size") or 0) >= large_at]
    if avg < cfg["multiplier"] * baseline or total < cfg["min_recent_chars"] or len(large) < cfg["min_large"]:
        return None
    cool(state, NAME, cfg["cooldown"])
    reads = [c for c in large if c.get("kind") == "read"]
    what = "large reads" if len(reads) == len(large) else "large results"
    named = ["%s (%s)" % (clip(os.path.basename(c.get("target") or "") or c.get("tool", "?"), 40), tokens_k(c["size"])) for c in large]
    return (
        "%s The last %d calls added %s to the context, %.1fx this session's average of %s per call; "
        "%d of them %s: %s. Is all of it needed in context, or would a narrower read (offset/limit, Grep), "
        "a written summary or a subagent carry the rest?"
        % (tag(NAME), recent_n, tokens_k(total), avg / baseline, tokens_k(baseline), len(large), what, listing(named))
    )
