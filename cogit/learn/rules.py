"""Rules: detections and suppressions of a finished session, committed as evidence.

Runs in `cogit finalize` (never in a hook), once per folded session part:

1. The detectors run over the part's trace (cogit/learn/detectors.py).
2. A detection matches the rule with the same detector and signature (the session's project
   first, then global). No match: a new rule is created from the detector's lesson (or the
   motor learning of the resolved episode), `source: detector`; the commit that creates it
   is its first detection. The same detector and signature never create a second rule.
3. A rule that the session was shown (its id in this part's injection receipts, never a
   global marker), whose precondition held (the session did that kind of work) and that was
   not detected earns a suppression.
4. Each piece of evidence is one commit through the write path, on the branch where the rule
   lives (so it is counted in exactly one scope), with `Cogit-Event: rule.detect` or
   `rule.suppress`, `Cogit-Rule`, `Cogit-Session`, `Cogit-Injected` and a `Cogit-Fold` id
   (a crash-recovering finalize never counts it twice). The commit rewrites the rule's
   ledger cache (cogit/learn/ledger.py).
5. Heuristics the session was shown and that apply to what the session did successfully (the
   heuristic names a tool or program the session ran, and no failure pattern was detected)
   get `use_count` + 1 and `last_used` (`Cogit-Event: heuristic.use`). Praised ones get
   the same in the session's fold commit (cogit/learn/drain.py).
"""

from __future__ import annotations

import os
import time

from cogit.learn import detectors
from cogit.domain import ledger
from cogit.learn import ledger_history
from cogit.learn.record import TRACE, read_trace
from cogit.paths import Home
from cogit.store.git import repo as git
from cogit.store.git.provenance import Provenance
from cogit.store.state.documents import new_id
from cogit.domain.times import now_iso
from cogit.store.write.transact import Change, State, main_config, transact


def new_rule(state: State, text: str, detector: str, signature: str = "", source: str = "detector") -> dict:
    now = now_iso()
    rule = {"id": new_id("rules", state), "text": " ".join(str(text).split())[:2000], "detector": detector,
            "detections": 0, "suppressions": 0, "last_detected": None, "last_suppressed": None,
            "source": source, "created_at": now, "updated_at": now}
    if signature:
        rule["signature"] = signature[:300]
    state["rules"]["items"].append(rule)
    return rule


def match(items, detector: str, signature: str) -> dict | None:
    """The rule for this detector and signature; else a general rule of the detector (no
    signature, e.g. a person's `cogit add rule ... --detector error_loop`)."""
    general = None
    for rule in items or []:
        if rule.get("detector") == detector:
            sig = str(rule.get("signature") or "")
            if sig == signature:
                return rule
            if not sig and general is None:
                general = rule
    return general


def add_rule(text: str, detector: str, config: dict | None, signature: str = ""):
    """`cogit add rule TEXT --detector NAME`: a person's rule, which then learns like any other."""
    from cogit.errors import UsageError

    names = list(detectors.BUILTIN) + list(detectors._custom(config))
    if detector not in names:
        raise UsageError(f"unknown detector {detector!r}", hint="Detectors: " + ", ".join(names) + " (custom ones in config learning.custom_detectors).")
    text = " ".join(text.split())
    if not text:
        raise UsageError("the text is empty", hint='Give the rule, e.g. cogit add rule "Read the error before retrying" --detector error_loop')

    def apply(state: State) -> Change | None:
        items = state["rules"]["items"]
        if any(r.get("text") == text for r in items):
            return None
        existing = match(items, detector, signature)
        if existing and str(existing.get("signature") or "") == signature:
            raise UsageError(f"a rule for detector {detector!r} already exists: {existing['id']}",
                             hint="Edit its text with `cogit edit rules`, or forget it first.")
        rule = new_rule(state, text, detector, signature, source="cli")
        return Change(f"Add rule {rule['id']}: {text}", trailers={"Cogit-Item": rule["id"]})

    return apply


