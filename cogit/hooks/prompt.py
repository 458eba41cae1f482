"""UserPromptSubmit: the prompt read (an explicit "remember this" queued redacted, praise
as evidence for the rules in play), the senses told, and what memory says at this turn
(the whole digest for an agent that gets it at its first prompt, else what changed since
the session's last injection: cogit/hooks/turn.py). Standard library only; imported only
when a prompt comes (cogit/hooks/core.py HANDLERS).
"""

import time

from cogit.hooks.core import _know_project, _learn_note, _touch, read_digest
from cogit.runtime import fold_prefix

MAX_FEEDBACK = 20


def _prompt_memory(event, state, cfg, home_root):
    """Under the session lock, at a prompt: (the whole digest, for an agent that gets it at
    its first prompt; what changed in memory since this session's last injection)."""
    from cogit.hooks import turn

    project = state.get("project")
    if project is None and event.get("cwd"):  # a part that began without SessionStart
        from cogit.scope import project_of

        project = project_of(event["cwd"], cfg.get("projects", {}).get("overrides"))
    branch, digest = "main", None
    if project and project.get("branch"):
        digest = read_digest(home_root, project["branch"])
        branch = project["branch"] if digest is not None else "main"
    if digest is None:
        digest = read_digest(home_root, "main")
    if event.get("digest_at_first_prompt") and "mem_marker" not in state:
        if digest and digest.get("text"):
            from cogit.hooks.session import _digest_receipt, with_time

            return _digest_receipt(state, "startup", branch, digest, with_time(digest["text"])), None
        return None, None
    limit = (cfg.get("digest") or {}).get("turn_max_chars", turn.DEFAULT_MAX_CHARS)
    try:
        limit = max(0, min(int(limit), 9000))
    except (TypeError, ValueError):
        limit = turn.DEFAULT_MAX_CHARS
    return None, turn.changes(state, digest, branch, limit)


def on_prompt(event, session, cfg, home_root, timeout):
    from cogit.learn import prompts

    prompt = event.get("prompt") or ""
    # All analysis of the prompt happens here, before the lock, on its bounded part
    # (cogit/bounds.py): the lock is held only for the state update below.
    text = prompts.bounded(prompt)
    learning = prompts.explicit_request(text)
    praised = prompts.praise(text)
    allow = frozenset((cfg.get("redaction") or {}).get("allowlist") or ())
    if learning or praised:
        # Queued and echoed as it will be stored: what is kept of the prompt is redacted
        # before it reaches the runtime file (the store redacts again before any commit).
        from cogit.redact import clip, redact

        learning = redact(learning, allow)[0] if learning else learning
        # redact, then cut: a cut first leaves part of a secret no pattern recognises
        evidence, feedback = clip(text, 300, 0, "", allow), clip(text, 200, 0, "", allow)
    else:
        evidence = feedback = ""
    min_chars = int(cfg.get("learning", {}).get("meaningful_min_chars", 40))
    is_meaningful = prompts.meaningful(prompt, min_chars)
    read = _read_prompt(prompt, home_root)
    now = time.time()

    def update(state):
        _touch(state, event)
        agg = state["agg"]
        agg["prompts"] = agg.get("prompts", 0) + 1
        eng = agg["engagement"]
        eng["total"] += 1
        if is_meaningful:
            eng["meaningful"] += 1
            eng["last_meaningful_at"] = now
        if praised and state.get("in_play"):
            for hid in state["in_play"]:
                agg["evidence"][hid] = agg["evidence"].get(hid, 0) + 1
            agg["feedback"] = (agg.get("feedback") or [])[-(MAX_FEEDBACK - 1):] + [feedback]
        # A session that began without SessionStart (OpenClaw's `agent --local` sends none)
        # learns into its project too: its lessons, and the rules its tool calls earn.
        _know_project(state, event, cfg)
        if learning:
            state["queue_seq"] = state.get("queue_seq", 0) + 1
            state["_durable"] = True  # fsync: the model is told "noted" only once it is on disk
            state["queue"].append(
                {
                    "qid": state["queue_seq"],
                    "fold": f"{fold_prefix(state)}:q{state['queue_seq']}",
                    "kind": "learning",
                    "text": learning,
                    "category": "feedback",
                    "trigger": "explicit",
                    "evidence": evidence,
                    "t": now,
                }
            )
        _senses_prompt(state, prompt, now, home_root, read)
        _learn_note(home_root, "note_prompt", state, cfg, prompt)
        if learning:
            from cogit.hooks import turn

            turn.own(state, learning)
        try:
            reply["digest"], reply["update"] = _prompt_memory(event, state, cfg, home_root)
        except Exception as e:  # what memory tells the model must not cost the session's records
            from cogit.hooks import log

            log(home_root, f"per-turn injection failed: {type(e).__name__}: {e}", exc=True)

    reply = event["reply"] = {"digest": None, "update": None, "note": None}
    session.update(update, agent=event["agent"], timeout=timeout)
    if learning:
        from cogit.hooks.spawn import spawn_finalize

        spawn_finalize(home_root, session.id, cwd=event.get("cwd"))
        reply["note"] = f'cogit: noted for memory as a feedback learning: "{learning}"'
    parts = [reply[k] for k in ("digest", "update", "note") if reply[k]]
    return "\n\n".join(parts) if parts else None


def _read_prompt(prompt, home_root):
    try:
        from cogit import senses

        return senses.read_prompt(prompt)
    except Exception as e:  # a sense bug must not cost the session's records
        from cogit.hooks import log

        log(home_root, f"senses.read_prompt failed: {type(e).__name__}: {e}", exc=True)
        return None


def _senses_prompt(state, prompt, now, home_root, read=None):
    if read is None:
        return
    try:
        from cogit import senses

        senses.on_prompt(state.setdefault("senses", {}), prompt, now, read)
    except Exception as e:  # a sense bug must not cost the session's records
        from cogit.hooks import log

        log(home_root, f"senses.on_prompt failed: {type(e).__name__}: {e}", exc=True)
