"""Imports: what nox-cognitive, Metacog and Claude Code's memory files already learned.

    cogit import nox PATH/state.json        focus, heuristics, learnings, avoidances, engagement
    cogit import metacog PATH               reinforcement JSONL -> rules with their ledger
    cogit import claude-memory PATH         CLAUDE.md / auto-memory folder -> one learning per bullet

Every import is one commit through the one write path (`Cogit-Event: import.<kind>`,
`Cogit-Source: import`), so the write path redacts, validates, caps and refuses a no-op:
importing the same file twice makes no second commit. The files are hostile input: a path
given is only read (never written, never followed when it is a symlink), a file must be a
regular file within MAX_FILE_BYTES and not binary, at most MAX_ENTRIES entries are read,
texts are bounded, and an entry that is malformed is reported with its line number while
the rest is imported.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from dataclasses import dataclass, field

from cogit.errors import CogitError

MAX_FILE_BYTES = 8 * 1024 * 1024  # the Metacog log that took 3.2 MB for 20,000 records fits twice over
MAX_ENTRIES = 5000  # items (or JSONL records, or bullets) read from one import
MAX_TEXT = 2000  # schemas: items[].text and learnings' context maxLength
MAX_PROBLEMS = 200  # problems listed one by one; the rest are counted
KINDS = ("nox", "metacog", "claude-memory")
EARLIEST = 946684800.0  # 2000-01-01: older "original" times are not believed
FUTURE_SLACK = 86400.0  # clocks differ; a time further ahead than a day is not believed


@dataclass
class Report:
    """What an import did and what it refused, for the command to print."""

    kind: str
    files: list[str] = field(default_factory=list)
    added: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # "file:LINE: what is wrong (skipped)"
    notes: list[str] = field(default_factory=list)  # from reading the files
    apply_notes: list[str] = field(default_factory=list)  # from applying them (reset on each try)
    dropped_problems: int = 0

    def problem(self, where: str, line: int | None, text: str) -> None:
        if len(self.problems) >= MAX_PROBLEMS:
            self.dropped_problems += 1
            return
        self.problems.append(f"{where}:{line}: {text}" if line else f"{where}: {text}")

    def count(self, what: str, n: int = 1) -> None:
        self.added[what] = self.added.get(what, 0) + n

    def as_json(self) -> dict:
        return {"kind": self.kind, "files": self.files, "added": self.added, "problems": self.problems,
                "more_problems": self.dropped_problems, "notes": self.all_notes()}

    def all_notes(self) -> list[str]:
        return self.notes + self.apply_notes

    def start_apply(self) -> None:
        """`apply` may run again when the branch moved (write.transact): count afresh."""
        self.added.clear()
        del self.apply_notes[:]


class ImportRefused(CogitError):
    code = "import_refused"


def read_file(path: str, what: str = "file", max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file, read once and bounded; anything else is refused.

    O_NOFOLLOW: a symlink is never followed (it could point at anything, e.g. a device or a
    file the user did not mean); O_NONBLOCK: a fifo cannot hang the command. Nothing is
    ever written to the path."""
    try:
        st = os.lstat(path)
    except OSError as e:
        raise ImportRefused(f"cannot read {path}: {e.strerror}", hint=f"Give the path of the {what} to import.") from None
    if stat.S_ISLNK(st.st_mode):
        raise ImportRefused(f"{path} is a symlink; cogit does not follow symlinks when importing",
                            hint=f"Give the file it points to: cogit import ... {os.path.realpath(path)}")
    if not stat.S_ISREG(st.st_mode):
        raise ImportRefused(f"{path} is not a regular file", hint=f"Give the path of the {what} itself.")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        raise ImportRefused(f"cannot read {path}: {e.strerror}", hint=f"Check that the {what} exists and is readable.") from None
    try:
        st = os.fstat(fd)  # what was opened, not what the name pointed to a moment before
        if not stat.S_ISREG(st.st_mode):
            raise ImportRefused(f"{path} is not a regular file", hint=f"Give the path of the {what} itself.")
        if st.st_size > max_bytes:
            raise ImportRefused(f"{path} is {st.st_size:,} bytes, over the import limit of {max_bytes:,}",
                                hint="Split it, or import a smaller file; nothing was imported.")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > max_bytes:  # it grew while we read
                raise ImportRefused(f"{path} is over the import limit of {max_bytes:,} bytes",
                                    hint="Split it, or import a smaller file; nothing was imported.")
            chunks.append(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if b"\0" in data:
        raise ImportRefused(f"{path} is a binary file (it holds NUL bytes), not a {what}",
                            hint=f"Give the path of the {what} (text).")
    return data


def fingerprint(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def clean_text(value, limit: int = MAX_TEXT) -> tuple[str | None, str | None]:
    """(text, None) for a usable one-line text, else (None, why it is refused)."""
    if not isinstance(value, str):
        return None, f"expected text, found {type(value).__name__ if value is not None else 'null'}"
    text = " ".join(value.split())
    if not text:
        return None, "the text is empty"
    if len(text) > limit:
        return None, f"the text is {len(text):,} characters, over the limit of {limit:,}"
    bad = next((c for c in text if ord(c) < 32 or ord(c) == 127 or 0xD800 <= ord(c) <= 0xDFFF), None)
    if bad is not None:
        return None, f"the text holds a control character (U+{ord(bad):04X})"
    return text, None


def parse_time(value) -> tuple[float | None, str | None]:
    """An original timestamp: ISO 8601 (with `Z` or an offset, fractions allowed; no offset
    means UTC) or epoch seconds/milliseconds. (epoch, None), or (None, why not)."""
    import calendar
    import re

    if value is None or value == "":
        return None, None
    if isinstance(value, bool):
        return None, f"{value!r} is not a time"
    if isinstance(value, (int, float)):
        t = float(value) / 1000.0 if abs(value) > 1e11 else float(value)
    elif isinstance(value, str) and len(value) <= 40:
        m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.\d{1,9})?)?)?\s*(Z|z|[+-]\d\d:?\d\d)?", value.strip())
        if not m:
            return None, f"{value[:40]!r} is not an ISO 8601 time"
        y, mo, d, h, mi, s = (int(g or 0) for g in m.groups()[:6])
        try:
            t = float(calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0)))
            time.gmtime(t)
            if not (1 <= mo <= 12 and 1 <= d <= 31 and h < 24 and mi < 60 and s < 61):
                raise ValueError
        except (ValueError, OverflowError):
            return None, f"{value[:40]!r} is not a valid time"
        tz = m.group(7)
        if tz and tz not in "Zz":
            sign = -1 if tz[0] == "-" else 1
            digits = tz[1:].replace(":", "")
            t -= sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)
    else:
        return None, f"{str(value)[:40]!r} is not a time"
    if t != t or t < EARLIEST or t > time.time() + FUTURE_SLACK:
        return None, f"{str(value)[:40]!r} is not a believable time (before 2000 or in the future)"
    return t, None


