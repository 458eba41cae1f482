"""The senses: proprioception for a coding agent, computed after every tool call.

Standard library only and cheap to import: the hook runs this on every tool call.

    call = make_call(tool_name, tool_input, tool_response, error, duration_ms, now, cwd, tool_use_id=None)
    text, learnings = observe(state, call, config, cwd=cwd, cache_dir=cache_dir, now=now)
    on_prompt(state, prompt, now)            # read_prompt(prompt) may be done first, outside a lock

`state` is the session's sense state, a JSON-serialisable dict owned by this package ({} at
first) that the caller persists between calls. `text` is None when every sense is silent,
else one message: one signal per sense that spoke, each starting with `[cogit:<sense>]`
(`fired(text)` lists them). `learnings` are the motor learnings of resolved failure
episodes: [{"text", "category", "context"}]. docs/senses.md describes every sense.
"""

from .base import ensure
from .call import make_call
from .config import DEFAULTS, SENSES, resolve
from .text import fired

__all__ = ["DEFAULTS", "SENSES", "fired", "make_call", "observe", "on_prompt", "read_prompt", "resolve"]

# Signals are listed in this order; when the message is too long the last ones are dropped.
ORDER = ("interrupt", "nociception", "spatial", "vestibular", "echo", "o2", "chronos", "drift")


# The first test of the senses that say nothing on most calls, and change no state before it:
# when it fails the sense is skipped, its module not loaded (each module costs the hook a
# fraction of a millisecond, and a silent call is most calls). Spatial looks only at a
# successful write to a file (about one call in five); Drift only once a prompt gave it terms. tests/senses/test_gates.py holds each gate to its sense.
_GATES = {
    "spatial": lambda state, call: call.get("kind") == "write" and call.get("ok") and call.get("target"),
    "drift": lambda state, call: isinstance(state.get("prompt"), dict) and state["prompt"].get("terms"),
}


def _compose(signals, max_chars):
    parts = [signals[name] for name in ORDER if name in signals]
    while len(parts) > 1 and len("\n".join(parts)) > max_chars:
        parts.pop()
    text = "\n".join(parts)
    if len(text) > max_chars:
        text = text[: max_chars - 1] + "…"
    return text


def _run(state, name, fn, *args):
    """Run one sense; a bug in one sense must not silence the others or break the hook."""
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - recorded in the state, never raised into the hook
        state["err"] = "%s: %s: %s" % (name, type(exc).__name__, str(exc)[:200])
        return None


def observe(state, call, config=None, cwd=None, cache_dir=None, now=None):
    """Record one tool call in `state` (mutated in place) and run the senses.

    Returns (text, learnings): text is None or one message combining every signal of this
    call; learnings is a list of {"text", "category", "context"} to store. A call whose
    `id` (tool_use_id) is already in the window is a duplicate delivery and is ignored.
    """
    cfg = resolve(config)
    if not isinstance(state, dict) or not isinstance(call, dict) or not cfg["enabled"]:
        return None, []
    ensure(state)
    if now is None:
        now = call.get("t") or 0.0
    cid = call.get("id")
    if cid and any(c.get("id") == cid for c in state["win"]):
        return None, []
    state["n"] += 1
    call = dict(call)
    call["i"] = state["n"]
    state["win"].append(call)
    del state["win"][: -max(5, cfg["window"])]

    from . import chronos, echo, nociception, o2, vestibular

    o2.track(state, cfg["o2"])
    signals = {}
    learnings = []
    result = _run(state, "nociception", nociception.sense, state, call, cfg["nociception"], cfg["interrupt"], cwd)
    if result:
        noci, learnings = result
        if noci:
            signals[noci[0]] = noci[1]
    for name, fn, args in (
        ("spatial", None, (state, call, cfg["spatial"], cache_dir)),
        ("vestibular", vestibular.sense, (state, call, cfg["vestibular"], cwd)),
        ("echo", echo.sense, (state, call, cfg["echo"], cwd)),
        ("o2", o2.sense, (state, call, cfg["o2"])),
        ("chronos", chronos.sense, (state, call, cfg["chronos"], now)),
        ("drift", None, (state, call, cfg["drift"], cwd)),
    ):
        if fn is None:
            if not _GATES[name](state, call):
                continue  # it would return None and change nothing: its module is not even loaded
            fn = __import__(f"{__name__}.{name}", fromlist=("sense",)).sense
        text = _run(state, name, fn, *args)
        if text:
            signals[name] = text
    state["last"] = [name for name in ORDER if name in signals]
    for name in state["last"]:
        state["fired"][name] = state["fired"].get(name, 0) + 1
    if not signals:
        return None, learnings
    return _compose(signals, max(200, cfg["max_chars"])), learnings


def read_prompt(prompt):
    """What the senses take from a prompt: {"terms", "summary"}. Pure, and bounded: it reads
    the first PROMPT_HEAD and last PROMPT_TAIL characters (cogit/bounds.py), so the hook runs
    it before it takes the session lock."""
    from cogit import bounds

    from .drift import prompt_terms

    if not isinstance(prompt, str):
        return {"terms": [], "summary": ""}
    from cogit.redact import clip

    # Redacted, then cut: the summary and the terms are quoted in the senses' messages.
    text = clip(prompt, bounds.PROMPT_HEAD, bounds.PROMPT_TAIL, bounds.GAP)
    return {"terms": prompt_terms(text), "summary": clip(" ".join(text.split()), 120, 0, "")}


def on_prompt(state, prompt, now, read=None):
    """The user wrote: Chronos starts counting again, Drift takes the prompt's terms.

    A prompt with fewer than two terms ("yes", "go on") keeps the previous prompt's terms and
    summary: it continues the same task. `read` is read_prompt(prompt), when already done.
    """
    if not isinstance(state, dict):
        return
    ensure(state)
    from .chronos import new_prompt

    read = read if isinstance(read, dict) else read_prompt(prompt)
    old = state.get("prompt") if isinstance(state.get("prompt"), dict) else {}
    new = new_prompt(now if isinstance(now, (int, float)) else 0.0, state["n"])
    new["seen"] = True
    terms = read["terms"]
    if len(terms) >= 2 or not old.get("terms"):
        new["terms"] = terms
        new["summary"] = read["summary"]
    else:
        new["terms"], new["summary"], new["early"] = old["terms"], old.get("summary", ""), old.get("early", [])
    state["prompt"] = new
    state["cool"].pop("chronos", None)
