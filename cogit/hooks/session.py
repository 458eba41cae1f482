"""The session's start and end: the digest injected at SessionStart (with its receipt),
a fold of abandoned sessions and the background pull started, and at SessionEnd the
session marked ended and its fold started. Standard library only; imported only when
one of these events comes (cogit/hooks/core.py HANDLERS).
"""

import os
import time

from cogit.hooks.core import _touch, read_digest
from cogit.runtime import list_sessions


def heuristic_ids(text: str) -> list[str]:
    """The `[h-…]` ids in a digest (string search: `re` costs milliseconds to import)."""
    out, start = [], 0
    while (i := text.find("[h-", start)) >= 0:
        end = text.find("]", i)
        if end < 0:
            break
        candidate = text[i + 1 : end]
        if 4 <= len(candidate) - 2 <= 16 and all(c in "0123456789abcdef" for c in candidate[2:]):
            out.append(candidate)
        start = i + 3
    return out


def on_session_start(event, session, cfg, home_root, timeout):
    from cogit.heads import ref_head
    from cogit.scope import project_of

    project = project_of(event.get("cwd"), cfg.get("projects", {}).get("overrides"))
    branch = "main"
    if project and read_digest(home_root, project["branch"]) is not None:
        branch = project["branch"]
    digest = read_digest(home_root, branch)
    text = None
    stale = False
    if digest and digest.get("text"):
        heads = digest.get("heads") or {}
        stale = any(ref_head(home_root, b) != sha for b, sha in heads.items())
        # An agent whose session start reaches no model (OpenClaw) gets it at its first prompt.
        text = None if event.get("digest_at_first_prompt") else with_time(digest["text"])

    def update(state):
        _touch(state, event)
        state["ended"] = False
        state["project"] = project
        if "starts_session" not in state:  # counted in tools.sessions: a new session, not a resumed one
            state["starts_session"] = (event.get("source") or "startup") not in ("resume", "compact")
        if event.get("model"):
            state["model"] = event["model"]
        if text:  # the text without the rules this session withholds (hooks/withhold.py)
            return _digest_receipt(state, event.get("source") or "startup", branch, digest, text)

    text = session.update(update, agent=event["agent"], timeout=timeout) or text
    stale_minutes = float((cfg.get("hooks") or {}).get("session_stale_minutes", 30))
    if stale or digest is None or _abandoned(os.path.dirname(session.dir), session.dir, stale_minutes):
        from cogit.hooks.spawn import spawn_finalize

        spawn_finalize(home_root, None, cwd=event.get("cwd"))
    if project and project.get("source") in ("origin", "repository") and _spatial_on(cfg):
        # The Spatial sense's import index, built detached now so the first edit only reads it
        # (one stat says whether a build started recently; the spawn code loads only to start one).
        from cogit import spatial_index

        if spatial_index.wants_build(os.path.join(home_root, "runtime", "cache"), project["toplevel"]):
            from cogit.hooks.spawn import spawn_index_build

            spawn_index_build(home_root, project["toplevel"], cwd=event.get("cwd"))
    sync = cfg.get("sync") or {}
    if sync.get("auto"):
        from cogit.hooks.spawn import spawn

        # Never wait on the network here: the pull runs detached, bounded by its own
        # timeout, and what it brings is in the digest from the next session on.
        spawn(home_root, ["pull", "--background", "--timeout", str(float(sync.get("pull_timeout_s", 3)) or 3.0)], "sync.log",
              cwd=event.get("cwd"))
    return text


def _spatial_on(cfg) -> bool:
    senses = cfg.get("senses") or {}
    spatial = senses.get("spatial") if isinstance(senses, dict) else None
    return senses.get("enabled", True) is not False and not (isinstance(spatial, dict) and spatial.get("enabled") is False)


def _digest_receipt(state, source, branch, digest, text):
    """The whole digest was injected: its receipt, and the version the session now knows."""
    from cogit.hooks import turn, withhold

    text, shown, held = withhold.cut(state, digest, text, _shown(digest["text"]))
    turn.receipt(state, source, branch, digest, text, sum((digest.get("cut") or {}).values()), shown, held)
    state["in_play"] = heuristic_ids(digest["text"])
    turn.saw(state, digest)
    return text


def _shown(text):
    from cogit.learn.record import shown_ids

    return shown_ids(text)


def on_session_end(event, session, cfg, home_root, timeout):
    def update(state):
        _touch(state, event)
        state["ended"] = True
        state["end_reason"] = event.get("reason")

    session.update(update, agent=event["agent"], timeout=timeout)
    from cogit.hooks.spawn import spawn_finalize

    spawn_finalize(home_root, session.id, sync=bool((cfg.get("sync") or {}).get("auto")), cwd=event.get("cwd"))
    return None


def _abandoned(sessions_dir: str, own: str, stale_minutes: float) -> bool:
    """Another session's records wait for a fold: silent longer than the stale time
    (a killed agent). Live sessions touch their state on every event; ended ones
    start their own finalize."""
    limit = time.time() - stale_minutes * 60
    for name in list_sessions(sessions_dir):
        path = os.path.join(sessions_dir, name)
        if path == own:
            continue
        try:
            if os.stat(os.path.join(path, "state.json")).st_mtime <= limit:
                return True
        except OSError:
            if os.path.isdir(path):
                return True  # a folder without state: leftovers to clean up
    return False


def with_time(text: str) -> str:
    now = time.localtime()
    part = ("night", "morning", "afternoon", "evening")[(now.tm_hour // 6) % 4]
    line = f"Time: {time.strftime('%A', now)} {part}, {time.strftime('%Y-%m-%d %H:%M', now)}"
    head, sep, rest = text.partition("\n")
    return f"{head}\n{line}\n{rest}" if sep else f"{line}\n{text}"
