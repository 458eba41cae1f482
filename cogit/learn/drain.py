"""`cogit finalize`: commit what sessions queued and fold their records into memory.

Hooks never touch git; they queue. This runs detached after SessionEnd, after an
explicit "remember this", and before any cogit command, so a session that never
ended cleanly (a killed agent) is finalized too. Each queued change and each fold
carries a `Cogit-Fold` id; the id is checked under the memory lock, so a crash
between the commit and the bookkeeping never counts anything twice.
"""

from __future__ import annotations

import os
import sys
import time

from cogit.errors import CogitError, Locked
from cogit.locking import LockTimeout, file_lock
from cogit.paths import Home
from cogit.runtime import Session, empty_agg, fold_prefix, list_sessions, owner_gone
from cogit.store.git import repo as git
from cogit.store.memory import add_item
from cogit.store.git.provenance import Provenance
from cogit.store.state.documents import find
from cogit.domain.times import now_iso
from cogit.redact import redact
from cogit.store.write.scrub import allowlist
from cogit.store.write.transact import Change, State, transact

RECENT = 300  # commits searched for an already-committed fold id


def fold_committed(fold_id: str):
    token = f"\nCogit-Fold: {fold_id}\n".encode()

    def check(repo, head: str | None) -> bool:
        from cogit.store.git import objects

        # Every parent, not only the first: after a sync fast-forwards to a merge the
        # other machine made, our own commits sit on its second-parent side.
        queue, seen = ([head.encode()] if head else []), set()
        while queue and len(seen) < RECENT:
            sha = queue.pop(0)
            if sha in seen:
                continue
            seen.add(sha)
            raw = objects.read_raw(repo, sha.decode())
            if token in raw:
                return True
            header = raw.split(b"\n\n", 1)[0]
            queue += [line[7:47] for line in header.split(b"\n") if line.startswith(b"parent ")]
        return False

    return check


def finalize(home: Home, session_id: str | None = None, stale_minutes: float | None = None) -> list:
    """Finalize one session (or all); returns the write results (commits made)."""
    if not (home.memory / ".git").exists():
        return []
    names = list_sessions(str(home.sessions))
    if session_id is not None:
        names = [Session(str(home.sessions), session_id).dir.rsplit(os.sep, 1)[-1]]
    results = []
    for name in names:
        session = Session(str(home.sessions), name)
        if not os.path.isdir(session.dir):
            continue
        try:
            with file_lock(os.path.join(session.dir, "finalize.lock"), 60):
                if session.exists():
                    results += _finalize_one(home, session, stale_minutes)
                else:
                    _cleanup(session)
        except LockTimeout:
            continue
    return results


def _cleanup(session: Session) -> None:
    """A folder without state (a crash between mkdir and the first write, or an old
    leftover) is removed, under the session lock so a hook creating it is not hurt."""
    try:
        session.remove_if(lambda state: state is None, missing=True)
    except (OSError, LockTimeout):
        pass


def _prov(state: dict, event: str, **kw) -> Provenance:
    project = (state.get("project") or {}).get("name") or "global"
    return Provenance(
        event=event,
        source="hook",
        agent=state.get("agent") or "agent",
        session=state.get("session_id") or "-",
        project=project,
        model=state.get("model"),
        **kw,
    )


def _learning_branch(state: dict) -> str:
    """What a session learns in a project goes to the project's branch; tool statistics
    stay global. A folder outside any repository (and without an override) is no project."""
    project = state.get("project") or {}
    branch = str(project.get("branch") or "")
    if project.get("source", "folder") == "folder" or not branch.startswith("project/"):
        return git.MAIN
    return branch


def ended_scope(home: Home, session_id: str) -> tuple[str, str] | None:
    """(branch, project name) of an ended session, read before finalize removes its folder;
    None when it has not ended (or its state cannot be read: no reflection, finalize goes on)."""
    try:
        state = Session(str(home.sessions), session_id).read() or {}
    except Exception:  # noqa: BLE001
        return None
    if not state.get("ended"):
        return None
    branch = _learning_branch(state)
    return branch, (str((state.get("project") or {}).get("name") or "global") if branch != git.MAIN else "global")


