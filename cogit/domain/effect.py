"""A rule's measured effect: the arithmetic (pure; the counts come from history, cogit/learn/effect.py).

In a small random share of the sessions where a learned rule would be shown, it is withheld
(cogit/hooks/withhold.py). Among the sessions that came near what the rule is about
(detectors.relevant), compare how often its pattern happened:

    effect = rate(pattern | withheld, relevant) - rate(pattern | shown, relevant)

Positive: the pattern is rarer when the rule is shown (it helps). The interval is Newcombe's
hybrid score interval for a difference of two independent proportions (Newcombe 1998,
method 10), built from the Wilson score interval of each rate, at 95%. It behaves at small
counts and at rates of 0 or 1, where the plain Wald interval does not.

Verdict: "not enough data" until both groups have `learning.effect_min_sessions` sessions
(default 10); then "helps" when the interval is above 0, "hurts" when it is below 0, else
"no effect".
"""

from __future__ import annotations

import math

Z = 1.959964  # 95%
MIN_SESSIONS = 10
DEFAULT_SHARE = 0.1
MAX_SHARE = 0.5


def settings(config: dict | None) -> dict:
    learning = (config or {}).get("learning") or {}
    share = learning.get("withhold", DEFAULT_SHARE)
    try:
        share = min(MAX_SHARE, max(0.0, float(share)))
    except (TypeError, ValueError):
        share = DEFAULT_SHARE
    try:
        least = max(1, int(learning.get("effect_min_sessions", MIN_SESSIONS)))
    except (TypeError, ValueError):
        least = MIN_SESSIONS
    return {"share": share, "person_rules": learning.get("withhold_person_rules") is True, "min_sessions": least}


def person_wrote(rule: dict) -> bool:
    """A rule a person wrote (`cogit add rule`, a hand edit): never withheld unless asked."""
    return str(rule.get("source") or "") in ("cli", "human")


def wilson(k: int, n: int, z: float = Z) -> tuple[float, float]:
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe(k1: int, n1: int, k2: int, n2: int, z: float = Z) -> tuple[float, float]:
    """95% interval of p1 - p2 (Newcombe's hybrid score method)."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, z)
    l2, u2 = wilson(k2, n2, z)
    d = p1 - p2
    return d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def measure(shown: dict, withheld: dict, applied: dict, config: dict | None = None) -> dict:
    """The effect dict of one rule from its counts ({"sessions", "relevant", "pattern"} each)."""
    least = settings(config)["min_sessions"]
    ns, ks = int(shown["relevant"]), int(shown["pattern"])
    nw, kw = int(withheld["relevant"]), int(withheld["pattern"])
    out = {"shown": dict(shown), "withheld": dict(withheld), "effect": None, "interval": None, "enough": False,
           "verdict": "not enough data", "applied": dict(applied), "min_sessions": least}
    if ns and nw:
        out["effect"] = round(kw / nw - ks / ns, 4)
        lo, hi = newcombe(kw, nw, ks, ns)
        out["interval"] = [round(lo, 4), round(hi, 4)]
    out["enough"] = ns >= least and nw >= least
    if out["enough"]:
        lo, hi = out["interval"]
        out["verdict"] = "helps" if lo > 0 else "hurts" if hi < 0 else "no effect"
    out["text"] = sentence(out)
    return out


def _pct(v: float) -> str:
    return f"{v * 100:.0f}%"


def sentence(e: dict) -> str:
    s, w = e["shown"], e["withheld"]
    rates = (f"the pattern happened in {s['pattern']} of {s['relevant']} relevant sessions where the rule was shown "
             f"and in {w['pattern']} of {w['relevant']} where it was withheld")
    if not e["enough"]:
        return (f"Not enough data yet: {rates}; a verdict needs {e['min_sessions']} relevant sessions of each.")
    lo, hi = e["interval"]
    pts = f"{e['effect'] * 100:+.0f} points (95% interval {lo * 100:+.0f} to {hi * 100:+.0f}, Newcombe)"
    verdict = {"helps": "It helps", "hurts": "It hurts", "no effect": "No measurable effect"}[e["verdict"]]
    return f"{verdict}: {rates}, {pts}."


def candidates(scopes: list[tuple[str, dict]], config: dict | None) -> dict:
    """For the digest cache (the hooks read it): the share, and the rules that may be
    withheld (learned ones; a person's too only with `learning.withhold_person_rules`)."""
    s = settings(config)
    ids = []
    if s["share"] > 0:
        for _, state in scopes:
            for rule in (state.get("rules") or {}).get("items") or []:
                if isinstance(rule, dict) and rule.get("id") and (s["person_rules"] or not person_wrote(rule)):
                    ids.append(str(rule["id"]))
    return {"share": s["share"], "rules": ids}
