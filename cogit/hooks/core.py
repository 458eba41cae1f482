"""The event core: the dispatch of an event to its handler, the hook settings, the
compiled digest read, and what every handler shares. Standard library only.

Nothing here touches git. Changes of memory (an explicit "remember this", a motor
learning, the session's statistics) are queued in the session's runtime state and
committed by `cogit finalize`, started detached, so a hook never waits on the store.
Each event's handler lives in its own module, imported only when its event comes
(HANDLERS below): session.py (SessionStart, SessionEnd), prompt.py (UserPromptSubmit),
tool_events.py (PreToolUse, PostToolUse), spawn.py (the detached finalize and pull).
"""


from cogit import jsonio
import os
import time

from cogit.runtime import Session

_SETTINGS: dict = {}


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
    handler = handler_of(event["event"])
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


def _know_project(state, event, cfg):
    """A part that began without SessionStart (hooks installed mid-session, or a session
    back after its records were folded) still learns into its project."""
    if state.get("project") is None and event.get("cwd"):
        from cogit.scope import project_of

        state["project"] = project_of(event["cwd"], cfg.get("projects", {}).get("overrides"))


# --- the learning loop's session record (cogit/learn/record.py) ---
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


# The handlers by event, as "module:function": a hook imports only its own event's module
# (a tool call never loads the session start's or the prompt's code).
HANDLERS = {
    "SessionStart": "cogit.hooks.session:on_session_start",
    "UserPromptSubmit": "cogit.hooks.prompt:on_prompt",
    "PreToolUse": "cogit.hooks.tool_events:on_pre_tool",
    "PostToolUse": "cogit.hooks.tool_events:on_post_tool",
    "PostToolUseFailure": "cogit.hooks.tool_events:on_post_tool",
    "Stop": "cogit.hooks.core:on_quiet",
    "SubagentStop": "cogit.hooks.core:on_quiet",
    "PreCompact": "cogit.hooks.core:on_quiet",
    "SessionEnd": "cogit.hooks.session:on_session_end",
}


def handler_of(name: str):
    """The handler of an event (None for an unknown one), its module imported on demand."""
    target = HANDLERS.get(name)
    if target is None:
        return None
    module, _, function = target.partition(":")
    from cogit.hooks.preload import EVENTS, load

    load(EVENTS.get(name, ()))
    return getattr(__import__(module, fromlist=[function]), function)
