"""What both transports share: remote URLs, names of branches, errors, the clean environment.

transport.py (dulwich, and the choice of transport) and gitbin.py (the git binary)
both import this; neither imports the other's internals, so imports flow one way.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

from cogit.errors import PushRejected, RemoteError

BRANCH_PREFIX = b"refs/heads/"

# Reasons a git server gives when the ref moved under us (the fix is fetch + merge).
_STALE_MARKERS = (
    "non-fast-forward", "fetch first", "stale info", "cannot lock ref", "failed to lock",
    "but expected", "unable to set", "unable to lock",
)


def remote_kind(url: str) -> str:
    """'path', 'file', 'git', 'http', 'ssh' (RemoteError for anything else)."""
    scheme = urlsplit(url).scheme.lower() if "://" in url else ""
    if scheme:
        kinds = {"file": "file", "git": "git", "http": "http", "https": "http",
                 "ssh": "ssh", "git+ssh": "ssh", "ssh+git": "ssh"}
        if scheme not in kinds:
            raise RemoteError(f"unsupported remote URL scheme {scheme!r} in {_redact(url)}",
                              "use a path, file://, git://, http(s)://, ssh:// or user@host:path")
        return kinds[scheme]
    # git's rule: a colon before the first slash means scp-style ssh (host:path).
    head = url.split("/", 1)[0]
    return "ssh" if ":" in head else "path"


def _local_path(url: str, kind: str) -> Path:
    if kind == "file":
        parts = urlsplit(url)
        if parts.netloc not in ("", "localhost"):
            raise RemoteError(f"file:// URL with a host is not supported: {_redact(url)}")
        path = Path(unquote(parts.path))
    else:
        path = Path(url).expanduser()
    if not path.is_absolute():
        # Never resolve against the current directory: cogit runs from anywhere.
        raise RemoteError(f"a local remote must be an absolute path, not {url!r}")
    return path


def _ssh_command(explicit: str | None) -> str:
    """The ssh program to run: explicit, else $GIT_SSH_COMMAND / $GIT_SSH as git does."""
    if explicit:
        return explicit
    if os.environ.get("GIT_SSH_COMMAND"):
        return os.environ["GIT_SSH_COMMAND"]
    if os.environ.get("GIT_SSH"):
        return shlex.quote(os.environ["GIT_SSH"])
    return "ssh"


def clean_env() -> dict[str, str]:
    """A copy of os.environ without GIT_* (GIT_DIR from a surrounding hook, for one), its
    PATH without the agent's folders (the ssh, credential helpers and remote helpers that
    git and dulwich start are looked up there: see cogit/programs.py)."""
    from cogit.programs import clean_path_env

    return clean_path_env({k: v for k, v in os.environ.items() if not k.startswith("GIT_")})


def _rejected(url: str, reasons: dict[str, str], non_fast_forward: bool) -> PushRejected:
    detail = "; ".join(f"{b}: {r}" for b, r in sorted(reasons.items()))
    hint = ("the remote has changes you do not have: sync again (fetch, merge, push)"
            if non_fast_forward else "the server refused the update; see its reason above")
    return PushRejected(f"push to {_redact(url)} rejected: {detail}", hint,
                        non_fast_forward=non_fast_forward, rejected=reasons)


def _ref(branch: str) -> bytes:
    b = branch.encode("utf-8")
    return b if b.startswith(BRANCH_PREFIX) else BRANCH_PREFIX + b


def _branch_name(ref: bytes) -> str:
    return ref[len(BRANCH_PREFIX):].decode("utf-8", "replace") if ref.startswith(
        BRANCH_PREFIX) else ref.decode("utf-8", "replace")


def _sha(sha: bytes | str) -> bytes:
    return sha.encode("ascii") if isinstance(sha, str) else sha


def _short(sha: bytes | str | None) -> str:
    if sha is None:
        return "nothing (no such branch)"
    return _sha(sha).decode("ascii", "replace")[:12]


def redact_url(url: str) -> str:
    """The URL without any password in it, for messages and listings."""
    return _redact(url)


def _redact(url: str) -> str:
    """The URL without any password in it, for messages."""
    if "://" not in url:
        return url
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    user = f"{parts.username}@" if parts.username else ""
    return urlunsplit((parts.scheme, user + host, parts.path, parts.query, parts.fragment))