def _finalize_one(home: Home, session: Session, stale_minutes: float | None) -> list:
    results = []
    state = session.read() or {}
    part = state.get("part")
    # 1. Queued memory changes, one commit each, in order. Each keeps the fold id it was
    # queued with, so a crash after its commit never adds it twice.
    for item in list(state.get("queue") or []):
        fold_id = item.get("fold") or f"{fold_prefix(state)}:q{item['qid']}"
        try:
            prov = _prov(state, "learning.add", trigger=item.get("trigger"), evidence=item.get("evidence") or item.get("context"))
            prov.extra["Cogit-Fold"] = fold_id
            apply = add_item("learnings", item["text"], category=item.get("category") or "insight",
                             context=item.get("context"), source="hook")
            result = transact(home, prov, apply, branch=_learning_branch(state), skip_if=fold_committed(fold_id))
        except Locked:
            raise
        except (CogitError, KeyError, TypeError, ValueError) as e:
            _unstored(home, state, item, fold_id, e)
            result = None
        if result:
            results.append(result)

        def dequeue(s, qid=item["qid"]):
            if s.get("part") == part:
                s["queue"] = [q for q in s.get("queue") or [] if q.get("qid") != qid]

        session.update(dequeue, create=False)
    # 2. The session's records, folded when it ended (or its process is gone, or it went
    # silent: a killed agent).
    state = session.read() or {}
    if stale_minutes is None:
        stale_minutes = 30.0

    def over(s) -> bool:
        idle = time.time() - float(s.get("last_event_at") or 0)
        return bool(s.get("ended")) or idle >= stale_minutes * 60 or owner_gone(s)

    if not over(state):
        return results

    def take(s):
        if s.get("pending") is None and not _agg_empty(s.get("agg")):
            s["folds"] = s.get("folds", 0) + 1
            # tools.sessions counts sessions, not parts: a resumed part does not count again.
            counts = bool(s.get("starts_session")) and not s.get("session_counted")
            s["session_counted"] = bool(s.get("session_counted")) or counts
            end = "ended" if s.get("ended") else "gone" if owner_gone(s) else "silent"
            s["pending"] = {"id": f"{fold_prefix(s)}:f{s['folds']}", "agg": s["agg"], "end": end,
                            "receipts": s.get("receipts") or [], "final": end != "silent", "session": counts,
                            "title": s.get("title")}
            s["agg"] = empty_agg()
            s["receipts"] = []
        return s["pending"]

    # A part with nothing to record (no prompt, no tool call) makes no commit.
    pending = session.update(take, create=False)
    if pending:
        result = transact(home, _fold_prov(state, pending), fold(state, pending), skip_if=fold_committed(pending["id"]))
        if result:
            results.append(result)
        from cogit.learn import agent_evidence

        agent_evidence.record(str(home.runtime), str(state.get("agent") or "agent"), pending["id"], pending["agg"],
                              pending.get("end") or ("ended" if pending["final"] else "silent"))
        branch = _learning_branch(state)
        if branch != git.MAIN and (pending["agg"].get("evidence") or {}):
            prov = _fold_prov(state, pending)
            prov.event = "heuristic.evidence"
            prov.extra = {"Cogit-Fold": pending["id"] + ":project"}
            fold_id = pending["id"] + ":project"
            result = transact(home, prov, project_evidence(pending), branch=branch, skip_if=fold_committed(fold_id))
            if result:
                results.append(result)
        results += _learn(home, state, pending, session)  # the learning loop: rule evidence
        session.update(lambda s: s.__setitem__("pending", None), create=False)

    # 3. Everything is in memory: the part leaves nothing behind, ended or dead. Decided
    # under the session lock, so an event that arrived meanwhile keeps the folder.
    def done(s) -> bool:
        return not s.get("queue") and s.get("pending") is None and _agg_empty(s.get("agg")) and over(s)

    try:
        session.remove_if(done)
    except LockTimeout:
        pass  # a hook holds it: the next finalize removes it
    return results


def _learn(home: Home, state: dict, pending: dict, session: Session) -> list:
    """Detections, suppressions and heuristic use of this session part (cogit/learn/rules.py)."""
    from cogit.learn.rules import learn_from_session

    return learn_from_session(home, session.read() or state, pending, _learning_branch(state), session, _prov, fold_committed)


def _agg_empty(agg) -> bool:
    return not agg or (not agg.get("tools") and not agg.get("prompts") and not agg.get("evidence")
                       and not (agg.get("engagement") or {}).get("total"))


def unstored_dir(home: Home):
    return home.unstored


def _unstored(home: Home, state: dict, item: dict, fold_id: str, error: Exception) -> None:
    """A queued item that cannot be committed is kept (and reported by `cogit doctor`),
    never dropped in silence."""
    import json

    from cogit.paths import safe_name
    from cogit.store.write.transact import log_note

    from cogit.redact import clip  # redact, then cut

    reason = clip(getattr(error, "message", None) or f"{type(error).__name__}: {error}", 500, 0, "")
    record = {"fold": fold_id, "session": state.get("session_id"), "project": (state.get("project") or {}).get("name"),
              "kind": item.get("kind") or "learning", "text": item.get("text"), "category": item.get("category"),
              "trigger": item.get("trigger"), "queued_at": item.get("t"), "reason": reason}
    folder = unstored_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{safe_name(fold_id.replace(':', '_'))}.json"
    git.write_atomic(path, json.dumps(record, ensure_ascii=False, indent=2).encode("utf-8"), durable=True)
    note = f"could not store queued {record['kind']} {fold_id}: {reason}; kept in {path} (see `cogit doctor`)"
    log_note(home, note)
    print(f"cogit finalize: {note}", file=sys.stderr)


