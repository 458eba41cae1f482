"""Withholding learned rules to measure their effect (issue 23 part 2). Standard library only.

At a session's first digest injection, each rule the digest shows that may be withheld
(the digest cache's `withhold.rules`: learned rules; a person's only with
`learning.withhold_person_rules`) is withheld with probability `withhold.share`
(`learning.withhold`, default 0.1). The decision is made once and kept in the session's
runtime state as `state["withheld"]` (rule ids): every later injection of the session
(a resume, a compaction, a per-turn update) leaves those rules out too, and the reflexes
give none for them. The receipt of each injection lists them (`withheld`), so
`cogit finalize` knows which rules the session did not see on purpose
(cogit/learn/rules.py, cogit/learn/effect.py).

The rule's line is cut from the text; the agent is told that something is not shown, not
why and not where to look, so the comparison holds: NOTICE. A person sees every rule with
`cogit show` and the experiment with `cogit rules show ID`.

The draws cost no import: os.urandom. `COGIT_WITHHOLD_SEED` makes them reproducible (a
hash of the seed, the session and the rule's text; tests and bench/effect.py), and `off` turns
withholding off on this machine (the test suite sets it, so no test meets a draw it did
not ask for).
"""

import os

SEED = "COGIT_WITHHOLD_SEED"
NOTICE = "(Not shown in this session: {n} more item{s}.)"
MAX_SHARE = 0.5


def _draw(session_id: str, rule_id: str) -> float:
    """A number in [0, 1): random, or a hash of COGIT_WITHHOLD_SEED, the session and the rule."""
    seed = os.environ.get(SEED)
    if not seed:
        return int.from_bytes(os.urandom(4), "big") / 4294967296.0
    if seed == "off":
        return 1.0
    h = 0xCBF29CE484222325  # FNV-1a, 64 bits: no hashlib on the hook path
    for byte in f"{seed}:{session_id}:{rule_id}".encode("utf-8", "replace"):
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h / 18446744073709551616.0


def _keys(text: str, ids: list) -> dict:
    """id -> what a seeded draw hashes: the rule's text as the digest shows it (its id is
    random, so a seeded run would not repeat; the text of a rule learned the same way does)."""
    out = {}
    for line in text.split("\n"):
        for i in ids:
            at = line.find(f" [{i}]")
            if line.startswith("• ") and at > 0:
                out[i] = line[2:at]
    return out


def decide(state: dict, digest: dict, shown: list, text: str = "") -> list:
    """The session's withheld rules: decided at its first digest injection, then kept."""
    if isinstance(state.get("withheld"), list):
        return [i for i in state["withheld"] if isinstance(i, str)]
    spec = digest.get("withhold") if isinstance(digest.get("withhold"), dict) else {}
    try:
        share = min(MAX_SHARE, max(0.0, float(spec.get("share") or 0.0)))
    except (TypeError, ValueError):
        share = 0.0
    allowed = set(i for i in spec.get("rules") or () if isinstance(i, str)) if share > 0 else set()
    sid = str(state.get("session_id") or "")
    keys = _keys(text, [i for i in shown if i in allowed]) if os.environ.get(SEED) else {}
    held = [i for i in dict.fromkeys(shown) if i in allowed and i.startswith("ru-") and _draw(sid, keys.get(i, i)) < share]
    state["withheld"] = held
    return held


def cut(state: dict, digest: dict, text: str, shown: list) -> tuple:
    """(text without the withheld rules' lines, the ids still shown, the ids withheld)."""
    held = [i for i in decide(state, digest, shown, text) if i in shown]
    if not held:
        return text, shown, []
    marks = [f"[{i}]" for i in held]
    lines = [x for x in text.split("\n") if not (x.startswith("• ") and any(m in x for m in marks))]
    # A heading left without items goes too.
    lines = [x for n, x in enumerate(lines) if not (x == "Learned rules:" and not (n + 1 < len(lines) and lines[n + 1].startswith("• ")))]
    notice = NOTICE.format(n=len(held), s="" if len(held) == 1 else "s")
    at = len(lines) - 1 if lines and lines[-1].startswith("</") else len(lines)
    lines.insert(at, notice)
    return "\n".join(lines), [i for i in shown if i not in held], held
