"""Applied or not (issue 23 part 3): did the agent do what a shown rule says?

Decided in `cogit finalize` for each rule that the session was shown and came near
(detectors.relevant), and written into that evidence commit as `Cogit-Followed: yes|no`:

- a rule with a fix (its text says "run `B` instead", as detectors.fix_lesson writes it):
  the session ran the fix, a command of the fix's program family that carries what the fix
  changed (e.g. `PYTHONPATH=src`), at the first failure of that family at the latest (a fix
  found after the loop again is not the rule applied);
- a rule that says what to avoid (every other rule): the session did not do it (its pattern
  did not happen).
"""

from __future__ import annotations


def _between(text: str, start: str, end: str) -> str:
    i = text.find(start)
    if i < 0:
        return ""
    j = text.find(end, i + len(start))
    return text[i + len(start): j] if j > 0 else ""


def fix_of(text: str) -> dict | None:
    """{"cmd": the fix, "failing": the failing command} of a rule's text, or None (an avoid-rule)."""
    text = str(text or "")
    fix = _between(text, "run `", "` instead")
    if not fix:
        return None
    failing = _between(text, "When `", "` fails")
    return {"cmd": fix.rstrip("…").strip(), "failing": failing.rstrip("…").strip(), "clipped": fix.endswith("…")}


def _program(cmd: str) -> str:
    from cogit.senses.commands import program

    return program(cmd or "")


def ran_fix(fix: dict, trace: list[dict]) -> bool:
    words = fix["cmd"].split()
    if fix.get("clipped"):
        words = words[:-1]  # the text cut the fix: its last word may be cut too
    added = [w for w in words if w not in fix["failing"].split()]
    family = _program(fix["cmd"])
    failures = 0
    for line in trace:
        cmd = str(line.get("cmd") or "")
        if line.get("kind") != "exec" or not cmd or (family and _program(cmd) != family):
            continue
        if all(w in cmd.split() for w in added):
            return failures <= 1  # the fix, at the first failure at the latest
        failures += not line.get("ok", True)
    return False


def followed(rule: dict, trace: list[dict], detected: bool) -> bool:
    """Shown and relevant: whether the agent did what the rule says (see the module docstring)."""
    fix = fix_of(rule.get("text") or "")
    if fix is None:
        return not detected
    return ran_fix(fix, trace)
