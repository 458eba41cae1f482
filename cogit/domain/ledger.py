"""A rule's ledger and its confidence: derived from history, never a stored float.

Every detection and suppression is a commit (`Cogit-Event: rule.detect` / `rule.suppress`,
`Cogit-Rule: ID`, `Cogit-Session: ID`). The ledger of a rule is the list of those commits
reachable from its branch's head, minus the ones a reachable `cogit revert` undid (a
revert that was itself reverted counts again); cogit/learn/ledger_history.py reads it.

Confidence, with D detections, S suppressions, E = D + S, and d days since the newest
evidence (the rule's creation if it has none):

    confidence = (E - M + 1) / (E + 3)      M: detections while the rule was shown
    if d > dormant_days:  confidence *= 0.5 ** ((d - dormant_days) / half_life_days)

Both kinds of evidence count: a detection says the failure is real, a suppression says
the rule, when shown, kept it away (the seesaw fix: success must not look like staleness).
A detection in a session that was shown the rule (M, a miss) counts against it: the rule
was there and its wording did not keep the pattern away (issue 22).
A rule starts at 1/3 (a prior: a person's rule with no evidence yet is shown and can earn
it); E=1 gives 0.50, 2 gives 0.60, 4 gives 0.71, 8 gives 0.82, and it tends to 1. Nothing decays while the
rule is active; after `dormant_days` (60) without evidence it halves every
`half_life_days` (60). A rule below `min_confidence` (0.2) leaves the digest, never the
history. All three are config `learning.rule_dormant_days`, `rule_half_life_days`,
`rule_min_confidence`.

rules.yaml keeps `detections`, `suppressions`, `last_detected`, `last_suppressed` as a
cache of the ledger so the digest compiles without walking history; every evidence
commit and every revert of one rewrites them from the ledger.

Scopes: each piece of evidence lands in the scope where its session ran. A global rule
(it lives on main) shown in a project session gets its evidence committed on the
project's branch, whose rules.yaml keeps the cache of it under `global_evidence`. A
global rule's confidence counts its evidence in every scope (`combine`, `scope_caches`).
Its `idle` count (shown in a session that never came near it: no evidence) is kept where the
rule lives, on main, whichever scope the session ran in (cogit/learn/rules.py).

Imported evidence (`cogit import metacog`, cogit/imports/metacog.py) keeps its original
times: an import is one commit (`Cogit-Event: import.metacog`, `Cogit-Ledger: N`) whose body
lists its N entries, one a line, `RULE KIND TIME SESSION KEY` (KEY: a hash of the source
record, so importing the same record again adds nothing). Each line is a ledger entry like an
evidence commit, dated by its TIME instead of the commit's; reverting the import commit
removes them all.
"""

from __future__ import annotations

import calendar
import datetime as _datetime
import time
from dataclasses import dataclass

DETECT = "rule.detect"
SUPPRESS = "rule.suppress"
EVENTS = (DETECT, SUPPRESS)
# Not confidence evidence: a withheld-and-relevant session whose pattern did not happen (its
# rule was withheld to measure its effect), and an effect review proposed (cogit/learn/effect.py).
WITHHELD = "rule.withheld"
REVIEW = "rule.review"
DEFAULTS = {"rule_dormant_days": 60.0, "rule_half_life_days": 60.0, "rule_min_confidence": 0.2}
DAY = 86400.0


@dataclass
class Evidence:
    kind: str  # "detect" or "suppress"
    rule: str
    session: str
    sha: str
    time: int
    injected: bool
    summary: str = ""
    scope: str = ""  # "global" or the project's branch: where the evidence was committed
    key: str = ""  # imported entries: the source record's hash (see imported_lines)
    withheld: bool = False  # the session did not see the rule on purpose (cogit/learn/effect.py)
    followed: str = ""  # shown and relevant: "yes" / "no", the agent did what the rule says ("" unknown)


def settings(config: dict | None) -> dict:
    learning = (config or {}).get("learning") or {}
    return {k: float(learning.get(k, v)) for k, v in DEFAULTS.items()}


def confidence(evidence: int, last_time: float | None, now: float, config: dict | None = None, misses: int = 0) -> float:
    """The documented formula (see the module docstring). `misses`: the detections among the
    evidence that happened while the rule was shown; they count against it (the rule was
    there and its wording did not keep the pattern away), not for it."""
    s = settings(config)
    evidence = max(0, int(evidence))
    misses = min(max(0, int(misses)), evidence)
    value = (evidence - misses + 1.0) / (evidence + 3.0)
    if last_time is not None:
        days = (now - last_time) / DAY
        if days > s["rule_dormant_days"]:
            value *= 0.5 ** ((days - s["rule_dormant_days"]) / max(s["rule_half_life_days"], 1e-9))
    return round(value, 4)


# time.strptime(text, "%Y-%m-%dT%H:%M:%S") by hand: its first call imports _strptime
# (about 4 ms of a cold `cogit add`). The same pattern as _strptime builds for that format
# (case-insensitive, one-digit fields, Unicode digits), then the same range checks;
# tests/test_ledger_time.py holds the two equal on generated text.
_TIME = None


