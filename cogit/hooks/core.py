"""The event core: per event, update the session's runtime state, run the senses,
decide what the model is told. Standard library only.

Nothing here touches git. Changes of memory (an explicit "remember this", a motor
learning, the session's statistics) are queued in the session's runtime state and
committed by `cogit finalize`, started detached, so a hook never waits on the store.
"""


from cogit import jsonio
import os
import sys
import time

from cogit.runtime import Session, fold_prefix, list_sessions

_SETTINGS: dict = {}
MAX_PRE = 64
MAX_FEEDBACK = 20
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


def runtime_dir(home_root: str) -> str:
    return os.path.join(home_root, "runtime")


def digest_path(home_root: str, branch: str) -> str:
    from cogit.paths import safe_name

    return os.path.join(runtime_dir(home_root), "digest", safe_name(branch.replace("/", "--")) + ".json")


def read_digest(home_root: str, branch: str) -> dict | None:
    try:
        with open(digest_path(home_root, branch), encoding="utf-8") as f:
            return jsonio.loads(f.read())
    except (OSError, ValueError):
        return None


def settings(home_root: str) -> dict:
    """Hook settings from the compiled digest of main (JSON; no YAML on this path), and
    the settings that act (`sync.auto`, `sync.pull_timeout_s`) from this machine's own
    file alone: a synced config.yaml never decides them (cogit/machine_settings.py)."""
    if home_root not in _SETTINGS:
        from cogit.local_settings import hook_read

        digest = read_digest(home_root, "main") or {}
        cfg = dict(digest.get("settings") or {})
        cfg["sync"] = dict(hook_read(home_root).get("sync") or {})
        _SETTINGS[home_root] = cfg
    return _SETTINGS[home_root]


def handle(event: dict, home_root: str) -> str | None:
    if os.environ.get("COGIT_IN_HOOK") == "1":
        return None  # a cogit process started by a hook never re-enters the hooks
    cfg = settings(home_root)
    timeout = int(cfg.get("hooks", {}).get("lock_timeout_ms", 2000)) / 1000.0
    session = Session(os.path.join(runtime_dir(home_root), "sessions"), event["session_id"])
    handler = HANDLERS.get(event["event"])
    if handler is None:
        return None
    return _framed(event, handler(event, session, cfg, home_root, timeout))


def _framed(event: dict, text: str | None) -> str | None:
    """Every reply of every adapter passes here: only cogit's own frame lines stay tags;
    any other framing tag (from an item, a tool's output, a model, a prompt) is neutralised,
    so nothing ends a memory block early or opens one (cogit/frame.py)."""
    reply = event.get("reply")
    if not text and not reply and not event.get("notice"):
        return text  # most tool calls: nothing to say, nothing imported
    from cogit.frame import guard, neutral

    if isinstance(reply, dict):  # OpenClaw's adapter builds its reply from the parts
        for key, value in reply.items():
            if isinstance(value, str):
                reply[key] = guard(value)
    if isinstance(event.get("notice"), str):
        event["notice"] = neutral(event["notice"])
    return guard(text)


def _touch(state: dict, event: dict) -> None:
    state["last_event_at"] = time.time()
    if event.get("cwd"):
        state["cwd"] = event["cwd"]
    if event.get("owner_pid"):
        from cogit.runtime import owner

        state["owner"] = owner(event["owner_pid"])


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
        spawn_finalize(home_root, None, cwd=event.get("cwd"))
    sync = cfg.get("sync") or {}
    if sync.get("auto"):
        # Never wait on the network here: the pull runs detached, bounded by its own
        # timeout, and what it brings is in the digest from the next session on.
        spawn(home_root, ["pull", "--background", "--timeout", str(float(sync.get("pull_timeout_s", 3)) or 3.0)], "sync.log",
              cwd=event.get("cwd"))
    return text


def _digest_receipt(state, source, branch, digest, text):
    """The whole digest was injected: its receipt, and the version the session now knows."""
    from cogit.hooks import turn, withhold

    text, shown, held = withhold.cut(state, digest, text, _shown(digest["text"]))
    turn.receipt(state, source, branch, digest, text, sum((digest.get("cut") or {}).values()), shown, held)
    state["in_play"] = heuristic_ids(digest["text"])
    turn.saw(state, digest)
    return text


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
        _learn_note(home_root, "note_prompt", state, cfg)
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
        spawn_finalize(home_root, session.id, cwd=event.get("cwd"))
        reply["note"] = f'cogit: noted for memory as a feedback learning: "{learning}"'
    parts = [reply[k] for k in ("digest", "update", "note") if reply[k]]
    return "\n\n".join(parts) if parts else None


