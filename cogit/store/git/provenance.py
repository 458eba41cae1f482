"""Provenance: who and what caused a change, as git trailers in the commit message.

`git log --format='%(trailers)'` and `git interpret-trailers` read them natively,
so plain git answers "who changed this and why" without cogit installed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

TRAILER_ORDER = (
    "Cogit-Event",
    "Cogit-Source",
    "Cogit-Agent",
    "Cogit-Session",
    "Cogit-Project",
    "Cogit-Trigger",
    "Cogit-Evidence",
    "Cogit-Model",
    "Cogit-Digest",
    "Cogit-Fold",
    "Cogit-Reverts",
    "Cogit-Pruned",
)
SOURCES = ("cli", "hook", "reflection", "human", "sync", "import", "agent")
COMMITTER = b"cogit <cogit@localhost>"
_MAX_VALUE = 300


@dataclass
class Provenance:
    event: str
    source: str = "cli"
    agent: str = "human"
    session: str = "-"
    project: str = "global"
    trigger: str | None = None
    evidence: str | None = None
    model: str | None = None
    author: str | None = None  # "Name <email>"; default: the agent, or the local user
    extra: dict[str, str] = field(default_factory=dict)

    def trailers(self) -> dict[str, str]:
        out = {
            "Cogit-Event": self.event,
            "Cogit-Source": self.source,
            "Cogit-Agent": self.agent,
            "Cogit-Session": self.session,
            "Cogit-Project": self.project,
        }
        for key, value in (
            ("Cogit-Trigger", self.trigger),
            ("Cogit-Evidence", self.evidence),
            ("Cogit-Model", self.model),
        ):
            if value:
                out[key] = value
        out.update(self.extra)
        return {k: clean_value(v) for k, v in out.items()}

    def author_line(self) -> bytes:
        if self.author:
            return _ident(self.author)
        if self.source in ("hook", "reflection", "agent") and self.agent != "human":
            name = re.sub(r"[<>\n]", "", _clean(self.agent)).strip() or "agent"
            return _ident(f"{name} <{re.sub(r'[^A-Za-z0-9_.-]', '-', name)}@agents.cogit>")
        return _ident(local_user())


def _clean(text: str) -> str:
    """No control character (but newline), no lone surrogate: what `git fsck --strict` and UTF-8 accept."""
    from cogit.domain.text import clean_text

    return clean_text(str(text))


def _ident(line: str) -> bytes:
    """`Name <email>` as git's fsck wants it: one line, one pair of angle brackets, no control character."""
    line = " ".join(_clean(line).split())
    name, lt, rest = line.partition("<")
    email = rest.rsplit(">", 1)[0] if lt else ""
    name = re.sub(r"[<>]", "", name).strip() or "cogit"
    email = re.sub(r"[<>\s]", "", email) or "unknown@cogit"
    return f"{name} <{email}>".encode("utf-8")


def local_user() -> str:
    """The person at the keyboard: $COGIT_AUTHOR ("Name <email>") or the login name."""
    env = os.environ.get("COGIT_AUTHOR")
    if env and "<" in env and env.strip().endswith(">"):
        return env.strip()
    # getpass.getuser() and socket.gethostname() by hand: those two modules (socket is
    # about 3 ms) are not worth importing on every write command's cold path.
    user = next((os.environ[k] for k in ("LOGNAME", "USER", "LNAME", "USERNAME") if os.environ.get(k)), None)
    if user is None:
        try:
            import pwd

            user = pwd.getpwuid(os.getuid())[0]
        except Exception:  # no login name in some containers (or no pwd module)
            user = "user"
    if hasattr(os, "uname"):
        host = os.uname().nodename
    else:
        import socket

        host = socket.gethostname()
    host = host or "localhost"
    return f"{user} <{user}@{host}>"


def clean_value(value: str) -> str:
    """One line, bounded: trailers must not break the message format."""
    value = " ".join(_clean(value).split())
    return value if len(value) <= _MAX_VALUE else value[: _MAX_VALUE - 1] + "…"


def message(summary: str, body: str, prov: Provenance) -> bytes:
    summary = clean_value(summary)[:120] or prov.event
    parts = [summary]
    if body.strip():
        parts.append(body.strip())
    trailers = prov.trailers()
    ordered = [k for k in TRAILER_ORDER if k in trailers] + [k for k in trailers if k not in TRAILER_ORDER]
    parts.append("\n".join(f"{k}: {trailers[k]}" for k in ordered))
    # The body quotes item texts and pruned items: no NUL or other control character reaches
    # the commit (git fsck refuses a NUL in a message; a checking remote the push).
    return (_clean("\n\n".join(parts)) + "\n").encode("utf-8")


_TRAILER = re.compile(r"^([A-Za-z][A-Za-z0-9-]*): (.*)$")


def parse(msg: str) -> tuple[str, str, dict[str, str]]:
    """Split a commit message into (summary, body, trailers)."""
    text = msg.strip("\n")
    paragraphs = text.split("\n\n")
    summary = paragraphs[0].splitlines()[0] if paragraphs and paragraphs[0] else ""
    trailers: dict[str, str] = {}
    if len(paragraphs) > 1:
        last = paragraphs[-1].splitlines()
        matches = [_TRAILER.match(line) for line in last]
        if last and all(matches):
            trailers = {m.group(1): m.group(2) for m in matches}
            paragraphs = paragraphs[:-1]
    body = "\n\n".join(paragraphs[1:]) if len(paragraphs) > 1 else ""
    first_rest = paragraphs[0].splitlines()[1:] if paragraphs else []
    if first_rest:
        body = "\n".join(first_rest) + ("\n\n" + body if body else "")
    return summary, body, trailers
