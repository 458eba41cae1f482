"""Defaults of the senses, and how the `senses` section of cogit's config is laid over them.

Every sense has an `enabled` switch, its thresholds and a `cooldown`: the number of
following tool calls during which it stays silent after it spoke. docs/senses.md
describes each key. Unknown keys are ignored; a value of the wrong type falls back to
the default, so a typo in the config can never break the hook.
"""

DEFAULTS = {
    "enabled": True,  # master switch for all senses
    "window": 20,  # calls kept in the rolling window
    "max_chars": 1800,  # cap on one combined message
    "o2": {
        "enabled": True,
        "recent": 3,  # calls in the velocity window
        "multiplier": 3.0,  # recent average vs the session's baseline per call
        "min_recent_chars": 30000,  # and at least this much in the recent window (~7.5k tokens)
        "large_chars": 8000,  # a call at least this big (and 2x baseline) is "large"
        "min_large": 2,  # large calls needed in the recent window
        "baseline_calls": 5,  # calls needed before the baseline counts
        "baseline_floor": 1500,  # the baseline is never taken below this (chars per call)
        "cooldown": 8,
    },
    "chronos": {
        "enabled": True,
        "minutes": 15,  # one level per this many minutes since the user's last prompt
        "calls": 25,  # one level per this many tool calls since the user's last prompt
        "cooldown": 3,
    },
    "nociception": {
        "enabled": True,
        "similarity": 0.6,  # Jaccard similarity of two error signatures to count as "the same"
        "warn_at": 2,  # consecutive similar failures for the layer-1 signal
        "cooldown": 3,
    },
    "interrupt": {
        "enabled": True,
        "at": 3,  # consecutive similar failures for level 1
        "escalate_after": 2,  # further similar failures for each next level
        "resolve_after": 3,  # successes after the last failure that close the episode
        "forget_after": 12,  # successes after which an unresolved episode is dropped
        "learn": True,  # return a motor learning when an episode resolves
        "learn_min_failures": 3,  # similar failures an episode needs to be worth a learning
    },
    "spatial": {
        "enabled": True,
        "threshold": 5,  # importing files needed to speak
        "budget_ms": 200,  # time bound of the import scan
        "cooldown": 25,  # calls before the same file can be signalled again
        "max_file_bytes": 1000000,  # bigger source files are not parsed
    },
    "vestibular": {
        "enabled": True,
        "repeats": 3,  # the same action on the same target, with nothing written in between
        "rereads": 3,  # reads of one unchanged file (same range) in the window
        "window": 10,  # calls looked at for repeats
        "cooldown": 6,
    },
    "echo": {
        "enabled": True,
        "edits": 6,  # code edits since the last test run
        "targeted": True,  # signal a run of only the new test after source+test changes
        "cooldown": 8,
    },
    "drift": {
        "enabled": True,
        "min_calls": 8,  # calls since the prompt before drift is judged
        "recent": 6,  # recent calls compared with the prompt's terms
        "early": 4,  # the first calls after a prompt count as on-task context
        "max_related": 0.0,  # fraction of recent calls allowed to relate before it is drift
        "cooldown": 12,
    },
}

SENSES = ("o2", "chronos", "nociception", "interrupt", "spatial", "vestibular", "echo", "drift")


def _coerce(default, value):
    """Return value if it has the default's type (ints accepted for floats), else the default."""
    if isinstance(default, bool):
        return value if isinstance(value, bool) else default
    if isinstance(value, bool):
        return default
    if isinstance(default, float):
        return float(value) if isinstance(value, (int, float)) else default
    if isinstance(default, int):
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value == int(value):
            return int(value)
        return default
    return value if isinstance(value, type(default)) else default


def resolve(config):
    """Lay a user `senses` config (dict, maybe None or malformed) over DEFAULTS; returns a new dict."""
    config = config if isinstance(config, dict) else {}
    out = {}
    for key, default in DEFAULTS.items():
        given = config.get(key)
        if isinstance(default, dict):
            given = given if isinstance(given, dict) else {}
            out[key] = {k: _coerce(d, given[k]) if k in given else d for k, d in default.items()}
        else:
            out[key] = _coerce(default, given) if key in config else default
    return out
