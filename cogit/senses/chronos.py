"""Chronos, time: wall time and tool calls since the user's last prompt.

Level = max(minutes // `minutes`, calls // `calls`). The sense speaks each time the level rises
above the highest level it already reported for this prompt; `on_prompt` resets the level.
Before any prompt has been seen, the first observed call stands in for it.
"""

from .base import cool, cooling
from .text import clip, duration, tag

NAME = "chronos"


def new_prompt(now, n):
    return {"t": now, "n": n, "lvl": 0, "summary": "", "terms": [], "early": [], "seen": False}


def sense(state, call, cfg, now):
    prompt = state.get("prompt")
    if not isinstance(prompt, dict):
        prompt = state["prompt"] = new_prompt(call.get("t") or now or 0.0, state["n"] - 1)
    if not cfg["enabled"]:
        return None
    calls = state["n"] - prompt["n"]
    elapsed = max(0.0, (now or 0.0) - (prompt.get("t") or 0.0))
    level = max(int(elapsed // (60.0 * max(cfg["minutes"], 0.01))), calls // max(cfg["calls"], 1))
    if level < 1 or level <= prompt.get("lvl", 0) or cooling(state, NAME):
        return None
    prompt["lvl"] = level
    cool(state, NAME, cfg["cooldown"])
    if prompt.get("seen"):
        since = "since the user's last message"
        if prompt.get("summary"):
            since += ' ("%s")' % clip(prompt["summary"], 80)
    else:
        since = "since the first tool call cogit saw in this session, with no user message in between"
    return "%s %d tool calls and %s %s. Still on the path the user asked for, or is a check-in with the user due?" % (
        tag(NAME),
        calls,
        duration(elapsed),
        since,
    )
