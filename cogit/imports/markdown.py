"""`cogit import claude-memory PATH`: Claude Code's Markdown memory -> learnings.

PATH is a Markdown file (`CLAUDE.md`, `CLAUDE.local.md`, `~/.claude/CLAUDE.md`, a
`.claude/rules/*.md`) or a folder (the auto-memory folder
`~/.claude/projects/<project>/memory/`: a `MEMORY.md` index plus one topic file per memory,
each with YAML frontmatter `name`, `description`, `type`, and `modified`).

- One learning per bullet (`-`, `*`, `+`, `1.`; a task box `[ ]`/`[x]` is dropped; lines that
  continue a bullet join it). Code blocks and HTML comments are not read; a heading names the
  section the bullet came from.
- A file with frontmatter and no bullets (a topic file written as prose) gives one learning:
  its `description`.
- In a folder, an index line of `MEMORY.md` that only links to a topic file
  (`- [Title](file.md) — hook`) is not a learning of its own: the topic file is.
- Marked as imported: `source: import`, and `context` says "Imported from FILE § SECTION".
  Category `feedback` (instructions and corrections the user gave), or `insight` for a topic
  file whose frontmatter `type` is `user`, `project` or `reference`.
- Time: the frontmatter's `modified`, else the file's modification time (`created_at`).
- A bullet already in memory (same text as memory keeps it) is not added again.

A folder is walked without following symlinks (each one is reported), at most MAX_DEPTH levels
and MAX_FILES Markdown files, MAX_FILE_BYTES in all; other files are ignored.
"""

from __future__ import annotations

import os
import re
import stat
import time
from dataclasses import dataclass, field

from cogit.imports import (EARLIEST, FUTURE_SLACK, MAX_ENTRIES, MAX_FILE_BYTES, ImportRefused, Report, allow_for, clean_text, fingerprint, iso,
                           parse_time, read_file, stored_form)

MAX_FILES = 200
MAX_DEPTH = 4
MAX_DIR_ENTRIES = 5000  # entries looked at in a folder walk, Markdown or not
MAX_FRONTMATTER = 60  # lines
SUFFIXES = (".md", ".markdown")
_BULLET = re.compile(r"^(\s{0,12})(?:[-*+]|\d{1,3}[.)])(?:\s+(.*))?$")
_TASK = re.compile(r"^\[[ xX]\]\s+")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_INDEX = re.compile(r"^\[[^\]]{0,300}\]\(([^)\s]{1,300})\)(?:\s*(?:[-—–:]\s*.*)?)?$")
_FRONT = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]{0,40}):\s*(.*?)\s*$")


@dataclass
class Bullet:
    file: str
    line: int
    text: str
    category: str
    context: str
    time: float | None


@dataclass
class Parsed:
    name: str
    bullets: list[Bullet] = field(default_factory=list)
    limited: bool = False  # MAX_ENTRIES reached (reported once)


def load(path: str, report: Report) -> tuple[Parsed, str]:
    try:
        st = os.lstat(path)
    except OSError as e:
        raise ImportRefused(f"cannot read {path}: {e.strerror}", hint="Give a CLAUDE.md file or an auto-memory folder.") from None
    if stat.S_ISLNK(st.st_mode):
        raise ImportRefused(f"{path} is a symlink; cogit does not follow symlinks when importing",
                            hint=f"Give what it points to: {os.path.realpath(path)}")
    if stat.S_ISDIR(st.st_mode):
        files = _walk(path, report)
        if not files:
            raise ImportRefused(f"no Markdown files in {path}", hint="Give a CLAUDE.md file or an auto-memory folder (…/memory/).")
        parsed = Parsed(os.path.basename(os.path.normpath(path)) + "/")
        hashes, total = [], 0
        names = {rel for rel, _ in files}
        for rel, full in files:
            try:
                data = read_file(full, "Markdown file")
            except ImportRefused as e:
                report.problem(rel, None, e.message + " (skipped)")
                continue
            total += len(data)
            if total > MAX_FILE_BYTES:
                report.problem(rel, None, f"the folder's Markdown files are over {MAX_FILE_BYTES:,} bytes in all; this and later files were not read")
                break
            report.files.append(full)
            hashes.append(f"{rel}:{fingerprint(data)}")
            _parse(rel, data, _mtime(full), report, parsed, names)
        what = f"{parsed.name} ({len(hashes)} files) sha256:{fingerprint(chr(10).join(hashes).encode())}"
        return parsed, what
    data = read_file(path, "Markdown file")
    report.files.append(path)
    name = os.path.basename(path)
    parsed = Parsed(name)
    _parse(name, data, st.st_mtime, report, parsed, set())
    return parsed, f"{name} sha256:{fingerprint(data)}"


def _mtime(path: str) -> float | None:
    try:
        return os.lstat(path).st_mtime
    except OSError:
        return None


