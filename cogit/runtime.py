"""Per-session scratch state: small JSON files under runtime/sessions/<id>/.

Standard library only: every tool call of the agent goes through here. Each update
holds the session's flock (bounded wait), reads state.json, changes it and replaces
it atomically, so parallel tool calls (concurrent hook processes) lose nothing.
Records of tool calls are appended to calls.jsonl, at most `max_records` per session.
"""


from cogit import jsonio
import os
import time

from cogit.locking import file_lock


def new_state(session_id: str, agent: str) -> dict:
    now = time.time()
    return {
        "session_id": session_id,
        # One "part" of the session: from the event that created this file to the fold
        # that removes it. A resumed session keeps its id, so its fold ids carry the
        # part too (`<session>:<part>:f1`) and never repeat ones already committed.
        "part": new_part(),
        "agent": agent,
        "started_at": now,
        "last_event_at": now,
        "ended": False,
        "cwd": None,
        "project": None,
        "n_calls": 0,
        "n_records": 0,
        "last_tools": [],
        "agg": empty_agg(),
        "pending": None,
        "folds": 0,
        "queue": [],
        "queue_seq": 0,
        "receipts": [],
        "in_play": [],
        "senses": {},
        "pre": {},
    }


def new_part() -> str:
    return f"{int(time.time()):x}{os.urandom(3).hex()}"


def fold_prefix(state: dict) -> str:
    """`<session>:<part>`, the stem of every fold id of this part (no part: older state)."""
    sid = str(state.get("session_id") or "-")
    part = state.get("part")
    return f"{sid}:{part}" if part else sid


def empty_agg() -> dict:
    return {
        "tools": {},
        "sequences": {},
        "engagement": {"total": 0, "meaningful": 0, "last_meaningful_at": None},
        "evidence": {},
        "feedback": [],
        "prompts": 0,
    }


class Session:
    """The runtime files of one agent session."""

    def __init__(self, sessions_dir: str, session_id: str):
        from cogit.paths import safe_name

        self.id = session_id
        self.dir = os.path.join(str(sessions_dir), safe_name(session_id))
        self.state_path = os.path.join(self.dir, "state.json")
        self.calls_path = os.path.join(self.dir, "calls.jsonl")
        self.lock_path = os.path.join(self.dir, "lock")

    def exists(self) -> bool:
        return os.path.exists(self.state_path)

    def read(self) -> dict | None:
        try:
            with open(self.state_path, encoding="utf-8") as f:
                return jsonio.loads(f.read())
        except FileNotFoundError:
            return None

    def update(self, fn, *, agent: str = "unknown", timeout: float = 2.0, create: bool = True):
        """Run fn(state) under the session lock and save the state; returns fn's result."""
        if not create and not self.exists():
            return None
        private_dirs(self.dir)
        with file_lock(self.lock_path, timeout):
            state = self.read()
            if state is None:
                if not create:
                    return None
                state = new_state(self.id, agent)
            result = fn(state)
            write_json(self.state_path, state, durable=bool(state.pop("_durable", False)))
            return result

    def remove_if(self, pred, timeout: float = 2.0, missing: bool = False) -> bool:
        """Delete the session's folder if pred(state) holds, decided under the session lock.

        `missing`: the folder may have no state file (pred then gets None). A hook that
        was waiting for the lock finds its lock file gone and starts a new one (see
        locking.file_lock): nothing it writes lands in a deleted folder."""
        if not (missing and os.path.isdir(self.dir)) and not self.exists():
            return False
        with file_lock(self.lock_path, timeout):
            try:
                state = self.read()
            except ValueError:
                state = None
            if (state is None and not missing) or not pred(state):
                return False
            names = sorted(os.listdir(self.dir), key=lambda n: (n == "state.json", n.endswith("lock")))
            for name in names:  # state.json and the locks last: a crash leaves a usable state
                try:
                    os.unlink(os.path.join(self.dir, name))
                except OSError:
                    pass
            try:
                os.rmdir(self.dir)
            except OSError:
                pass
            return True

    def append_call(self, record: dict) -> None:
        line = jsonio.dumps(record) + "\n"
        # O_APPEND keeps concurrent appends whole; the count cap is kept in state.json.
        fd = os.open(self.calls_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)


def write_json(path: str, value, durable: bool = False) -> None:
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with open(fd, "w", encoding="utf-8") as f:
        f.write(jsonio.dumps(value))
        if durable:  # what the model is told was noted survives a power cut
            f.flush()
            os.fsync(f.fileno())
    os.replace(tmp, path)


def private_dirs(path: str) -> None:
    """Create `path` and its missing parents private to the user (0700): runtime files
    hold tool output, prompts and paths, which may hold what the redaction misses."""
    if os.path.isdir(path):
        return
    parent = os.path.dirname(path)
    if parent and parent != path and os.path.basename(parent) in ("sessions", "runtime"):
        private_dirs(parent)  # makedirs gives its mode to the leaf only
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except FileNotFoundError:
        os.makedirs(path, mode=0o700, exist_ok=True)


def append_private(path: str, text: str) -> None:
    """Append to a log file created 0600."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with open(fd, "a", encoding="utf-8") as f:
        f.write(text)


def list_sessions(sessions_dir: str) -> list[str]:
    try:
        return sorted(os.listdir(sessions_dir))
    except FileNotFoundError:
        return []


def owner(pid: int) -> dict:
    """The agent process a session runs in (adapters that know it: OpenClaw's plugin)."""
    return {"pid": int(pid), "host": os.uname().nodename}


def owner_gone(state: dict) -> bool:
    """Is the session's agent process known, on this machine, and no longer running? A pid
    reused by another process reads as running: the session then waits for the stale time."""
    info = state.get("owner") if isinstance(state, dict) else None
    if not isinstance(info, dict) or info.get("host") != os.uname().nodename:
        return False
    pid = info.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 1:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):
        return False
    return False
