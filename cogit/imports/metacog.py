"""`cogit import metacog PATH`: Metacog's reinforcement log -> rules with their ledger.

Metacog (houtini-ai/metacog) appends one JSON object a line to `~/.claude/metacog-learnings.jsonl`
(and the same records to `<project>/.claude/metacog-learnings.jsonl`):

    {"pattern": ID, "category": C, "lesson": TEXT, "type": "detection", "detected_at": ISO, "session_turn_count": N}
    {"pattern": ID, "type": "suppression", "detected_at": ISO, "session_turn_count": N}
    {"pattern": "motor_<sig>", "type": "motor_learning", "category": "Resolved Failures", "lesson": TEXT,
     "failure_window": {...}, "resolution_action": {...}, "detected_at": ISO, "session_turn_count": N, ...}

PATH is that file, or a folder holding it (`~/.claude`, `<project>/.claude`).

Each pattern becomes a rule (an existing rule with the same detector and signature is reused):

| Metacog pattern | cogit detector (signature) |
|---|---|
| circular_search | circular_search |
| repeated_file_read | repeated_read |
| error_loop | error_loop |
| long_autonomous_run | long_run |
| motor_<sig> | error_loop (`metacog:motor_<sig>`): its lesson is how the error was resolved |
| a cogit detector's name (builtin or config learning.custom_detectors) | that detector |
| anything else (write_heavy_session, custom patterns) | `metacog:<pattern>`: kept and shown, no new evidence from cogit |

The rule's text is the pattern's newest lesson (as Metacog compiles it); its `created_at` is the
pattern's first record. Detections and motor learnings are detections, suppressions are
suppressions (a suppression means the rule was shown, so it counts as injected). Every record
becomes one ledger entry with its original time (cogit/learn/ledger_history.py: the import commit's
body lists them), so `cogit rules` and `cogit rules show` show them and confidence counts them
and decays from the newest of them. Records already in the ledger (same pattern, type, time
and turn count: Metacog writes each record to two logs) are not added again, so a second
import, or the project log after the global one, adds nothing; a grown log adds its new
records. Metacog's category and its stored confidence are not kept: rules have no category,
and confidence is recomputed from the ledger.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field

from cogit.imports import ImportRefused, Report, clean_text, fingerprint, parse_time, read_file

FILE = "metacog-learnings.jsonl"
MAX_LINES = 200_000  # lines looked at (the file is at most MAX_FILE_BYTES anyway)
MAX_EVIDENCE = 5000  # new ledger entries per import commit: the body stays far below what redaction scans whole
MAX_LINE = 64 * 1024
TYPES = {"detection": "detect", "motor_learning": "detect", "suppression": "suppress"}
MAP = {"circular_search": "circular_search", "repeated_file_read": "repeated_read", "error_loop": "error_loop",
       "long_autonomous_run": "long_run"}
_PATTERN = re.compile(r"^[A-Za-z0-9_.:-]{1,80}$")


@dataclass
class Record:
    line: int
    pattern: str
    kind: str  # "detect" / "suppress"
    time: float
    lesson: str | None
    key: str


@dataclass
class Parsed:
    name: str
    records: list[Record] = field(default_factory=list)


def find_log(path: str) -> str:
    """PATH, or the Metacog log inside the folder PATH (never following a symlinked folder)."""
    if os.path.isdir(path) and not os.path.islink(path):
        for candidate in (os.path.join(path, FILE), os.path.join(path, ".claude", FILE)):
            if os.path.lexists(candidate):
                return candidate
        raise ImportRefused(f"no {FILE} in {path}", hint=f"Give Metacog's log: ~/.claude/{FILE} or <project>/.claude/{FILE}.")
    return path


def load(path: str, report: Report) -> tuple[Parsed, str]:
    path = find_log(path)
    data = read_file(path, "Metacog JSONL log")
    report.files.append(path)
    name = os.path.basename(path)
    parsed = Parsed(name)
    lines = data.split(b"\n")
    if len(lines) > MAX_LINES:
        report.problem(name, MAX_LINES + 1, f"the file has {len(lines):,} lines; only the first {MAX_LINES:,} are read")
    for n, raw in enumerate(lines[:MAX_LINES], 1):
        raw = raw.rstrip(b"\r")  # Metacog's author writes on Windows: CRLF
        if n == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        if not raw.strip():
            continue
        record = _record(name, n, raw, report)
        if record:
            parsed.records.append(record)
    if not parsed.records and not report.problems:
        report.notes.append(f"{name} holds no records")
    return parsed, f"{name} sha256:{fingerprint(data)}"


def _record(name: str, n: int, raw: bytes, report: Report) -> Record | None:
    if len(raw) > MAX_LINE:
        report.problem(name, n, f"the line is {len(raw):,} bytes, over {MAX_LINE:,} (skipped)")
        return None
    try:
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        report.problem(name, n, "not UTF-8 text (skipped)")
        return None
    except (ValueError, RecursionError) as e:
        report.problem(name, n, f"not JSON: {str(e)[:80]} (skipped)")
        return None
    if not isinstance(obj, dict):
        report.problem(name, n, f"expected an object, found {type(obj).__name__} (skipped)")
        return None
    pattern = obj.get("pattern")
    if not isinstance(pattern, str) or not _PATTERN.match(pattern):
        report.problem(name, n, f"pattern {str(pattern)[:40]!r} is missing or not an id (skipped)")
        return None
    kind = TYPES.get(obj.get("type")) if isinstance(obj.get("type"), str) else None
    if kind is None:
        report.problem(name, n, f"type {str(obj.get('type'))[:30]!r} is not detection, suppression or motor_learning (skipped)")
        return None
    when = obj.get("detected_at")
    t, why = parse_time(when)
    if t is None:
        report.problem(name, n, f"detected_at: {why or 'missing'} (skipped)")
        return None
    lesson = None
    if obj.get("lesson") not in (None, ""):
        lesson, why = clean_text(obj.get("lesson"))
        if why:
            report.problem(name, n, f"lesson: {why} (the record is kept without it)")
    turns = obj.get("session_turn_count")
    turns = turns if isinstance(turns, int) and not isinstance(turns, bool) else None
    # The same record in the global and the project log (Metacog writes both) has the same key.
    key = hashlib.sha256(json.dumps([pattern, obj.get("type"), when, turns]).encode()).hexdigest()[:12]
    return Record(n, pattern, kind, t, lesson, key)


def detector_of(pattern: str, config) -> tuple[str, str]:
    """(cogit detector, signature) for a Metacog pattern id."""
    from cogit.learn import detectors

    if pattern in MAP:
        return MAP[pattern], ""
    if pattern.startswith("motor_"):
        return "error_loop", "metacog:" + pattern
    if pattern in detectors.BUILTIN or pattern in detectors._custom(config):
        return pattern, ""
    return "metacog:" + pattern, ""


def apply(home, parsed: Parsed, report: Report, branch: str):
    from cogit.domain import ledger
    from cogit.learn import ledger_history
    from cogit.learn.rules import new_rule
    from cogit.store.git import repo as git
    from cogit.domain.times import now_iso
    from cogit.store.write.transact import Change, main_config

    def fn(state):
        report.start_apply()
        repo = git.open_repo(home.memory)
        try:
            book = ledger_history.read(repo, branch)
            config = state.get("config") if branch == git.MAIN else main_config(repo)
        finally:
            repo.close()
        known = {e.key for entries in book.values() for e in entries if e.key}
        fresh, seen = [], set()
        for r in parsed.records:
            if r.key not in known and r.key not in seen:
                seen.add(r.key)
                fresh.append(r)
        if not fresh:
            return None
        fresh.sort(key=lambda r: (r.time, r.line))
        if len(fresh) > MAX_EVIDENCE:
            report.apply_notes.append(f"{len(fresh) - MAX_EVIDENCE:,} newer records are beyond the {MAX_EVIDENCE:,} one import "
                                "commit takes; run the same import again to add them")
            fresh = fresh[:MAX_EVIDENCE]
        by_pattern: dict[str, list[Record]] = {}
        for r in fresh:
            by_pattern.setdefault(r.pattern, []).append(r)
        all_of: dict[str, list[Record]] = {}
        for r in parsed.records:
            all_of.setdefault(r.pattern, []).append(r)
        now = now_iso()
        items = state["rules"]["items"]
        new_lines: list[ledger.Evidence] = []
        rules_touched = []
        for pattern, records in by_pattern.items():
            detector, signature = detector_of(pattern, config)
            rule = next((x for x in items if x.get("detector") == detector and str(x.get("signature") or "") == signature), None)
            everything = all_of[pattern]
            if rule is None:
                lessons = [r.lesson for r in sorted(everything, key=lambda r: (r.time, r.line)) if r.lesson]
                if not lessons:
                    report.problem(parsed.name, records[0].line,
                                   f"pattern {pattern!r} has no lesson in this file and no rule in memory: its "
                                   f"{len(records)} record(s) were skipped (import the log that holds its detection)")
                    continue
                rule = new_rule(state, lessons[-1], detector, signature, source="import")
                rule["created_at"] = now_iso(int(min(r.time for r in everything)))
                report.count("new rules")
            entries = [ledger.Evidence(r.kind, rule["id"], f"metacog:L{r.line}", "", int(r.time), r.kind == "suppress", key=r.key)
                       for r in records]
            combined = sorted(book.get(rule["id"], []) + entries, key=lambda e: e.time)
            rule.update(ledger.cache_fields(combined))
            rule.pop("confidence", None)  # derived from the ledger, never stored
            rule["updated_at"] = now
            new_lines += entries
            rules_touched.append(rule["id"])
            report.count("detections", sum(1 for e in entries if e.kind == "detect"))
            report.count("suppressions", sum(1 for e in entries if e.kind == "suppress"))
        if not new_lines:
            return None
        new_lines.sort(key=lambda e: e.time)
        body = ledger.LEDGER_HEADER + "\n" + "\n".join(ledger.ledger_line(e) for e in new_lines)
        det = report.added.get("detections", 0)
        sup = report.added.get("suppressions", 0)
        summary = f"Import from Metacog ({parsed.name}): {det} detections, {sup} suppressions for {len(rules_touched)} rules"
        return Change(summary, body=body, trailers={"Cogit-Ledger": str(len(new_lines)), "Cogit-Item": " ".join(rules_touched)})

    return fn
