"""Where everything lives: `COGIT_HOME` and the paths below it, resolved in one place.

Standard library only: the hook path imports this module.

Precedence for the home: an explicit argument, then `$COGIT_HOME`, then `~/.cogit`.
Nothing is ever discovered from the current directory or from `GIT_*` variables,
because cogit runs inside other tools' hooks (a git hook exports GIT_DIR, for one).
"""


import os

# pathlib is imported only where a Home is built (the CLI): the hook path needs
# just the home as a string, and pathlib's imports cost milliseconds per tool call.


def home_dir(explicit: str | os.PathLike | None = None) -> str:
    """The absolute memory home: explicit > $COGIT_HOME > ~/.cogit. The one resolver."""
    chosen = explicit or os.environ.get("COGIT_HOME") or os.path.join("~", ".cogit")
    return os.path.abspath(os.path.expanduser(os.fspath(chosen)))


def resolve_home(explicit: str | os.PathLike | None = None) -> "Path":
    from pathlib import Path

    return Path(home_dir(explicit))


class Home:
    """The memory home: a git repository of memory plus unversioned runtime state.

    `top` is the home as a string; `root` (and every path below) a Path, built on first
    use: a cold `show` answered from its snapshot works with strings and skips pathlib."""

    __slots__ = ("top", "_root")

    def __init__(self, root: "str | Path"):
        self.top = os.fspath(root)
        self._root = None

    @property
    def root(self) -> "Path":
        if self._root is None:
            from pathlib import Path

            self._root = Path(self.top)
        return self._root

    def __repr__(self) -> str:
        return f"Home({str(self.root)!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Home) and other.root == self.root

    def __hash__(self) -> int:
        return hash(self.root)

    @classmethod
    def resolve(cls, explicit: str | os.PathLike | None = None) -> "Home":
        return cls(home_dir(explicit))

    @property
    def memory(self) -> "Path":
        """The git repository (branch `main` = global scope)."""
        return self.root / "memory"

    @property
    def runtime(self) -> "Path":
        """Unversioned scratch state: sessions, digest cache, logs, locks."""
        return self.root / "runtime"

    @property
    def lock(self) -> "Path":
        """The OS lock every writer of the memory repository holds."""
        return self.runtime / "memory.lock"

    @property
    def sessions(self) -> "Path":
        return self.runtime / "sessions"

    @property
    def digests(self) -> "Path":
        """Compiled digests, one small file per scope, read by the hooks."""
        return self.runtime / "digest"

    @property
    def logs(self) -> "Path":
        return self.runtime / "logs"

    @property
    def hook_log(self) -> "Path":
        return self.logs / "hooks.log"

    @property
    def crash_log(self) -> "Path":
        return self.logs / "crash.log"

    @property
    def rejected(self) -> "Path":
        """Copies of refused hand edits, so that nothing typed by a person is lost."""
        return self.runtime / "rejected"

    @property
    def unstored(self) -> "Path":
        """Queued items that could not be committed, kept for `cogit doctor` (learn/drain.py)."""
        return self.runtime / "unstored"

    def session_dir(self, session_id: str) -> "Path":
        return self.sessions / safe_name(session_id)


def safe_name(value: str, limit: int = 80) -> str:
    """A file-name-safe rendering of an arbitrary id (session ids come from payloads), at
    most `limit` characters.

    An id that is already a safe name (a UUID, `project--main`) is its own name. Any other
    (too long, characters replaced, dots stripped) ends in a hash of the whole id, so two
    ids that share a prefix, or differ only where characters were replaced, never share a
    file: two sessions sharing one name would share one runtime state.
    """
    out = "".join(c if (c.isascii() and (c.isalnum() or c in "-_.")) else "_" for c in value)
    out = out.strip(".") or "_"
    if out == value and len(out) <= limit:
        return out
    try:  # a built-in module: `hashlib` would load OpenSSL (~6 ms) on the hook path
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover
        from hashlib import blake2b
    digest = blake2b(value.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
    return f"{out[: max(limit - 17, 1)]}-{digest}"
