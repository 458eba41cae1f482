"""A rule's ledger read from history: the evidence commits reachable from a branch's head.

What counts (detections, suppressions, imported entries, minus what a reachable revert
undid) is described in cogit/domain/ledger.py, which holds the arithmetic; this is the
half that walks git.
"""

from __future__ import annotations

from cogit.domain.ledger import DETECT, EVENTS, REVIEW, WITHHELD, Evidence, imported_entries


def read(repo, branch: str, also_reverted: str | None = None, controls: bool = False) -> dict[str, list[Evidence]]:
    """rule id -> its evidence, oldest first, from the history of `branch`.

    `also_reverted`: a commit to count as reverted (the revert being committed right now).
    `controls`: also the entries that are no confidence evidence (cogit/learn/effect.py): kind
    "withheld" (withheld, relevant, the pattern did not happen) and "review" (an effect review
    was proposed)."""
    from cogit.store.git import repo as git
    from cogit.store.git.provenance import parse

    def commits():
        for info in git.walk(repo, git.head(repo, branch)):
            msg = info.message
            if "Cogit-Rule: " not in msg and "Cogit-Reverts: " not in msg and "Cogit-Ledger: " not in msg and not (
                    controls and ("Cogit-Withheld-Rules: " in msg or "Cogit-Event: rule.idle" in msg)):
                continue
            yield (info.sha, info.time, *parse(msg))

    return book(commits(), also_reverted, controls)


def book(commits, also_reverted: str | None = None, controls: bool = False) -> dict[str, list[Evidence]]:
    """`read`'s answer from the commits of a branch in `git.walk`'s order, each (sha, time,
    summary, body, trailers): the ones `read` gets from git, or the history index's records
    (cogit/quickrules.py). Any commit may be given: only its trailers decide what it is."""
    found: list[Evidence] = []
    reverts: dict[str, list[str]] = {}
    for sha, when, summary, body, trailers in commits:
        target = trailers.get("Cogit-Reverts")
        if target:
            reverts.setdefault(target, []).append(sha)
        event = trailers.get("Cogit-Event")
        if event in EVENTS and trailers.get("Cogit-Rule"):
            found.append(Evidence("detect" if event == DETECT else "suppress", trailers["Cogit-Rule"],
                                  trailers.get("Cogit-Session", "-"), sha, when,
                                  trailers.get("Cogit-Injected") == "yes", summary,
                                  withheld=trailers.get("Cogit-Withheld") == "yes", followed=trailers.get("Cogit-Followed", "")))
        elif controls and event in (WITHHELD, REVIEW) and trailers.get("Cogit-Rule"):
            for rid in trailers["Cogit-Rule"].split():
                found.append(Evidence("withheld" if event == WITHHELD else "review", rid, trailers.get("Cogit-Session", "-"),
                                      sha, when, False, summary, withheld=event == WITHHELD))
        elif controls and (event == "rule.idle" or trailers.get("Cogit-Withheld-Rules")):
            # Sessions that were shown a rule and never came near it (idle), and the rules a
            # session withheld (its fold commit): the denominators of the measured effect.
            idle = event == "rule.idle"
            for rid in str(trailers.get("Cogit-Item" if idle else "Cogit-Withheld-Rules") or "").split()[:80]:
                found.append(Evidence("idle" if idle else "held", rid, trailers.get("Cogit-Session", "-"), sha, when,
                                      idle, summary, withheld=not idle))
        elif trailers.get("Cogit-Ledger") and str(event).startswith("import."):
            found.extend(imported_entries(body, sha, summary))
    if also_reverted:
        reverts.setdefault(also_reverted, []).append("(this revert)")
    memo: dict[str, bool] = {}

    def undone(sha: str, depth: int = 0) -> bool:
        if sha not in memo:
            memo[sha] = depth < 50 and any(not undone(r, depth + 1) for r in reverts.get(sha, []))
        return memo[sha]

    out: dict[str, list[Evidence]] = {}
    for ev in sorted(reversed(found), key=lambda e: e.time):  # oldest first, stable within a second
        if not undone(ev.sha):
            out.setdefault(ev.rule, []).append(ev)
    return out
