"""A rule's measured effect and whether it was applied, counted from its evidence commits.

The one place these numbers come from (`cogit rules`, `cogit rules show`, the report):
`rule_effects(home)` -> {rule_id: {"shown", "withheld", "effect", "interval", "enough",
"verdict", "applied", "text", ...}}. The arithmetic (Newcombe's interval, the verdict) is
cogit/domain/effect.py; the method and its limits: docs/learning.md#measured-effect.

What each commit says (read by ledger_history.read with controls=True):

| commit | the session |
|---|---|
| `rule.suppress` | was shown the rule, came near it, no pattern (`Cogit-Followed`) |
| `rule.detect`, `Cogit-Injected: yes` | was shown the rule, the pattern happened (a miss; `Cogit-Followed`) |
| `rule.detect`, `Cogit-Withheld: yes` | had it withheld, the pattern happened |
| `rule.withheld` | had it withheld, came near it, no pattern |
| `rule.idle` (`Cogit-Item`) | was shown it and never came near it |
| a fold with `Cogit-Withheld-Rules` | had these withheld (relevant or not) |
| `rule.review` | an effect review of the rule was proposed (once per rule) |

Nothing here is stored as a number: revert an evidence commit and the effect follows.
"""

from __future__ import annotations

from cogit.domain import effect as arithmetic
from cogit.learn import ledger_history
from cogit.paths import Home

MAIN = "main"  # = store.git.repo.MAIN: this module imports no dulwich until it reads git (cogit/quickrules.py)


def _scopes(repo) -> list[str]:
    from cogit.store.git import repo as git

    return [MAIN] + [b for b in git.branches(repo) if b.startswith("project/")]


def counts(entries: list) -> tuple[dict, dict, dict, bool]:
    """(shown, withheld, applied, reviewed) of one rule's entries (see the module docstring)."""
    shown = {"sessions": 0, "relevant": 0, "pattern": 0}
    held = {"sessions": 0, "relevant": 0, "pattern": 0}
    applied = {"relevant": 0, "shown": 0, "followed": 0}
    reviewed = False
    for e in entries:
        if e.kind == "review":
            reviewed = True
        elif e.kind == "held":
            held["sessions"] += 1
        elif e.kind == "idle":
            shown["sessions"] += 1
        elif e.kind == "withheld" or (e.kind == "detect" and e.withheld):
            held["relevant"] += 1
            held["pattern"] += e.kind == "detect"
            applied["relevant"] += 1
        elif e.kind == "suppress" or (e.kind == "detect" and e.injected):
            shown["sessions"] += 1
            shown["relevant"] += 1
            shown["pattern"] += e.kind == "detect"
            applied["relevant"] += 1
            applied["shown"] += 1
            # Before Cogit-Followed existed: a suppression kept the pattern away, a miss did not.
            applied["followed"] += (e.followed == "yes") if e.followed else e.kind == "suppress"
        elif e.kind == "detect":  # not shown (a new rule, dormant, cut by the budget): relevant all the same
            applied["relevant"] += 1
    held["sessions"] = max(held["sessions"], held["relevant"])  # a fold older than its trailer
    return shown, held, applied, reviewed


def of_entries(entries: list, config: dict | None = None) -> dict:
    shown, held, applied, reviewed = counts(entries)
    out = arithmetic.measure(shown, held, applied, config)
    out["reviewed"] = reviewed
    return out


def rule_effects(home: Home, rule_ids: list[str] | None = None, branches: list[str] | None = None) -> dict:
    """rule id -> its effect dict (the shape the module docstring names), for every rule in
    memory (or those of `rule_ids`, or of `branches`). Also "scope" (global or the project's
    branch) and "branch" (where the rule lives)."""
    from cogit.store.git import repo as git
    from cogit.store.git.repo import open_existing
    from cogit.store.write.transact import load_state, main_config

    repo = open_existing(home)
    try:
        config = main_config(repo)
        scopes = _scopes(repo)
        rules = [(b, (load_state(repo, sha).get("rules") or {}).get("items") or [])
                 for b in branches or scopes for sha in [git.head(repo, b)] if sha]
        return effects_from(rules, rule_ids, scopes, config, repo, {})
    finally:
        repo.close()