def _fold_prov(state: dict, pending: dict) -> Provenance:
    prov = _prov(state, "session.end" if pending["final"] else "session.fold")
    prov.extra["Cogit-Fold"] = pending["id"]
    meaningful = int(((pending["agg"].get("engagement") or {}).get("meaningful")) or 0)
    if meaningful and _learning_branch(state) != git.MAIN:
        # Engagement is global; what a project's automatic reflection counts (trigger.py).
        prov.extra["Cogit-Meaningful"] = str(meaningful)
    from cogit.learn.session_trailers import fold_trailers

    prov.extra.update(fold_trailers(pending))  # the session's title and the rules it was shown
    receipts = pending.get("receipts") or []
    if receipts:
        prov.extra["Cogit-Digest"] = "; ".join(
            f"{r.get('source')} {str(r.get('commit') or '')[:12]} chars={r.get('chars')} tokens={r.get('tokens')} cut={r.get('cut')}"
            for r in receipts
        )
    held = sorted({i for r in receipts for i in (r.get("withheld") or []) if isinstance(i, str) and i.startswith("ru-")})
    if held:  # the rules this session did not see on purpose (hooks/withhold.py; learn/effect.py counts them)
        prov.extra["Cogit-Withheld-Rules"] = " ".join(held[:25])  # a trailer holds 300 characters
    feedback = pending["agg"].get("feedback") or []
    if feedback:
        from cogit.redact import clip

        prov.evidence = clip(" | ".join(feedback), 300, 0, "")
        prov.trigger = "praise"
    return prov


def _add_evidence(state: State, evidence: dict) -> list[str]:
    """Praise counts as evidence for the heuristics the session was shown (those here)."""
    praised = []
    for hid, n in evidence.items():
        try:
            section, _, item = find(state, hid)
        except Exception:
            continue  # forgotten since the digest was injected, or in the other scope
        if section == "heuristics":
            item["evidence"] = int(item.get("evidence", 0)) + int(n)
            item["use_count"] = int(item.get("use_count", 0)) + 1  # praised after being shown: used
            item["updated_at"] = item["last_used"] = now_iso()
            praised.append(hid)
    return praised


def project_evidence(pending: dict):
    """The same praise for heuristics that live in the session's project branch."""

    def apply(state: State) -> Change | None:
        praised = _add_evidence(state, pending["agg"].get("evidence") or {})
        if not praised:
            return None
        return Change(f"Evidence for {', '.join(praised)} from praise")

    return apply


def fold(session_state: dict, pending: dict):
    agg = pending["agg"]

    def apply(state: State) -> Change | None:
        allow = allowlist(state.get("config"))
        tools = state["tools"]
        calls = failures = 0
        for name, s in (agg.get("tools") or {}).items():
            name = redact(str(name), allow)[0]
            t = tools["tools"].setdefault(name, {"calls": 0, "failures": 0, "duration_ms_total": 0, "timed_calls": 0})
            for key in ("calls", "failures", "duration_ms_total", "timed_calls"):
                t[key] = int(t.get(key, 0)) + int(s.get(key, 0))
            if s.get("last_used"):
                t["last_used"] = max(str(t.get("last_used") or ""), now_iso(s["last_used"]))
            calls += int(s.get("calls", 0))
            failures += int(s.get("failures", 0))
        for key, n in (agg.get("sequences") or {}).items():
            key = redact(str(key), allow)[0]
            tools["sequences"][key] = int(tools["sequences"].get(key, 0)) + int(n)
        if pending.get("session", pending["final"]):
            tools["sessions"] = int(tools.get("sessions", 0)) + 1
        eng = agg.get("engagement") or {}
        engagement = state["engagement"]
        engagement["total_interactions"] += int(eng.get("total", 0))
        engagement["meaningful_interactions"] += int(eng.get("meaningful", 0))
        if eng.get("last_meaningful_at"):
            engagement["last_meaningful_at"] = max(str(engagement.get("last_meaningful_at") or ""), now_iso(eng["last_meaningful_at"]))
        praised = _add_evidence(state, agg.get("evidence") or {})
        sid = str(session_state.get("session_id", "?"))[:8]
        what = "ended" if pending["final"] else "records so far"
        summary = f"Session {sid} {what}: {calls} tool calls ({failures} failed), {eng.get('total', 0)} prompts"
        body = f"Evidence for {', '.join(praised)} from praise." if praised else ""
        from cogit.learn.rules import senses_line

        body = "\n\n".join(x for x in (body, senses_line(agg, session_state)) if x)
        return Change(summary, body=body)

    return apply


def stale_minutes(home) -> float:
    """hooks.session_stale_minutes as the hooks read it (the digest cache's settings), else 30."""
    from cogit.store.cache.digest import cache_path
    import json as _json

    try:
        settings = _json.loads(cache_path(home, "main").read_text("utf-8"))["settings"]
        return float(settings.get("hooks", {}).get("session_stale_minutes", 30))
    except Exception:
        return 30.0
