"""The review inbox: proposals that wait for a person, and tombstones of what a person refused.

Both live in reflections.yaml (versioned and synced like every state file):

    proposals:  [{id: p-…, section, text, source, created_at, updated_at, category?, context?, detector?, model?}]
    tombstones: [{id: t-…, section, text, reason: rejected|forgotten|reverted, item?, dropped?, last_dropped_at?}]

`add_proposals` is the one way anything proposes memory: a proposal whose normalized text
has a tombstone is dropped (the tombstone counts it and the commit names it); a proposal
from a source in this machine's `review.auto_accept` (machine_settings.py; default: `agent`, an agent recording
something through a tool, like "remember this") is applied at once; any other (a model's
reflection) waits in `proposals` for `cogit accept` or `cogit reject`.
"""

from __future__ import annotations

from cogit.domain.tombstones import (MAX_TEXT, PROPOSAL_SECTIONS, bury, drop_if_buried, normalize, reflections_list as _list,
                                     short_id as _new_id, tombstone_of)
from cogit.errors import ItemNotFound, UsageError
from cogit.store.git import repo as git
from cogit.store.state.documents import new_id
from cogit.domain.times import now_iso
from cogit.store.write.transact import Change, State, transact

KINDS = ("insight", "pattern", "question")
DEFAULT_AUTO_ACCEPT = ("agent",)
MAX_PENDING = 100  # the inbox holds at most this many; more is dropped (and named) until a person reviews
CATEGORIES = ("insight", "feedback", "pattern", "mistake")


def auto_accept(config) -> tuple[str, ...]:
    review = (config or {}).get("review") or {}
    value = review.get("auto_accept")
    return tuple(value) if isinstance(value, list) else DEFAULT_AUTO_ACCEPT


def _doc(state: State) -> dict:
    return state["reflections"]


def _known(state: State, section: str, text: str) -> bool:
    """Already in memory, or already waiting: proposing it again changes nothing."""
    norm = normalize(text)
    if section == "focus":
        if normalize((state.get("focus") or {}).get("current") or "") == norm:
            return True
    else:
        if any(normalize(i.get("text", "")) == norm for i in state[section].get("items") or []):
            return True
    return any(normalize(p.get("text", "")) == norm and p.get("section") == section for p in _doc(state).get("proposals") or [])


def _check(proposal, config) -> tuple[dict | None, str | None]:
    """A proposal as cogit keeps it, or the reason it cannot be one."""
    if not isinstance(proposal, dict):
        return None, "not a mapping"
    section = proposal.get("section")
    if section not in PROPOSAL_SECTIONS:
        return None, f"unknown section {section!r}"
    text = proposal.get("text")
    if not isinstance(text, str) or not " ".join(text.split()):
        return None, "no text"
    text = " ".join(text.split())
    if len(text) > MAX_TEXT:
        return None, f"text over {MAX_TEXT} characters"
    out = {"section": section, "text": text}
    if section == "learnings":
        category = proposal.get("category") or "insight"
        if category not in CATEGORIES:
            return None, f"unknown category {category!r}"
        out["category"] = category
        if isinstance(proposal.get("context"), str) and proposal["context"].strip():
            from cogit.redact import clip

            out["context"] = clip(proposal["context"].strip(), MAX_TEXT, 0, "")
    if section == "reflections":
        kind = proposal.get("kind") or "insight"
        if kind not in KINDS:
            return None, f"unknown kind {kind!r}"
        out["kind"] = kind
    if section == "rules":
        from cogit.learn import detectors

        detector = proposal.get("detector")
        names = list(detectors.BUILTIN) + list(detectors._custom(config))
        if detector not in names:
            return None, f"unknown detector {detector!r} (known: {', '.join(names)})"
        out["detector"] = detector
    if isinstance(proposal.get("model"), str) and proposal["model"]:
        out["model"] = proposal["model"][:200]
    return out, None


