"""The built-in reflection: a deterministic answer from memory alone, no model asked.

Split from cogit/learn/reflect.py.
"""

from __future__ import annotations

import time


# --------------------------------------------------------------------------- the built-in analysis


def builtin_answer(state: dict, past_tools: dict | None, rule_evidence: dict, now: float | None = None) -> dict:
    """A deterministic reflection from memory alone (see docs/reflection.md).

    - a tool whose success rate over the last sessions fell 15+ points below its rate before;
    - a tool that fails often (under 70% success over 10+ calls): a learning to propose;
    - a three-call sequence seen 5+ times: a heuristic worth proposing;
    - a rule whose pattern happened 2+ times in sessions that were shown it;
    - a heuristic never used 14+ days after it was added.
    """
    from cogit.domain.ledger import DAY, parse_time

    now = time.time() if now is None else now
    insights, patterns, questions, heuristics, learnings = [], [], [], [], []
    tools = ((state.get("tools") or {}).get("tools") or {})
    before = (past_tools or {}).get("tools") or {}
    for name in sorted(tools):
        t = tools[name]
        calls, fails = int(t.get("calls", 0)), int(t.get("failures", 0))
        old = before.get(name) or {}
        oc, of = int(old.get("calls", 0)), int(old.get("failures", 0))
        rc, rf = calls - oc, fails - of
        if oc >= 5 and rc >= 5 and rf >= 0:
            then, recent = 1 - of / oc, 1 - rf / rc
            if then - recent >= 0.15:
                insights.append(f"{name} succeeded in {recent:.0%} of its last {rc} calls, down from {then:.0%} before: "
                                "something changed (the tool, the environment, or how it is called).")
                questions.append(f"What changed for {name} in the recent sessions?")
        if calls >= 10 and fails / calls > 0.3:
            learnings.append({"text": f"{name} fails often ({1 - fails / calls:.0%} success over {calls} calls): "
                                      f"check its inputs before calling it, and read the error before retrying.",
                              "category": "pattern"})
    seqs = (state.get("tools") or {}).get("sequences") or {}
    for seq, n in sorted(seqs.items(), key=lambda kv: (-int(kv[1]), kv[0])):
        if seq.count(" > ") == 2 and int(n) >= 5 and len(heuristics) < 2:
            steps = seq.split(" > ")
            if len(set(steps)) > 1:  # a proposal for review; a count alone is no insight (issue 22)
                heuristics.append(f"A working sequence seen {n} times: {' → '.join(steps)}; follow it for similar tasks.")
    for rule in ((state.get("rules") or {}).get("items") or []):
        shown = [e for e in rule_evidence.get(rule.get("id"), []) if e.kind == "detect" and e.injected]
        if len(shown) >= 2:
            patterns.append(f"Rule {rule['id']} (\"{rule.get('text', '')[:120]}\") was shown and its pattern still happened "
                            f"in {len(shown)} sessions.")
            questions.append(f"Is rule {rule['id']} worded so the agent can act on it, or is the cause elsewhere?")
    for h in ((state.get("heuristics") or {}).get("items") or []):
        created = parse_time(h.get("created_at"))
        if created and not int(h.get("use_count", 0) or 0) and not int(h.get("evidence", 0) or 0) and now - created >= 14 * DAY:
            questions.append(f"Heuristic {h['id']} (\"{h.get('text', '')[:120]}\") has not been used since it was added on "
                             f"{str(h.get('created_at'))[:10]}: keep it, or forget it (`cogit forget {h['id']}`)?")
    cut = lambda xs: [x[:500] for x in xs[:10]]  # noqa: E731 - the answer schema's bounds
    return {"insights": cut(insights), "patterns": cut(patterns), "questions": cut(questions),
            "heuristics": cut(heuristics), "learnings": learnings[:10], "avoidances": [], "rules": [], "focus": None}