def evidence(home: Home, kind: str, rule_id: str, branch: str, create: dict | None = None, global_rule: dict | None = None):
    """Apply: record one detection/suppression of a rule (or create it with its first detection).

    `global_rule`: the rule lives on main but the session ran in the project of `branch`:
    the evidence lands in the project (its `global_evidence` cache), never in main."""
    if global_rule is not None:
        return _global_evidence(home, kind, global_rule, branch)

    def apply(state: State) -> Change | None:
        items = state["rules"]["items"]
        rule = next((r for r in items if r.get("id") == rule_id), None) if rule_id else None
        if rule is None and create:
            rule = match(items, create["detector"], create["signature"]) or new_rule(state, create["lesson"], create["detector"], create["signature"])
            created = rule["detections"] == 0 and rule["suppressions"] == 0 and rule.get("source") == "detector"
        else:
            created = False
        if rule is None:
            return None  # forgotten since it was shown
        repo = git.open_repo(home.memory)
        try:
            entries = ledger_history.read(repo, branch).get(rule["id"], [])
        finally:
            repo.close()
        now = int(time.time())
        entries = entries + [ledger.Evidence(kind, rule["id"], "-", "", now, False)]
        rule.update(ledger.cache_fields(entries))
        rule.pop("confidence", None)  # derived from the ledger, never stored
        rule["updated_at"] = now_iso(now)
        verb = "Detected" if kind == "detect" else "Suppressed"
        what = f"New rule {rule['id']}" if created else f"{verb} rule {rule['id']}"
        return Change(f"{what}: {rule['text']}"[:200], trailers={"Cogit-Rule": rule["id"]})

    return apply


def _global_evidence(home: Home, kind: str, rule: dict, branch: str):
    def apply(state: State) -> Change | None:
        repo = git.open_repo(home.memory)
        try:
            entries = ledger_history.read(repo, branch).get(rule["id"], [])
        finally:
            repo.close()
        entries = entries + [ledger.Evidence(kind, rule["id"], "-", "", int(time.time()), False)]
        state["rules"].setdefault("global_evidence", {})[rule["id"]] = ledger.cache_fields(entries)
        verb = "Detected" if kind == "detect" else "Suppressed"
        return Change(f"{verb} global rule {rule['id']} in this project: {rule.get('text', '')}"[:200],
                      trailers={"Cogit-Rule": rule["id"]})

    return apply


def _applies(text: str, trace: list[dict]) -> bool:
    words = {w.strip("`'\".,:;()[]").lower() for w in str(text).split()}
    used = set()
    for line in trace:
        if "tool" in line and line.get("ok", True):
            used.add(str(line.get("tool")).lower())
            if line.get("cmd"):
                used.add(str(line["cmd"]).split()[0].rsplit("/", 1)[-1].lower())
    return bool(words & used)


def heuristic_use(ids: list[str], trace: list[dict], praised: set[str], clean: bool):
    def apply(state: State) -> Change | None:
        used = []
        now = now_iso()
        for item in state["heuristics"]["items"]:
            # Praised ones were counted in the fold commit itself (drain._add_evidence).
            if item.get("id") in ids and item["id"] not in praised and clean and _applies(item.get("text", ""), trace):
                item["use_count"] = int(item.get("use_count", 0)) + 1
                item["last_used"] = now
                item["updated_at"] = now
                used.append(item["id"])
        if not used:
            return None
        return Change(f"Heuristics used: {', '.join(used)}", trailers={"Cogit-Item": " ".join(used)})

    return apply


def learn_from_session(home: Home, session_state: dict, pending: dict, branch: str, session, prov_of, fold_committed) -> list:
    """Turn one folded session part into rule evidence and heuristic use (commits)."""
    done = int(session_state.get("trace_done") or 0)
    trace = read_trace(os.path.join(session.dir, TRACE), done)
    if not trace:
        return []
    results = _learn(home, session_state, pending, branch, trace, prov_of, fold_committed)
    session.update(lambda s: s.__setitem__("trace_done", done + len(trace)), create=False)
    return results


