"""Cooldowns and the per-session state every sense shares.

A cooldown of N set when a sense speaks at call i keeps it silent for calls i+1 … i+N.
"""

STATE_VERSION = 1


def cooling(state, sense):
    return state["n"] <= state["cool"].get(sense, 0)


def cool(state, sense, calls):
    state["cool"][sense] = state["n"] + max(0, int(calls))


def new_state():
    return {
        "v": STATE_VERSION,
        "n": 0,  # tool calls observed in this session
        "win": [],  # the last `window` call records, oldest first; each has "i", its call number
        "cool": {},  # sense -> last call number of its cooldown
        "fired": {},  # sense -> how often it spoke this session
        "last": [],  # the senses that spoke on the latest call
    }


def ensure(state):
    """Make `state` (the dict the hook persists) usable, in place; an unknown layout starts over."""
    if state.get("v") != STATE_VERSION or not isinstance(state.get("win"), list) or not isinstance(state.get("n"), int):
        state.clear()
        state.update(new_state())
    for key, default in (("cool", {}), ("fired", {}), ("last", [])):
        if not isinstance(state.get(key), type(default)):
            state[key] = default
    return state


def section(state, name, default):
    """state[name] as a dict, created from default() when missing or malformed."""
    value = state.get(name)
    if not isinstance(value, dict):
        value = state[name] = default()
    return value