def _walk(root: str, report: Report) -> list[tuple[str, str]]:
    """(relative name, full path) of the Markdown files under root: no symlink followed, bounded."""
    found: list[tuple[str, str]] = []
    looked = [0]

    def visit(folder: str, rel: str, depth: int) -> None:
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            report.problem(rel or ".", None, f"cannot list the folder: {e.strerror} (skipped)")
            return
        for entry in entries:
            looked[0] += 1
            if looked[0] > MAX_DIR_ENTRIES or len(found) >= MAX_FILES:
                return
            name = f"{rel}{entry.name}"
            if entry.is_symlink():
                report.problem(name, None, "a symlink; not followed (skipped)")
            elif entry.is_dir(follow_symlinks=False):
                if depth < MAX_DEPTH and not entry.name.startswith("."):
                    visit(entry.path, name + "/", depth + 1)
            elif entry.is_file(follow_symlinks=False) and entry.name.lower().endswith(SUFFIXES):
                found.append((name, entry.path))

    visit(root, "", 1)
    if looked[0] > MAX_DIR_ENTRIES or len(found) >= MAX_FILES:
        report.notes.append(f"the folder walk stopped at {MAX_FILES} Markdown files / {MAX_DIR_ENTRIES} entries")
    return found


def _parse(rel: str, data: bytes, mtime: float | None, report: Report, parsed: Parsed, names: set[str]) -> None:
    lines = data.split(b"\n")
    text_lines: list[str | None] = []
    for n, raw in enumerate(lines, 1):
        raw = raw.rstrip(b"\r")
        if n == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            text_lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            report.problem(rel, n, "not UTF-8 text (line skipped)")
            text_lines.append(None)
    front, start = _frontmatter(text_lines)
    ftype = str(front.get("type", "")).strip("'\"").lower()
    category = "insight" if ftype in ("user", "project", "reference") else "feedback"
    when = mtime if mtime and EARLIEST <= mtime <= time.time() + FUTURE_SLACK else None
    if front.get("modified"):
        t, why = parse_time(front["modified"].strip("'\""))
        if why:
            report.problem(rel, 1, f"frontmatter modified: {why} (the file's time is used)")
        elif t:
            when = t
    folder = os.path.dirname(rel)
    section = ""
    fenced = in_comment = False
    current: list | None = None  # [line, [parts]]
    found = 0

    def close():
        nonlocal current, found
        if current is None:
            return
        line, parts = current
        current = None
        raw_text = " ".join(parts)
        m = _INDEX.match(raw_text.strip())
        if m and names and os.path.normpath(os.path.join(folder, m.group(1).split("#")[0])) in names:
            return  # an index line of MEMORY.md: its topic file is imported itself
        text, why = clean_text(raw_text)
        if why:
            if why != "the text is empty":
                report.problem(rel, line, f"bullet: {why} (skipped)")
            return
        found += 1
        if len(parsed.bullets) >= MAX_ENTRIES:
            if not parsed.limited:
                report.problem(rel, line, f"more than {MAX_ENTRIES:,} bullets; the rest are not read")
                parsed.limited = True
            return
        context = f"Imported from {rel}" + (f" § {section}" if section else "")
        parsed.bullets.append(Bullet(rel, line, text, category, context[:300], when))

    for n, line in enumerate(text_lines[start:], start + 1):
        if line is None:
            continue
        if in_comment:
            if "-->" in line:
                in_comment = False
            continue
        if _FENCE.match(line):
            close()
            fenced = not fenced
            continue
        if fenced:
            continue
        if line.lstrip().startswith("<!--"):
            close()
            in_comment = "-->" not in line
            continue
        h = _HEADING.match(line)
        if h:
            close()
            section = " ".join(h.group(2).split())[:100]
            continue
        b = _BULLET.match(line)
        if b:
            close()
            body = _TASK.sub("", b.group(2) or "")
            current = [n, [body]]
            continue
        if not line.strip():
            close()
            continue
        if current is not None:
            current[1].append(line.strip())
    close()
    if not found and front.get("description"):
        text, why = clean_text(front["description"].strip("'\""))
        if why:
            report.problem(rel, 1, f"frontmatter description: {why} (skipped)")
        else:
            context = f"Imported from {rel}" + (f" ({front['name'].strip(chr(34))[:100]})" if front.get("name") else "")
            parsed.bullets.append(Bullet(rel, 1, text, category, context[:300], when))


def _frontmatter(lines: list[str | None]) -> tuple[dict[str, str], int]:
    """Simple `key: value` frontmatter between `---` lines at the top (never YAML-parsed: hostile)."""
    if not lines or (lines[0] or "").strip() != "---":
        return {}, 0
    out: dict[str, str] = {}
    for i, line in enumerate(lines[1:MAX_FRONTMATTER], 1):
        if line is not None and line.strip() == "---":
            return out, i + 1
        m = _FRONT.match(line or "")
        if m:
            out[m.group(1).lower()] = m.group(2)
    return {}, 0  # no closing line: not frontmatter


def apply(home, parsed: Parsed, report: Report, branch: str):
    from cogit.store.state.documents import new_id
    from cogit.domain.times import now_iso
    from cogit.store.write.transact import Change

    def fn(state):
        report.start_apply()
        allow = allow_for(home, state, branch)
        items = state["learnings"]["items"]
        have = {str(i.get("text")) for i in items}
        now = now_iso()
        for b in parsed.bullets:
            key = stored_form(b.text, allow)  # as memory keeps it; the write path redacts the item
            if key in have:
                continue
            have.add(key)
            items.append({"id": new_id("learnings", state), "text": b.text, "category": b.category, "context": b.context,
                          "source": "import", "created_at": iso(b.time) if b.time else now, "updated_at": now})
            report.count("learnings")
        if not report.added:
            return None
        return Change(f"Import from Claude Code memory ({parsed.name}): {report.added['learnings']} learnings")

    return fn