def _learn(home, session_state, pending, branch, trace, prov_of, fold_committed) -> list:
    repo = git.open_repo(home.memory)
    try:
        config = main_config(repo)
        branches = [branch] + ([git.MAIN] if branch != git.MAIN else [])
        from cogit.store.write.transact import load_state

        rules_of = {b: list((load_state(repo, git.head(repo, b)).get("rules") or {}).get("items") or []) for b in branches if git.head(repo, b)}
    finally:
        repo.close()
    config = dict(config or {})
    shown = []
    for r in pending.get("receipts") or []:
        shown += [i for i in (r.get("shown") or []) if isinstance(i, str)]
    plan = []  # (kind, rule_id or None, global rule or None, create, key, injected, why)
    detected: set[str] = set()
    for d in detectors.run(trace, config):
        where = next(((b, r) for b in branches for r in [match(rules_of.get(b), d.detector, d.signature)] if r), None)
        key = f"{d.detector}:{d.signature}"
        # Evidence lands in the scope where the session ran (`branch`), also for a global
        # rule (ledger.py: a project keeps its evidence of global rules in `global_evidence`).
        if where:
            b, rule = where
            detected.add(rule["id"])
            plan.append(("detect", rule["id"], rule if b != branch else None, None, key, rule["id"] in shown, d.evidence))
        else:
            plan.append(("detect", None, None, {"detector": d.detector, "signature": d.signature, "lesson": d.lesson}, key, False, d.evidence))
    for b in branches:
        for rule in rules_of.get(b, []):
            rid = rule.get("id")
            if rid in shown and rid not in detected and detectors.precondition(str(rule.get("detector")), trace, config):
                plan.append(("suppress", rid, rule if b != branch else None, None, rid, True, "shown, the work was done, the pattern did not happen"))
    results = []
    for kind, rid, global_rule, create, key, injected, why in plan:
        fold_id = f"{pending['id']}:rule:{key}"
        prov = prov_of(session_state, ledger.DETECT if kind == "detect" else ledger.SUPPRESS)
        prov.evidence = why
        prov.extra = {"Cogit-Injected": "yes" if injected else "no", "Cogit-Fold": fold_id}
        result = transact(home, prov, evidence(home, kind, rid, branch, create, global_rule), branch=branch, skip_if=fold_committed(fold_id))
        if result:
            results.append(result)
    praised = set((pending.get("agg") or {}).get("evidence") or {})
    heur = [i for i in shown if i.startswith("h-")]
    if heur:
        clean = not detected and not any(p[3] for p in plan)
        for b in branches:
            fold_id = f"{pending['id']}:use:{b}"
            prov = prov_of(session_state, "heuristic.use")
            prov.extra = {"Cogit-Fold": fold_id}
            result = transact(home, prov, heuristic_use(heur, trace, praised, clean), branch=b, skip_if=fold_committed(fold_id))
            if result:
                results.append(result)
    return results


def senses_line(agg: dict, session_state: dict | None = None) -> str:
    """For the fold commit: how often each sense fired in the session part, and what the
    bounded trace could not keep (nothing a sense saw is lost silently)."""
    counts = (agg or {}).get("senses") or {}
    parts = []
    if counts:
        parts.append("Senses fired: " + ", ".join(f"{name} {n}×" for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))) + ".")
    lost = int((session_state or {}).get("trace_lost") or 0)
    if lost:
        parts.append(f"{lost} tool calls beyond the trace bound (hooks.max_records) were counted but not analysed by the detectors.")
    return " ".join(parts)


def revert_evidence(home: Home, target: str, summary: str, rule_id: str, prov: Provenance, branch: str):
    """`cogit revert` of an evidence commit (or of the revert of one): the ledger loses (or
    regains) that evidence and the rule's cache is rewritten from it. A generic item revert
    would restore old counts over later evidence, or refuse because later sessions touched
    the rule; evidence is a ledger entry, so reverting it is removing the entry."""
    from cogit.errors import CogitError

    def apply(state: State) -> Change:
        items = state["rules"]["items"]
        rule = next((r for r in items if r.get("id") == rule_id), None)
        scoped = state["rules"].get("global_evidence") or {}
        if rule is None and rule_id in scoped:  # a project's evidence of a global rule
            repo = git.open_repo(home.memory)
            try:
                entries = ledger_history.read(repo, branch, also_reverted=target).get(rule_id, [])
            finally:
                repo.close()
            scoped[rule_id] = ledger.cache_fields(entries)  # kept at zero: a revert of this revert counts it again
            return Change(f'Revert "{summary}"', body=f"This reverts commit {target}: the rule's ledger in this project no longer counts it.",
                          trailers={"Cogit-Reverts": target, "Cogit-Rule": rule_id})
        if rule is None:
            raise CogitError(f"rule {rule_id} is no longer in memory; its evidence cannot be reverted",
                             hint=f"Bring the rule back first (`cogit log --item {rule_id}`, then `cogit revert` of the commit that removed it).")
        repo = git.open_repo(home.memory)
        try:
            entries = ledger_history.read(repo, branch, also_reverted=target).get(rule_id, [])
        finally:
            repo.close()
        rule.update(ledger.cache_fields(entries))
        rule.pop("confidence", None)
        rule["updated_at"] = now_iso()
        return Change(f'Revert "{summary}"', body=f"This reverts commit {target}: the rule's ledger no longer counts it.",
                      trailers={"Cogit-Reverts": target, "Cogit-Rule": rule_id})

    prov.event = "revert"
    result = transact(home, prov, apply, branch=branch)
    if result is None:
        raise CogitError(f"reverting {target[:10]} changes nothing", hint="It may have been reverted already (see `cogit rules show " + rule_id + "`).")
    return result


