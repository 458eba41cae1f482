"""The tool events: PreToolUse notes when a call started (for its duration), PostToolUse
and PostToolUseFailure count the call, keep its record, run the senses and queue what
they learned. The per-call path: standard library only, and nothing imported that a
silent call does not need (cogit/hooks/core.py HANDLERS imports this module on demand).
"""

import os
import time

from cogit.hooks.core import _know_project, _learn_note, _touch, runtime_dir
from cogit.runtime import fold_prefix



def on_pre_tool(event, session, cfg, home_root, timeout):
    from cogit.hooks import reflex  # the start time (duration fallback) and the reflexes

    return reflex.pre_tool(event, session, home_root, timeout, _touch)


def on_post_tool(event, session, cfg, home_root, timeout):
    now = time.time()
    tool = event.get("tool_name") or "unknown"
    if not tool.isalnum():  # built-in tools are plain words; mcp__server__name can hold anything
        from cogit.redact import redact

        tool = event["tool_name"] = redact(tool)[0][:200]
    ok = not event["failed"]
    max_records = int(cfg.get("hooks", {}).get("max_records", 1000))
    out: dict = {}
    # The payload's analysis (error signature, targets, sizes; bounded by cogit/bounds.py)
    # needs no state: done before the lock, which is held only for the senses' state update.
    call = _make_call(event, home_root, now)
    if call and call.get("kind") == "write" and call.get("ok") and call.get("target"):
        from cogit.hooks.preload import WRITE, load

        load(WRITE)  # what the Spatial sense loads for a write (its gate in cogit/senses/__init__.py)

    def update(state):
        _touch(state, event)
        started = (state.get("pre") or {}).pop(event.get("tool_use_id") or event.get("call_key") or "", None)
        ms = event.get("duration_ms")
        if ms is None and started:
            ms = max(0, int((now - started) * 1000))
        agg = state["agg"]
        stats = agg["tools"].setdefault(tool, {"calls": 0, "failures": 0, "duration_ms_total": 0, "timed_calls": 0})
        stats["calls"] += 1
        stats["failures"] += 0 if ok else 1
        if ms is not None:
            stats["duration_ms_total"] += int(ms)
            stats["timed_calls"] += 1
        stats["last_used"] = now
        last = (state.get("last_tools") or [])[-2:]
        seqs = agg["sequences"]
        if last:
            key2 = f"{last[-1]} > {tool}"
            seqs[key2] = seqs.get(key2, 0) + 1
            if len(last) == 2:
                key3 = f"{last[0]} > {last[1]} > {tool}"
                seqs[key3] = seqs.get(key3, 0) + 1
        state["last_tools"] = last[-1:] + [tool]
        state["n_calls"] = state.get("n_calls", 0) + 1
        if state.get("n_records", 0) < max_records:
            state["n_records"] = state.get("n_records", 0) + 1
            session.append_call({"n": state["n_calls"], "t": round(now, 3), "tool": tool, "ok": ok, "ms": ms})
        out["text"], learnings = _sense(state, call, event, cfg, home_root, now, ms)
        from cogit.hooks import reflex  # a learned rule at the first failure it is about

        out["text"] = reflex.post_tool(state, event, call, home_root, out["text"])
        # the Spatial sense found no import index of this repository (or an old one): built detached
        out["index"] = (state.get("senses") or {}).pop("index_wanted", None)
        # A notice for the person (the interrupt's last level, once per episode): the adapter shows it.
        event["notice"] = (state.get("senses") or {}).pop("notice", None)
        if learnings:
            _know_project(state, event, cfg)
            from cogit.hooks import turn

            for learned in learnings:
                turn.own(state, learned.get("text"))
        for learned in learnings:
            state["queue_seq"] = state.get("queue_seq", 0) + 1
            state["queue"].append(dict(learned, qid=state["queue_seq"], fold=f"{fold_prefix(state)}:q{state['queue_seq']}",
                                       kind="learning", trigger="nociception", t=now))
        out["queued"] = bool(learnings)

    session.update(update, agent=event["agent"], timeout=timeout)
    if isinstance(out.get("index"), str):
        from cogit.hooks.spawn import spawn_index_build

        spawn_index_build(home_root, out["index"], cwd=event.get("cwd"))
    if out.get("queued"):
        from cogit.hooks.spawn import spawn_finalize

        spawn_finalize(home_root, session.id, cwd=event.get("cwd"))
    return out.get("text")


def _make_call(event, home_root, now):
    """The senses' record of this call (pure, bounded), or None when the senses are broken."""
    try:
        from cogit import senses

        call = senses.make_call(
            event.get("tool_name") or "unknown",
            event.get("tool_input") or {},
            event.get("tool_response"),
            event.get("error") if event["failed"] else None,
            event.get("duration_ms"),
            now,
            event.get("cwd"),
            tool_use_id=event.get("tool_use_id"),
        )
        if event["failed"] and call.get("ok", True):
            call["ok"] = False
        return call
    except Exception as e:
        from cogit.hooks import log

        log(home_root, f"senses failed: {type(e).__name__}: {e}", exc=True)
        return None


def _sense(state, call, event, cfg, home_root, now, ms):
    if call is None:
        return None, []
    try:
        from cogit import senses

        if ms is not None:
            call["ms"] = ms  # the duration measured from PreToolUse, when the payload had none
        text, learnings = senses.observe(
            state.setdefault("senses", {}),
            call,
            cfg.get("senses") or {},
            cwd=event.get("cwd"),
            cache_dir=os.path.join(runtime_dir(home_root), "cache"),
            now=now,
        )
        _learn_note(home_root, "note_call", state, call, text, learnings, cfg)
        return text, list(learnings or [])
    except Exception as e:
        from cogit.hooks import log

        log(home_root, f"senses failed: {type(e).__name__}: {e}", exc=True)
        return None, []