def _know_project(state, event, cfg):
    """A part that began without SessionStart (hooks installed mid-session, or a session
    back after its records were folded) still learns into its project."""
    if state.get("project") is None and event.get("cwd"):
        from cogit.scope import project_of

        state["project"] = project_of(event["cwd"], cfg.get("projects", {}).get("overrides"))


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


def on_pre_tool(event, session, cfg, home_root, timeout):
    # `call_key`: an agent that sends no call id names the call for timing (Gemini CLI).
    tid = event.get("tool_use_id") or event.get("call_key")
    if not tid:
        return None

    def update(state):
        _touch(state, event)
        pre = state.setdefault("pre", {})
        pre[tid] = time.time()
        if len(pre) > MAX_PRE:
            for key in sorted(pre, key=pre.get)[: len(pre) - MAX_PRE]:
                del pre[key]

    session.update(update, agent=event["agent"], timeout=timeout)
    return None


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
    if out.get("queued"):
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


# --- the learning loop's session record (cogit/learn/record.py) ---
def _shown(text):
    from cogit.learn.record import shown_ids

    return shown_ids(text)


def _learn_note(home_root, name, *args):
    """Keep the session's evidence for the detectors; a bug here must not cost the hook."""
    try:
        from cogit.learn import record

        getattr(record, name)(home_root, *args)
    except Exception as e:
        from cogit.hooks import log

        log(home_root, f"learn.record.{name} failed: {type(e).__name__}: {e}", exc=True)
# --- end of the learning loop's session record ---


def on_quiet(event, session, cfg, home_root, timeout):
    session.update(lambda state: _touch(state, event), agent=event["agent"], timeout=timeout)
    return None


def on_session_end(event, session, cfg, home_root, timeout):
    def update(state):
        _touch(state, event)
        state["ended"] = True
        state["end_reason"] = event.get("reason")

    session.update(update, agent=event["agent"], timeout=timeout)
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


def spawn_finalize(home_root: str, session_id: str | None, sync: bool = False, cwd: str | None = None) -> None:
    """Start `cogit finalize` detached: it commits queued changes; the hook does not wait.

    With `sync` (auto-sync, after a session ends) it then pushes to the remote.
    """
    args = ["finalize", "--quiet"]
    if session_id:
        args += ["--session", session_id]
    spawn(home_root, args + (["--sync"] if sync else []), "finalize.log", cwd=cwd)


def spawn(home_root: str, args: list[str], log_name: str, cwd: str | None = None) -> None:
    """Start `cogit ARGS` detached in its own session, stderr to runtime/logs/LOG_NAME.

    It runs from COGIT_HOME with the installed cogit only (see cogit/launch.py): the
    hook's working folder is the agent's project, which may hold a `cogit/` of its own.
    Its PATH loses every entry inside the agent's folder (this one and the event's `cwd`,
    and their repositories) and every relative one: direnv puts a project's `bin/` first,
    and the git that auto-sync runs must not be the project's (see cogit/programs.py).
    """
    from cogit.launch import background_argv
    from cogit.programs import agent_env

    argv = background_argv(home_root, args)
    env = agent_env(dict(os.environ, COGIT_HOME=home_root, COGIT_IN_HOOK="1"), cwd)
    logs = os.path.join(runtime_dir(home_root), "logs")
    os.makedirs(logs, mode=0o700, exist_ok=True)
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, os.path.join(logs, log_name), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600),
    ]
    os.posix_spawn(sys.executable, argv, env, file_actions=actions, setsid=True)


HANDLERS = {
    "SessionStart": on_session_start,
    "UserPromptSubmit": on_prompt,
    "PreToolUse": on_pre_tool,
    "PostToolUse": on_post_tool,
    "PostToolUseFailure": on_post_tool,
    "Stop": on_quiet,
    "SubagentStop": on_quiet,
    "PreCompact": on_quiet,
    "SessionEnd": on_session_end,
}
