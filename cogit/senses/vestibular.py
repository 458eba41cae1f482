"""Vestibular, loops: the same action on the same target again and again, and re-reads of one file.

Repeats: the current successful call has the same tool, target and (for writes) the same
content fingerprint as `repeats - 1` earlier calls among the last `window`, with no successful
write in between (for a write: no other change of that file in between). Test runs are never
loops (running the tests again after each change is the point), nor are successive edits with
different content (progress), nor failures (those belong to nociception).

Re-reads: the current Read has read the same file (same offset/limit) `rereads - 1` times
before within the rolling window, and the file was not written in between.
"""

import os

from .base import cool, cooling
from .text import clip, display, tag

NAME = "vestibular"


def _key(c):
    return (c.get("tool"), c.get("target"), c.get("h"), c.get("part"))


def _repeats(win, call, window):
    key = _key(call)
    count, first = 1, call
    for c in reversed(win[-window:-1]):
        if c.get("kind") == "write" and c.get("ok"):
            if call.get("kind") != "write":
                break  # something changed since: running it again is a check, not a loop
            if c.get("target") == call.get("target") and c.get("h") != call.get("h"):
                break  # the file changed to something else in between
        if c.get("ok") and _key(c) == key:
            count += 1
            first = c
    return count, first


def _rereads(win, call):
    count, first = 1, call
    for c in reversed(win[:-1]):
        if c.get("target") != call.get("target"):
            continue
        if c.get("kind") == "write" and c.get("ok"):
            break
        if c.get("tool") == "Read" and c.get("ok") and c.get("part") == call.get("part"):
            count += 1
            first = c
    return count, first


def sense(state, call, cfg, cwd=None):
    if not cfg["enabled"] or cooling(state, NAME) or not call.get("ok") or not call.get("target"):
        return None
    win = state["win"]
    if call.get("tool") == "Read":
        count, first = _rereads(win, call)
        if count < cfg["rereads"]:
            return None
        cool(state, NAME, cfg["cooldown"])
        span = call["i"] - first["i"] + 1
        part = " (the same range)" if call.get("part") else ""
        return (
            "%s %s has been read %d times in the last %d calls%s, with no change to it in between. "
            "If its content keeps slipping out of context, a short note of the parts that matter would save "
            "the next read." % (tag(NAME), display(call["target"], cwd), count, span, part)
        )
    if call.get("is_test") or call.get("kind") == "other":
        return None
    count, first = _repeats(win, call, max(2, cfg["window"]))
    if count < cfg["repeats"]:
        return None
    cool(state, NAME, cfg["cooldown"])
    span = call["i"] - first["i"] + 1
    if call.get("kind") == "write":
        return (
            "%s The same %s of %s, with identical content, has now been made %d times in the last %d calls. "
            "What is expected to be different this time?"
            % (tag(NAME), call["tool"], display(call["target"], cwd), count, span)
        )
    target = call.get("cmd") or call["target"]
    if call.get("kind") == "search" and " in " in target:
        pattern, _, where = target.rpartition(" in ")
        target = "%s in %s" % (pattern, display(where, cwd))
    elif call.get("kind") != "exec" and os.path.isabs(target):
        target = display(target, cwd)
    return (
        "%s The same %s (`%s`) has run %d times in the last %d calls with nothing written in between, "
        "so its result cannot have changed. Is this progress, or a loop over the same ground?"
        % (tag(NAME), call["tool"], clip(target, 120), count, span)
    )
