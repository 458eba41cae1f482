"""The seesaw problem, simulated: does a rule that works stay injected?

An agent runs one session a day for SESSIONS days. In a session it runs commands with
probability P_WORK; when it does, it falls into an error loop with probability P_FAIL, or
P_FAIL_RULE when the rule against that loop was injected at session start. The first loop
creates the rule. Two memories are compared, both with cogit's real code for confidence
(cogit/domain/ledger.py: `confidence`, `of_item`, `cache_fields`) and for digest selection
(cogit/digest/assemble.py `compile_text`, which ranks with cogit/domain/rank.py and drops rules
under the confidence floor), next to other rules competing for the digest's rule quota:

- naive:  only detections are evidence (suppressions are never recorded, as in Metacog's
          normal flow) and confidence decays from the last detection at once, with a
          NAIVE_HALF_LIFE-day half-life (no dormancy grace): standard time decay.
- cogit:  detections and suppressions (rule injected, commands run, no loop) are evidence;
          decay only after 60 dormant days, 60-day half-life (the defaults).

Reports, per mode: retention (share of sessions after the rule was learned in which it was
injected), the error-loop rate after learning, and how often the rule dropped out of the
digest; over SEEDS random seeds. Writes docs/seesaw.svg (seed 0). Run: python bench/seesaw.py
"""

from __future__ import annotations

import os
import random
import sys
import time

# The installed cogit is imported (never this checkout by path: bench/run's rule).
from cogit.domain import ledger  # noqa: E402
from cogit.digest.assemble import compile_text  # noqa: E402
from cogit.domain.times import now_iso  # noqa: E402

SESSIONS = 300
SEEDS = 20
P_WORK = 0.8
P_FAIL = 0.5
P_FAIL_RULE = 0.05
NAIVE_HALF_LIFE = 14.0
DAY = 86400.0
RULE = "ru-5ee5a0"


def competitors(now: float) -> list[dict]:
    """Two other rules, active now and then: the learned rule must earn its place."""
    out = []
    for n, evidence in enumerate((3, 1)):
        t = now_iso(now - 5 * DAY)
        out.append({"id": f"ru-00000{n}", "text": f"Another rule {n}", "detector": "repeated_read", "source": "detector",
                    "detections": evidence, "suppressions": 0, "last_detected": t, "last_suppressed": None,
                    "created_at": now_iso(now - 90 * DAY), "updated_at": t})
    return out


def simulate(mode: str, seed: int) -> dict:
    rng = random.Random(seed)
    config = {"digest": {"rules": 2, "max_chars": 2000}, "learning": dict(ledger.DEFAULTS)}
    if mode == "naive":
        config["learning"].update(rule_dormant_days=0.0, rule_half_life_days=NAIVE_HALF_LIFE)
    evidence: list[ledger.Evidence] = []
    learned_at = None
    injected_log, fail_log, conf_log = [], [], []
    real_now = time.time()
    for day in range(SESSIONS):
        sim_now = day * DAY

        def real(t):  # the simulated clock, shifted so that "now" is the real now
            return real_now - (sim_now - t)

        injected = False
        if learned_at is not None:
            shifted = [ledger.Evidence(e.kind, e.rule, e.session, e.sha, int(real(e.time)), e.injected) for e in evidence]
            rule = {"id": RULE, "text": "When a command fails the same way twice, read the error's source before retrying.",
                    "detector": "error_loop", "source": "detector", "created_at": now_iso(real(learned_at)),
                    "updated_at": now_iso(real_now), **ledger.cache_fields(shifted)}
            state = {"rules": {"items": [rule] + competitors(real_now)}, "tools": {"sessions": day}}
            injected = f"[{RULE}]" in compile_text([("global", state)], config)["text"]
            conf_log.append(ledger.of_item(rule, real_now, config))
        else:
            conf_log.append(0.0)
        worked = rng.random() < P_WORK
        failed = worked and rng.random() < (P_FAIL_RULE if injected else P_FAIL)
        if failed:
            if learned_at is None:
                learned_at = sim_now
            evidence.append(ledger.Evidence("detect", RULE, f"s{day}", "", int(sim_now), injected))
        elif injected and worked and mode == "cogit":
            evidence.append(ledger.Evidence("suppress", RULE, f"s{day}", "", int(sim_now), True))
        injected_log.append(injected)
        fail_log.append(failed)
    start = int(learned_at / DAY) + 1 if learned_at is not None else SESSIONS
    after = range(start, SESSIONS)
    drops = sum(1 for d in after if d > start and injected_log[d - 1] and not injected_log[d])
    return {
        "retention": sum(injected_log[d] for d in after) / max(1, len(after)),
        "fail_rate": sum(fail_log[d] for d in after) / max(1, len(after)),
        "drops": drops,
        "injected": injected_log,
        "failed": fail_log,
        "confidence": conf_log,
        "learned": start,
    }