def effects_from(rules: list, rule_ids, scopes: list[str], config, repo, books: dict) -> dict:
    """`rule_effects` of the rules given as [(branch, items)]: each scope's ledger (with
    controls) from `books`, read from `repo` when missing (the quick path fills it)."""
    out = {}
    for b, items in rules:
        for rule in items:
            rid = rule.get("id")
            if not rid or (rule_ids is not None and rid not in rule_ids):
                continue
            out[rid] = dict(of_entries(entries_of(repo, rid, b, scopes, books), config),
                            scope="global" if b == MAIN else b, branch=b)
    return out


def entries_of(repo, rule_id: str, branch: str, scopes: list[str], books: dict) -> list:
    """A rule's entries with controls: its branch's, and for a global rule every project's too."""
    def book(b):
        if b not in books:
            books[b] = ledger_history.read(repo, b, controls=True)
        return books[b]

    entries = list(book(branch).get(rule_id, []))
    if branch == MAIN:
        for b in scopes[1:]:
            entries += book(b).get(rule_id, [])
        # The fold commits (their Cogit-Withheld-Rules) are on main, also for a project's rule.
    elif MAIN in scopes:
        entries += [e for e in book(MAIN).get(rule_id, []) if e.kind == "held"]
    return sorted(entries, key=lambda e: e.time)


def review_text(rid: str, rule: dict | None, e: dict) -> str:
    from cogit.redact import clip

    what = clip(" ".join(str((rule or {}).get("text") or "").split()), 160, 0, "")
    return (f"Retire rule {rid} (\"{what}\")? Its measured effect stays at zero or below. {e['text']} "
            f"`cogit accept` forgets it (a tombstone keeps its pattern from making it again); `cogit reject` keeps it.")


def review_due(home: Home, branch: str, rule_ids: list[str], prov) -> list:
    """Put each of these rules whose effect, with enough data, is at zero or below into the
    review inbox, once per rule (a `rule.review` commit on the rule's branch)."""
    if not rule_ids:
        return []
    from cogit.store.write.transact import transact

    effects = rule_effects(home, list(dict.fromkeys(rule_ids)))
    results = []
    for rid, e in effects.items():
        if not e["enough"] or e["effect"] is None or e["effect"] > 0 or e["reviewed"]:
            continue
        prov.extra = {"Cogit-Rule": rid}
        prov.evidence = e["text"]
        result = transact(home, prov, _propose(rid, e), branch=e["branch"])
        if result:
            results.append(result)
    return results


def _propose(rid: str, e: dict):
    from cogit.domain.times import now_iso
    from cogit.domain.tombstones import reflections_list, short_id
    from cogit.learn.inbox import MAX_PENDING
    from cogit.store.write.transact import Change

    def apply(state):
        rule = next((r for r in state["rules"]["items"] if r.get("id") == rid), None)
        pending = reflections_list(state, "proposals")
        if rule is None or any(p.get("retire") == rid for p in pending) or len(pending) >= MAX_PENDING:
            return None
        now = now_iso()
        pid = short_id("p", {p.get("id") for p in pending})
        pending.append({"id": pid, "section": "rules", "text": review_text(rid, rule, e)[:2000], "source": "effect",
                        "retire": rid, "created_at": now, "updated_at": now})
        return Change(f"Review rule {rid}: its measured effect is {e['effect'] * 100:+.0f} points ({e['verdict']})",
                      body=e["text"] + f"\n\nWaiting for review: {pid} (`cogit review`).", trailers={"Cogit-Item": pid})

    return apply