def _scopes(repo) -> list[str]:
    return [git.MAIN] + [b for b in git.branches(repo) if b.startswith("project/")]


def entries_of(repo, rule_id: str, branch: str, books: dict) -> list:
    """A rule's ledger: its branch's evidence, and for a global rule also what every project
    recorded of it (each piece of evidence is in exactly one scope), oldest first."""
    def book(b):
        if b not in books:
            books[b] = ledger_history.read(repo, b)
        return books[b]

    entries = [_labelled(e, branch) for e in book(branch).get(rule_id, [])]
    if branch == git.MAIN:
        for b in _scopes(repo)[1:]:
            entries += [_labelled(e, b) for e in book(b).get(rule_id, [])]
    return sorted(entries, key=lambda e: e.time)


def _labelled(ev, branch: str):
    ev.scope = "global" if branch == git.MAIN else branch
    return ev


def listing(home: Home, branches: list[str] | None = None, now: float | None = None) -> list[dict]:
    """Every rule with its ledger-derived numbers (`cogit rules`), best first."""
    from cogit.store.git.repo import open_existing
    from cogit.store.write.transact import load_state

    now = time.time() if now is None else now
    repo = open_existing(home)
    try:
        config = main_config(repo)
        if branches is None:
            branches = _scopes(repo)
        out = []
        books: dict = {}
        for b in branches:
            sha = git.head(repo, b)
            if not sha:
                continue
            items = (load_state(repo, sha).get("rules") or {}).get("items") or []
            for rule in items:
                out.append(_row(rule, entries_of(repo, rule.get("id"), b, books), b, now, config))
        return sorted(out, key=lambda r: (-r["confidence"], r["id"]))
    finally:
        repo.close()


def _row(rule: dict, entries: list, branch: str, now: float, config) -> dict:
    det = [e for e in entries if e.kind == "detect"]
    sup = [e for e in entries if e.kind == "suppress"]
    last = entries[-1].time if entries else ledger.parse_time(rule.get("created_at"))
    return {
        "id": rule.get("id"),
        "text": rule.get("text"),
        "detector": rule.get("detector"),
        "signature": rule.get("signature") or "",
        "confidence": ledger.confidence(len(entries), last, now, config),
        "detections": len(det),
        "suppressions": len(sup),
        "last_detected": now_iso(det[-1].time) if det else None,
        "last_suppressed": now_iso(sup[-1].time) if sup else None,
        "sessions_injected": len({e.session for e in entries if e.injected}),
        "scope": "global" if branch == git.MAIN else branch,
        "evidence_by_scope": {k: sum(1 for e in entries if getattr(e, "scope", "") == k) for k in dict.fromkeys(getattr(e, "scope", "") for e in entries)},
        "source": rule.get("source"),
        "created_at": rule.get("created_at"),
    }


def show(home: Home, rule_id: str, now: float | None = None) -> dict:
    """One rule, its ledger from history and its confidence over time (`cogit rules show`)."""
    from cogit.errors import ItemNotFound
    from cogit.store.git.repo import open_existing
    from cogit.store.write.transact import load_state

    now = time.time() if now is None else now
    repo = open_existing(home)
    try:
        config = main_config(repo)
        books: dict = {}
        for b in _scopes(repo):
            items = (load_state(repo, git.head(repo, b)).get("rules") or {}).get("items") or []
            rule = next((r for r in items if r.get("id") == rule_id), None)
            if rule is None:
                continue
            entries = entries_of(repo, rule_id, b, books)
            row = _row(rule, entries, b, now, config)
            row["ledger"] = [{"kind": e.kind, "session": e.session, "commit": e.sha, "time": now_iso(e.time),
                              "injected": e.injected, "scope": e.scope} for e in entries]
            points = ledger.history(entries, ledger.parse_time(rule.get("created_at")), now, config)
            row["over_time"] = [{"time": now_iso(t), "confidence": c} for t, c in points]
            row["sparkline"] = ledger.sparkline([c for _, c in points])
            return row
    finally:
        repo.close()
    raise ItemNotFound(f"no rule with id {rule_id!r}", hint="List rules with `cogit rules`.")