def add_proposals(state: State, proposals: list, source: str, config) -> dict:
    """Add proposals to a transaction's state (see the module docstring).

    Returns {"pending": [proposal ids], "accepted": [item ids], "dropped": [texts],
    "reasons": {text: why}, "known": [texts already in memory or waiting]}.
    """
    out = {"pending": [], "accepted": [], "dropped": [], "reasons": {}, "known": []}
    direct = source in auto_accept(config)
    for raw in proposals or []:
        proposal, problem = _check(raw, config)
        if proposal is None:
            from cogit.redact import clip

            text = clip(str(raw.get("text") if isinstance(raw, dict) else raw), 200, 0, "")
            out["dropped"].append(text)
            out["reasons"][text] = problem
            continue
        text, section = proposal["text"], proposal["section"]
        stone = drop_if_buried(state, text)
        if stone is not None:
            out["dropped"].append(text)
            out["reasons"][text] = f"{stone.get('reason', 'rejected')} before ({stone.get('id')})"
            continue
        if _known(state, section, text):
            out["known"].append(text)
            continue
        if direct:
            out["accepted"].append(_materialize(state, dict(proposal, source=source)))
            continue
        pending = _list(state, "proposals")
        if len(pending) >= MAX_PENDING:
            out["dropped"].append(text)
            out["reasons"][text] = f"the review inbox is full ({MAX_PENDING} waiting): review them with `cogit review`"
            continue
        now = now_iso()
        item = {"id": _new_id("p", {p.get("id") for p in pending}), **proposal, "source": source,
                "created_at": now, "updated_at": now}
        pending.append(item)
        out["pending"].append(item["id"])
    return out


def _materialize(state: State, proposal: dict) -> str:
    """Apply one proposal to memory; returns the id of the item (or `focus`)."""
    section, text = proposal["section"], proposal["text"]
    source = proposal.get("source") or "reflection"
    now = now_iso()
    if section == "focus":
        focus = state["focus"]
        focus["current"] = text
        focus["updated_at"] = now
        return "focus"
    if section == "rules" and proposal.get("retire"):  # an effect review (cogit/learn/effect.py): retire the rule
        from cogit.domain.tombstones import bury_rule

        rule = next((r for r in state["rules"]["items"] if r.get("id") == proposal["retire"]), None)
        if rule is not None:
            state["rules"]["items"].remove(rule)
            bury_rule(state, rule, "forget")
        return str(proposal["retire"])
    if section == "rules":
        from cogit.learn.rules import new_rule

        return new_rule(state, text, proposal.get("detector") or "", source=source)["id"]
    for existing in state[section]["items"]:
        if normalize(existing.get("text", "")) == normalize(text):
            return existing["id"]
    item = {"id": new_id(section, state), "text": text}
    if section == "learnings":
        item["category"] = proposal.get("category") or "insight"
        if proposal.get("context"):
            item["context"] = proposal["context"]
    if section == "heuristics":
        item["use_count"] = 0
        item["last_used"] = None
    if section == "reflections":
        item["kind"] = proposal.get("kind") or "insight"
        if proposal.get("model"):
            item["model"] = str(proposal["model"])[:200]
    item.update(source=source, created_at=now, updated_at=now)
    state[section]["items"].append(item)
    return item["id"]


def describe(result: dict) -> str:
    """The commit body's account of what happened to each proposal."""
    lines = []
    if result["pending"]:
        lines.append(f"Waiting for review: {', '.join(result['pending'])} (`cogit review`).")
    if result["accepted"]:
        lines.append(f"Accepted without review: {', '.join(result['accepted'])}.")
    for text in result["dropped"]:
        from cogit.redact import clip

        lines.append(f"Dropped {clip(text, 200, 0, '')!r}: {result['reasons'].get(text, '')}")
    return "\n".join(lines)