def iso(t: float) -> str:
    from cogit.domain.times import now_iso

    return now_iso(t)


def run(home, kind: str, path: str, scope):
    """Import `path` as `kind` into `scope`: (WriteResult or None, Report)."""
    from cogit.store.git.provenance import Provenance
    from cogit.store.write.transact import transact

    if kind == "nox":
        from cogit.imports import nox as mod
    elif kind == "metacog":
        from cogit.imports import metacog as mod
    elif kind == "claude-memory":
        from cogit.imports import markdown as mod
    else:  # click refuses other kinds first
        raise ImportRefused(f"unknown import {kind!r}", hint="Imports: " + ", ".join(KINDS) + ".")
    report = Report(kind)
    parsed, what = mod.load(os.path.expanduser(path), report)
    prov = Provenance(event=f"import.{kind}", source="import", agent="human",
                      session="-", project=scope.name)
    prov.evidence = what  # which file(s), with a hash of their bytes
    result = transact(home, prov, mod.apply(home, parsed, report, scope.branch), branch=scope.branch)
    return result, report


def allow_for(home, state, branch: str):
    """The redaction allowlist (main's config), to compare texts as the store will keep them."""
    from cogit.store.git import repo as git
    from cogit.store.write.scrub import allowlist

    if branch == git.MAIN:
        return allowlist(state.get("config"))
    from cogit.store.write.transact import main_config

    repo = git.open_repo(home.memory)
    try:
        return allowlist(main_config(repo))
    finally:
        repo.close()


def stored_form(text: str, allow) -> str:
    """The text as memory will hold it (secrets redacted), so a second import finds it."""
    from cogit.redact import redact

    return redact(text, allow)[0]