def parse_time(text) -> float | None:
    global _TIME
    if not text:
        return None
    if _TIME is None:
        import re

        _TIME = re.compile(r"(\d\d\d\d)-(1[0-2]|0[1-9]|[1-9])-(3[01]|[12]\d|0[1-9]|[1-9]| [1-9])"
                           r"T(2[0-3]|[0-1]\d|\d):([0-5]\d|\d):(6[0-1]|[0-5]\d|\d)", re.IGNORECASE)
    m = _TIME.fullmatch(str(text)[:19])
    if m is None:
        return None
    year, month, day, hour, minute, second = (int(g) for g in m.groups())
    try:
        _datetime.date(year, month, day)  # Feb 30 is refused, as strptime refuses it
    except ValueError:
        return None
    return float(calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0)))


def of_item(rule: dict, now: float, config: dict | None = None) -> float:
    """Confidence from the ledger cache in rules.yaml (what the digest uses)."""
    e = int(rule.get("detections", 0)) + int(rule.get("suppressions", 0))
    times = [t for t in (parse_time(rule.get("last_detected")), parse_time(rule.get("last_suppressed"))) if t]
    last = max(times) if times else parse_time(rule.get("created_at"))
    return confidence(e, last, now, config, int(rule.get("misses", 0) or 0))


def combine(rule: dict, caches: list[dict]) -> dict:
    """A copy of a global rule whose cache also counts its evidence in other scopes."""
    if not caches:
        return rule
    out = dict(rule)
    for key in ("detections", "suppressions", "misses"):
        out[key] = int(rule.get(key, 0) or 0) + sum(int(c.get(key, 0) or 0) for c in caches)
    for key in ("last_detected", "last_suppressed"):
        times = [t for t in [rule.get(key)] + [c.get(key) for c in caches] if t]
        out[key] = max(times, key=lambda t: parse_time(t) or 0.0) if times else None
    return out


def scope_caches(rules_docs: list[dict]) -> dict[str, list[dict]]:
    """rule id -> the `global_evidence` caches of the given project rules.yaml documents."""
    out: dict[str, list[dict]] = {}
    for doc in rules_docs:
        for rid, cache in ((doc or {}).get("global_evidence") or {}).items():
            if isinstance(cache, dict):
                out.setdefault(rid, []).append(cache)
    return out


LEDGER_HEADER = "Imported ledger (rule kind time session key):"
_LINE = None


def ledger_line(ev: Evidence) -> str:
    """One imported entry as a line of the import commit's body."""
    from cogit.domain.times import now_iso

    return f"{ev.rule} {ev.kind} {now_iso(ev.time)} {ev.session} {ev.key}"


def imported_entries(body: str, sha: str, summary: str = "") -> list[Evidence]:
    """The entries an import commit's body lists (lines of any other shape are not entries)."""
    global _LINE
    if _LINE is None:
        import re

        _LINE = re.compile(r"^(ru-[0-9a-f]{4,16}) (detect|suppress) (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) ([!-~]{1,40}) ([0-9a-f]{8,40})$")
    out = []
    if LEDGER_HEADER not in body:
        return out
    for line in body.split(LEDGER_HEADER, 1)[1].splitlines():
        m = _LINE.match(line.strip())
        if m:
            t = parse_time(m.group(3))
            if t is not None:
                out.append(Evidence(m.group(2), m.group(1), m.group(4), sha, int(t), m.group(2) == "suppress", summary, key=m.group(5)))
    return out


def cache_fields(entries: list[Evidence]) -> dict:
    """The rules.yaml cache of a ledger."""
    from cogit.domain.times import now_iso

    det = [e for e in entries if e.kind == "detect"]
    sup = [e for e in entries if e.kind == "suppress"]
    out = {
        "detections": len(det),
        "suppressions": len(sup),
        "misses": sum(1 for e in det if e.injected),
        "last_detected": now_iso(det[-1].time) if det else None,
        "last_suppressed": now_iso(sup[-1].time) if sup else None,
    }
    held = sum(1 for e in entries if e.kind == "withheld" or (e.kind == "detect" and e.withheld))
    if held:  # the withheld-and-relevant sessions (read with controls=True); no confidence in it
        out["withheld"] = held
    return out


def history(entries: list[Evidence], created: float | None, now: float, config: dict | None = None) -> list[tuple[float, float]]:
    """(time, confidence) after each piece of evidence, then now: the rule's confidence over time."""
    points = []
    if created is not None:
        points.append((created, confidence(0, created, created, config)))
    misses = 0
    for n, ev in enumerate(entries, 1):
        misses += ev.kind == "detect" and ev.injected
        points.append((float(ev.time), confidence(n, ev.time, ev.time, config, misses)))
    points.append((now, confidence(len(entries), entries[-1].time if entries else created, now, config, misses)))
    return points


BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: list[float]) -> str:
    return "".join(BARS[min(len(BARS) - 1, int(max(0.0, min(1.0, v)) * len(BARS)))] for v in values)