def propose(home, proposals: list, prov, branch: str = git.MAIN) -> dict:
    """Propose memory in one commit (`prov.source` is the source; the MCP server uses `agent`).

    Returns the add_proposals result plus "commit" (sha or None when nothing changed)."""
    from cogit.store.write.transact import main_config

    holder: dict = {}

    def apply(state: State) -> Change | None:
        from cogit import machine_settings

        config = state.get("config")
        if branch != git.MAIN:  # settings rule from main
            repo = git.open_repo(home.memory)
            try:
                config = main_config(repo)
            finally:
                repo.close()
        config = machine_settings.effective(home, config)  # review.auto_accept is this machine's own
        result = add_proposals(state, proposals, prov.source, config)
        holder.update(result)
        if not (result["pending"] or result["accepted"] or result["dropped"]):
            return None
        n = len(result["pending"]) + len(result["accepted"])
        summary = f"Propose {n} item(s) from {prov.source}" + (f", {len(result['dropped'])} dropped" if result["dropped"] else "")
        return Change(summary, body=describe(result))

    write = transact(home, prov, apply, branch=branch)
    holder.setdefault("pending", [])
    holder["commit"] = write.sha if write else None
    return holder


def pending(state: dict) -> list[dict]:
    return list((state.get("reflections") or {}).get("proposals") or [])


def _take(state: State, ids: list[str]) -> list[dict]:
    waiting = _list(state, "proposals")
    by_id = {p.get("id"): p for p in waiting}
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise ItemNotFound(f"no pending proposal {', '.join(missing)}",
                           hint="List what waits with `cogit review` (a proposal accepted or rejected already is gone from it).")
    chosen = [by_id[i] for i in dict.fromkeys(ids)]
    waiting[:] = [p for p in waiting if p.get("id") not in set(ids)]
    return chosen


def accept(ids: list[str]):
    """Apply: each pending proposal becomes memory (one commit, `human.accept`)."""
    if not ids:
        raise UsageError("give at least one proposal id", hint="List them with `cogit review`.")

    def apply(state: State) -> Change:
        done, retired = [], []
        for p in _take(state, ids):
            from cogit.redact import clip

            done.append(f"{p['id']} -> {_materialize(state, p)}: {clip(p['text'], 100, 0, '')}")
            retired += [p["retire"]] if p.get("retire") else []
        first = done[0] if len(done) == 1 else f"{len(done)} proposals: " + ", ".join(d.split(" ")[0] for d in done)
        gone = [f"Rule {r} is retired (its effect review): forgotten, with a tombstone on its pattern." for r in retired]
        return Change(f"Accept {first}", body="\n".join([f"Accepted {d}" for d in done] + gone),
                      trailers={"Cogit-Item": " ".join(ids), **({"Cogit-Pruned": " ".join(retired)} if retired else {})})

    return apply


def reject(ids: list[str]):
    """Apply: each pending proposal goes, and leaves a tombstone (one commit, `human.reject`)."""
    if not ids:
        raise UsageError("give at least one proposal id", hint="List them with `cogit review`.")

    def apply(state: State) -> Change:
        lines = []
        for p in _take(state, ids):
            bury(state, p["section"], p["text"], "rejected", p["id"])
            if p["section"] == "rules" and p.get("detector"):  # nor may a detector bring it back
                from cogit.domain.tombstones import bury_rule

                bury_rule(state, {"id": p["id"], "detector": p["detector"], "signature": p.get("signature") or "",
                                  "text": p["text"]}, "reject")
            lines.append(f"Rejected {p['id']} ({p['section']}): {p['text'][:200]!r}")
        summary = f"Reject {ids[0]}: {_first_text(lines)}" if len(ids) == 1 else f"Reject {len(ids)} proposals"
        return Change(summary, body="\n".join(lines) + "\n\nTombstones keep them from being proposed again.",
                      trailers={"Cogit-Item": " ".join(ids)})

    return apply


def _first_text(lines):
    return lines[0].split(": ", 1)[-1] if lines else ""