def svg(results: dict, path: str) -> None:
    """A small hand-written SVG: confidence over sessions, injected sessions, loops."""
    w, h, pad, band = 900, 360, 40, 150
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{pad}" y="18" font-size="14">The seesaw: the rule\'s confidence per session ({SESSIONS} sessions, seed 0); '
           'bars: rule injected; dots: error loops</text>']
    colors = {"naive": "#c0392b", "cogit": "#2471a3"}
    for row, mode in enumerate(("naive", "cogit")):
        r = results[mode]
        top = 30 + row * (band + 10)
        x = lambda i: pad + i * (w - 2 * pad) / SESSIONS  # noqa: E731
        y = lambda v: top + band - 20 - v * (band - 40)  # noqa: E731
        out.append(f'<text x="{pad}" y="{top + 12}" fill="{colors[mode]}">{mode}: retention {r["retention"]:.0%}, '
                   f'loop rate after learning {r["fail_rate"]:.0%}, dropped out {r["drops"]}×</text>')
        for i, on in enumerate(r["injected"]):
            if on:
                out.append(f'<rect x="{x(i):.1f}" y="{top + band - 16}" width="{(w - 2 * pad) / SESSIONS:.2f}" height="6" '
                           f'fill="{colors[mode]}" opacity="0.35"/>')
            if r["failed"][i]:
                out.append(f'<circle cx="{x(i):.1f}" cy="{top + band - 4}" r="2" fill="black"/>')
        pts = " ".join(f"{x(i):.1f},{y(c):.1f}" for i, c in enumerate(r["confidence"]))
        out.append(f'<polyline points="{pts}" fill="none" stroke="{colors[mode]}" stroke-width="1.5"/>')
        floor = ledger.DEFAULTS["rule_min_confidence"]
        out.append(f'<line x1="{pad}" x2="{w - pad}" y1="{y(floor):.1f}" y2="{y(floor):.1f}" stroke="#999" stroke-dasharray="4 3"/>')
        out.append(f'<text x="{w - pad + 2}" y="{y(floor) + 4:.1f}" fill="#999">floor</text>')
    out.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def main() -> None:
    rows = {}
    for mode in ("naive", "cogit"):
        runs = [simulate(mode, seed) for seed in range(SEEDS)]
        rows[mode] = runs
        ret = sum(r["retention"] for r in runs) / SEEDS
        worst = min(r["retention"] for r in runs)
        fail = sum(r["fail_rate"] for r in runs) / SEEDS
        drops = sum(r["drops"] for r in runs) / SEEDS
        print(f"{mode:6} retention after learning: mean {ret:.1%} (worst seed {worst:.1%}); "
              f"error-loop rate after learning {fail:.1%}; dropped out of the digest {drops:.1f}× per run")
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "seesaw.svg")
    svg({m: rows[m][0] for m in rows}, path)
    print(f"{SESSIONS} sessions × {SEEDS} seeds per mode; plot: {os.path.relpath(path)}")
    cogit_worst = min(r["retention"] for r in rows["cogit"])
    if cogit_worst < 0.95:
        print(f"GOAL MISSED: cogit kept the rule injected in {cogit_worst:.1%} of sessions (goal 95%)")
        sys.exit(1)


if __name__ == "__main__":
    main()
