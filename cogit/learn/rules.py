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
4. Each piece of evidence is one commit through the write path, on the branch where the
   session ran (so it is counted in exactly one scope; a global rule's evidence from a project
   session is cached in the project's `global_evidence`), with `Cogit-Event: rule.detect` or
   `rule.suppress`, `Cogit-Rule`, `Cogit-Session`, `Cogit-Injected` and a `Cogit-Fold` id
   (a crash-recovering finalize never counts it twice). The commit rewrites the rule's
   ledger cache (cogit/domain/ledger.py `cache_fields`). A rule shown in a session that never came near it
   gets no evidence but `idle` + 1, committed where the rule lives (a global rule's on main).
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
from cogit.domain.tombstones import bury_rule as bury, buried  # noqa: F401 (bury: the CLI and inbox name it here)
from cogit.store.write.transact import Change, State, main_config, transact


def new_rule(state: State, text: str, detector: str, signature: str = "", source: str = "detector", trigger: str = "") -> dict:
    now = now_iso()
    rule = {"id": new_id("rules", state), "text": " ".join(str(text).split())[:2000], "detector": detector,
            "detections": 0, "suppressions": 0, "last_detected": None, "last_suppressed": None,
            "source": source, "created_at": now, "updated_at": now}
    if signature:
        rule["signature"] = signature[:300]
    if trigger:
        rule["trigger"] = trigger[:100]
    state["rules"]["items"].append(rule)
    return rule


def lift(key: str):
    """`cogit rules lift ID`: remove the tombstone of rule ID (or of DETECTOR, or DETECTOR:SIGNATURE)."""
    from cogit.errors import ItemNotFound

    def apply(state: State) -> Change:
        stones = state["rules"].get("tombstones") or []
        for i, stone in enumerate(stones):
            name = f"{stone.get('detector')}:{stone.get('signature') or ''}"
            if key in (stone.get("rule"), name, name.rstrip(":")):
                del stones[i]
                return Change(f"Lift the tombstone of rule {stone.get('rule')} ({stone.get('detector')}): {stone.get('text', '')}"[:200],
                              body="Its pattern can make a rule again.", trailers={"Cogit-Item": str(stone.get("rule"))})
        raise ItemNotFound(f"no tombstone for {key!r}", hint="List them with `cogit rules tombstones`.")

    return apply


def switch(detector: str, value: str, config: dict | None):
    """`cogit rules off NAME` / `on NAME`: a detector switch in this scope's rules.yaml."""
    from cogit.errors import UsageError

    names = list(detectors.BUILTIN) + list(detectors._custom(config))
    if detector not in names:
        raise UsageError(f"unknown detector {detector!r}", hint="Detectors: " + ", ".join(names) + ".")

    def apply(state: State) -> Change | None:
        switches = state["rules"].setdefault("detectors", {})
        if switches.get(detector) == value:
            return None
        switches[detector] = value
        what = "makes no rule and adds no evidence" if value == "off" else "makes rules again"
        return Change(f"Turn detector {detector} {value}", body=f"In this scope the {detector} detector {what}.")

    return apply


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


VERBS = {"detect": "Detected", "suppress": "Suppressed", "withheld": "Withheld (relevant, no pattern)"}


def evidence(home: Home, kind: str, rule_id: str, branch: str, create: dict | None = None, global_rule: dict | None = None,
             injected: bool = False, withheld: bool = False):
    """Apply: record one detection/suppression of a rule (or create it with its first detection).

    `global_rule`: the rule lives on main but the session ran in the project of `branch`:
    the evidence lands in the project (its `global_evidence` cache), never in main."""
    if global_rule is not None:
        return _global_evidence(home, kind, global_rule, branch, injected, withheld)

    def apply(state: State) -> Change | None:
        items = state["rules"]["items"]
        rule = next((r for r in items if r.get("id") == rule_id), None) if rule_id else None
        if rule is None and create and create.get("detector"):
            rule = match(items, create["detector"], create["signature"]) or new_rule(
                state, create["lesson"], create["detector"], create["signature"], trigger=create.get("trigger", ""))
            created = rule["detections"] == 0 and rule["suppressions"] == 0 and rule.get("source") == "detector"
        else:
            created = False
        if rule is None:
            return None  # forgotten since it was shown
        repo = git.open_repo(home.memory)
        try:
            entries = ledger_history.read(repo, branch, controls=True).get(rule["id"], [])
        finally:
            repo.close()
        now = int(time.time())
        entries = entries + [ledger.Evidence(kind, rule["id"], "-", "", now, injected, withheld=withheld)]
        rule.update(ledger.cache_fields(entries))
        rule.pop("idle", None)  # it came near the rule: not idle
        rule.pop("confidence", None)  # derived from the ledger, never stored
        rule["updated_at"] = now_iso(now)
        verb = VERBS[kind]
        what = f"New rule {rule['id']}" if created else f"{verb} rule {rule['id']}"
        from cogit.redact import clip  # redact, then cut: never a part of a secret in a subject

        gone = _drop_episode(state, (create or {}).get("episode") or "")
        body = "".join(f"The rule carries this episode's lesson; its learning {g['id']} goes (one item per episode): "
                       f"{clip(g.get('text', ''), 200, 0, '')}\n" for g in gone)
        trailers = {"Cogit-Rule": rule["id"]}
        if gone:  # the walk's rule: a commit names every item it removes
            trailers["Cogit-Pruned"] = " ".join(g["id"] for g in gone)
        return Change(clip(f"{what}: {rule['text']}", 200, 0, ""), body=body, trailers=trailers)

    return apply


def _drop_episode(state: State, episode: str) -> list[dict]:
    """The motor learning of the episode a rule now carries: one episode, one digest item."""
    episode = episode.rstrip("…").strip()
    if len(episode) < 20:
        return []
    items = state["learnings"]["items"]
    gone = [x for x in items if str(x.get("text") or "").startswith(episode)]
    items[:] = [x for x in items if x not in gone]
    return gone


def idle_update(ids: list[str], reset: list[str] = ()):
    """Shown, never came near: `idle` + 1 for `ids`. `reset`: global rules that earned evidence
    in a project session (committed there): on main their `idle` count starts again."""

    def apply(state: State) -> Change | None:
        done, again = [], []
        for rule in state["rules"]["items"]:
            if rule.get("id") in ids:
                rule["idle"] = int(rule.get("idle", 0) or 0) + 1
                done.append(f"{rule['id']} ({rule['idle']})")
            elif rule.get("id") in reset and rule.get("idle"):
                rule.pop("idle")
                again.append(rule["id"])
        if not done and not again:
            return None
        parts = ([f"Shown, not relevant: {', '.join(done)}"] if done else []) + \
                ([f"came near in a project: {', '.join(again)} (idle reset)"] if again else [])
        body = []
        if done:
            body.append("The session was shown these rules and never came near what they are about: no evidence either way.")
        if again:
            body.append("The session came near these global rules in its project, where their evidence was committed: "
                        "they are not idle.")
        return Change("; ".join(parts)[:200], body=" ".join(body),
                      trailers={"Cogit-Item": " ".join([i for i in ids] + again)})

    return apply


def _global_evidence(home: Home, kind: str, rule: dict, branch: str, injected: bool = False, withheld: bool = False):
    def apply(state: State) -> Change | None:
        repo = git.open_repo(home.memory)
        try:
            entries = ledger_history.read(repo, branch, controls=True).get(rule["id"], [])
        finally:
            repo.close()
        entries = entries + [ledger.Evidence(kind, rule["id"], "-", "", int(time.time()), injected, withheld=withheld)]
        state["rules"].setdefault("global_evidence", {})[rule["id"]] = ledger.cache_fields(entries)
        verb = VERBS[kind]
        from cogit.redact import clip

        return Change(clip(f"{verb} global rule {rule['id']} in this project: {rule.get('text', '')}", 200, 0, ""),
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

        rules_docs = {b: (load_state(repo, git.head(repo, b)).get("rules") or {}) for b in branches if git.head(repo, b)}
        rules_of = {b: list(doc.get("items") or []) for b, doc in rules_docs.items()}
    finally:
        repo.close()
    config = dict(config or {})
    facts = project_facts(session_state.get("cwd"))
    off = switched_off(rules_docs)
    shown, held = [], []
    for r in pending.get("receipts") or []:
        shown += [i for i in (r.get("shown") or []) if isinstance(i, str)]
        held += [i for i in (r.get("withheld") or []) if isinstance(i, str)]
    held = [i for i in held if i not in shown]  # withheld on purpose (hooks/withhold.py), never shown after
    plan = []  # (kind, rule_id or None, global rule or None, create, key, injected, why, trailers)
    detected: set[str] = set()
    for d in detectors.run(trace, config, facts, off):
        if any(buried(rules_docs.get(b), d.detector, d.signature) for b in branches):
            continue  # removed by a person: no new rule, no evidence for anything
        where = next(((b, r) for b in branches for r in [match(rules_of.get(b), d.detector, d.signature)] if r), None)
        key = f"{d.detector}:{d.signature}"
        # Evidence lands in the scope where the session ran (`branch`), also for a global
        # rule (ledger.py: a project keeps its evidence of global rules in `global_evidence`).
        if where:
            b, rule = where
            detected.add(rule["id"])
            plan.append(("detect", rule["id"], rule if b != branch else None, {"episode": d.episode} if b == branch else None,
                         key, rule["id"] in shown, d.evidence, _effect_trailers(rule, shown, held, trace, True)))
        else:
            plan.append(("detect", None, None, {"detector": d.detector, "signature": d.signature, "lesson": d.lesson,
                                                "trigger": d.trigger, "episode": d.episode}, key, False, d.evidence, {}))
    for b in branches:
        for rule in rules_of.get(b, []):
            rid = rule.get("id")
            if (rid in shown or rid in held) and rid not in detected and rule.get("detector") not in off \
                    and not any(buried(rules_docs.get(x), str(rule.get("detector")), str(rule.get("signature") or "")) for x in branches) and detectors.relevant(rule, trace, config, facts):
                if rid in held:  # the control group of the rule's measured effect (cogit/learn/effect.py)
                    plan.append(("withheld", rid, rule if b != branch else None, None, rid, False,
                                 "withheld, the session came near what the rule is about, the pattern did not happen",
                                 _effect_trailers(rule, shown, held, trace, False)))
                    continue
                plan.append(("suppress", rid, rule if b != branch else None, None, rid, True,
                             "shown, the session came near what the rule is about, the pattern did not happen",
                             _effect_trailers(rule, shown, held, trace, False)))
    # Shown, but the session never came near what the rule is about: no evidence either way;
    # the rule's `idle` count goes up, and at learning.rule_idle_sessions it is dormant and
    # leaves the digest (cogit/domain/rank.py). The count is committed where the rule lives,
    # once: a global rule's on main, also when the session ran in a project (its provenance
    # says which); a project's rules' on the project's branch.
    suppressed = {p[1] for p in plan if p[0] in ("suppress", "withheld")}
    results = []
    for b in branches:
        idle = [rule.get("id") for rule in rules_of.get(b, [])
                if rule.get("id") in shown and rule.get("id") not in detected and rule.get("id") not in suppressed]
        # A global rule that earned evidence in this project session is not idle on main either.
        reset = [rule.get("id") for rule in rules_of.get(b, []) if b != branch and rule.get("idle")
                 and rule.get("id") in detected | suppressed]
        if not idle and not reset:
            continue
        fold_id = f"{pending['id']}:idle" + ("" if b == branch else ":global")
        prov = prov_of(session_state, "rule.idle")
        prov.extra = {"Cogit-Fold": fold_id}
        result = transact(home, prov, idle_update(idle, reset), branch=b, skip_if=fold_committed(fold_id))
        if result:
            results.append(result)
    for kind, rid, global_rule, create, key, injected, why, more in plan:
        fold_id = f"{pending['id']}:rule:{key}"
        prov = prov_of(session_state, {"detect": ledger.DETECT, "withheld": ledger.WITHHELD}.get(kind, ledger.SUPPRESS))
        prov.evidence = why
        prov.extra = {"Cogit-Injected": "yes" if injected else "no", **more, "Cogit-Fold": fold_id}
        result = transact(home, prov, evidence(home, kind, rid, branch, create, global_rule, injected, "Cogit-Withheld" in more),
                          branch=branch, skip_if=fold_committed(fold_id))
        if result:
            results.append(result)
    from cogit.learn import effect  # a rule whose measured effect stays at zero or below goes to review, once

    results += effect.review_due(home, branch, [p[1] for p in plan if p[1]], prov_of(session_state, ledger.REVIEW))
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


def _effect_trailers(rule: dict, shown: list, held: list, trace: list, pattern: bool) -> dict:
    """The trailers of the rule's measured effect and of whether it was applied: a withheld
    rule's evidence says so (`Cogit-Withheld`, `Cogit-Pattern`); a shown one's says whether the
    agent did what it says (`Cogit-Followed`, cogit/learn/applied.py)."""
    rid = rule.get("id")
    if rid in held:
        return {"Cogit-Withheld": "yes", "Cogit-Pattern": "yes" if pattern else "no"}
    if rid in shown:
        from cogit.learn.applied import followed

        return {"Cogit-Followed": "yes" if followed(rule, trace, pattern) else "no"}
    return {}


def project_facts(cwd) -> dict:
    """What the detectors may know of the session's project folder: whether it has tests
    (a test folder or test files at its top). Only names are looked at, at most 500 of
    them: the folder is the agent's, nothing in it is read, imported or run."""
    from cogit.senses.commands import is_test_file

    facts = {"has_tests": False}
    if not isinstance(cwd, str) or not cwd or not os.path.isabs(cwd):
        return facts
    facts["cwd"] = os.path.normpath(cwd)  # rule texts name paths relative to it
    try:
        with os.scandir(cwd) as entries:
            for i, entry in enumerate(entries):
                if i >= 500:
                    break
                name = entry.name
                if name in ("tests", "test", "spec", "__tests__") and entry.is_dir(follow_symlinks=False):
                    facts["has_tests"] = True
                    break
                if is_test_file(name):
                    facts["has_tests"] = True
                    break
    except OSError:
        pass
    return facts


def switched_off(rules_docs: dict) -> set:
    """The detectors off for a session: DEFAULT_OFF, then main's `detectors` switches, then
    the project's (`cogit rules off/on NAME [--project]`)."""
    off = set(detectors.DEFAULT_OFF)
    for b in [git.MAIN] + [b for b in rules_docs if b != git.MAIN]:
        for name, value in ((rules_docs.get(b) or {}).get("detectors") or {}).items():
            (off.add if value == "off" else off.discard)(name)
    return off


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

    created = _created_by(home, target, rule_id)

    def apply(state: State) -> Change:
        items = state["rules"]["items"]
        rule = next((r for r in items if r.get("id") == rule_id), None)
        scoped = state["rules"].get("global_evidence") or {}
        if created and rule is not None:
            # Reverting the commit that created a rule removes the rule (whatever evidence
            # came later) and leaves a tombstone, so the detector does not create it again.
            items.remove(rule)
            bury(state, rule, "revert")
            return Change(f'Revert "{summary}"'[:200],
                          body=(f"This reverts commit {target}: rule {rule_id} is removed, and a tombstone on detector "
                                f"{rule.get('detector')} and its signature keeps the same pattern from making it again "
                                f"(`cogit rules lift {rule_id}` allows it)."),
                          trailers={"Cogit-Reverts": target, "Cogit-Rule": rule_id, "Cogit-Item": rule_id})
        if rule is None and rule_id in scoped:  # a project's evidence of a global rule
            repo = git.open_repo(home.memory)
            try:
                entries = ledger_history.read(repo, branch, also_reverted=target, controls=True).get(rule_id, [])
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
            entries = ledger_history.read(repo, branch, also_reverted=target, controls=True).get(rule_id, [])
        finally:
            repo.close()
        rule.pop("withheld", None)  # rewritten below if any withheld session is left
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


def _created_by(home: Home, target: str, rule_id: str) -> bool:
    """Whether commit `target` created rule `rule_id` (its parent had no such rule)."""
    from cogit.store.write.transact import load_state

    repo = git.open_repo(home.memory)
    try:
        info = git.info(repo, target)
        if not info.parents or "Cogit-Reverts" in info.message:
            return False
        before = (load_state(repo, info.parents[0]).get("rules") or {}).get("items") or []
        after = (load_state(repo, target).get("rules") or {}).get("items") or []
        return any(r.get("id") == rule_id for r in after) and not any(r.get("id") == rule_id for r in before)
    finally:
        repo.close()

