"""`cogit doctor`: find what is wrong with this machine's cogit; with `fix`, mend what is safe.

Each check returns Findings: `ok`, `warn`, `fail` (each with what to do next) or, with
`fix`, `fixed` (mended just now, and how). Mending is limited to what cogit owns and
can redo: its own hook entries in agent settings (rewritten to the current command,
with a backup), and the repairs every writer makes anyway (stale git locks, an
interrupted working-tree update: see store/recover.py). Nothing a person wrote is changed.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass

from cogit.errors import CogitError
from cogit.paths import Home


@dataclass
class Finding:
    name: str
    status: str  # "ok", "warn", "fail", "fixed"
    detail: str
    hint: str = ""
    extra: dict | None = None  # machine-readable facts for --json (e.g. the unstored item's fold id)

    def to_json(self) -> dict:
        out = asdict(self)
        out.update(out.pop("extra") or {})
        return out


def doctor(home: Home, claude_project: str | None = None, fix: bool = False) -> list[Finding]:
    findings = [*check_memory(home, fix), *check_hooks(claude_project, fix)]
    if (home.memory / ".git").exists():
        findings += check_sessions(home)
    return findings


def check_sessions(home: Home) -> list[Finding]:
    """Queued items the store refused (kept in runtime/unstored/ by `cogit finalize`, never
    dropped), and sessions whose records are not in memory yet."""
    import json

    from cogit.learn.drain import unstored_dir
    from cogit.store.status import unsaved_sessions

    out = []
    folder = unstored_dir(home)
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            record = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError) as e:
            record = {"reason": f"unreadable record: {e}"}
        text = str(record.get("text") or "")
        out.append(Finding(
            "sessions", "fail",
            f"a queued {record.get('kind', 'item')} could not be stored ({record.get('fold', '?')}): {record.get('reason')}; "
            f"text: \"{excerpt(text)}\" ({len(text)} characters)",
            f"Add a fixed version with `cogit add learning TEXT`, then delete {path}.",
            extra={"fold": record.get("fold"), "file": str(path)},
        ))
    unsaved = unsaved_sessions(home)
    if unsaved:
        out.append(Finding("sessions", "warn", f"{unsaved} session(s) have records not yet in memory",
                           "They are folded when they end or go silent; `cogit finalize` folds ended ones now."))
    if not out:
        out.append(Finding("sessions", "ok", "every session's records are in memory"))
    return out


def excerpt(text, limit: int = 80) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_memory(home: Home, fix: bool) -> list[Finding]:
    from cogit.store import repo as git
    from cogit.store.recover import TOP_LOCKS
    from cogit.store.state import STATE_FILES
    from cogit.store.write import memory_lock

    if not (home.memory / ".git").exists():
        return [Finding("memory", "fail", f"no cogit memory at {home.root}",
                        "Run `cogit init`, or `cogit clone URL` to join your other machines.")]
    gitdir = home.memory / ".git"
    leftovers = [n for n in TOP_LOCKS if (gitdir / n).exists()]
    for dirpath, _, names in os.walk(gitdir / "refs"):
        leftovers += [os.path.relpath(os.path.join(dirpath, n), gitdir) for n in names if n.endswith(".lock")]
    prefixes = tuple(f".{name}." for name in STATE_FILES)
    leftovers += [n for n in os.listdir(home.memory) if n.endswith(".tmp") and n.startswith(prefixes)]
    pending = git.read_pending(home.memory) is not None
    out = []
    if leftovers or pending:
        what = ", ".join(leftovers) + (" and " if leftovers and pending else "") + ("an interrupted working-tree update" if pending else "")
        if fix:
            try:
                with memory_lock(home, timeout=10):  # taking it repairs what a killed writer left
                    pass
            except CogitError as e:
                return [Finding("memory", "fail", e.message, e.hint or "")]
            out.append(Finding("memory", "fixed", f"cleared what a killed cogit process left: {what}"))
        else:
            out.append(Finding("memory", "warn", f"a killed cogit process left {what}",
                               "cogit's next write clears it; `cogit doctor --fix` does it now."))
    repo = git.open_repo(home.memory)
    try:
        for branch in git.branches(repo):
            strays = git.stray_entries(repo, git.head(repo, branch), STATE_FILES)
            if strays:
                out.append(Finding("memory", "warn",
                                   f"{branch} holds entries that are not memory files: {', '.join(strays[:5])}",
                                   "cogit's next write to that branch removes them (they stay in history); "
                                   "a remote will refuse them until then."))
    finally:
        repo.close()
    if not out:
        out.append(Finding("memory", "ok", f"memory at {home.memory} opens; no stale locks"))
    return out


def check_hooks(claude_project: str | None, fix: bool) -> list[Finding]:
    """Hook commands written by older cogit versions are rewritten to the current one."""
    from cogit.install import claude

    out = []
    for project in [None] + ([claude_project] if claude_project else []):
        path = claude.settings_path(project)
        try:
            current = claude.load(path)
        except CogitError as e:
            out.append(Finding("hooks", "fail", e.message, e.hint or ""))
            continue
        ours = claude.our_commands(current)
        if not ours:
            continue
        home = claude.home_of(ours)
        if ours == claude.our_commands(claude.with_ours(current, home)):
            out.append(Finding("hooks", "ok", f"Claude Code hooks in {path} are current"))
        elif fix:
            result = claude.install(project, home=home)
            out.append(Finding("hooks", "fixed", f"upgraded cogit's hook commands in {path} to this version's "
                                                 f"(backup: {result['backup']})"))
        else:
            out.append(Finding("hooks", "fail", f"cogit's hook commands in {path} are from an older version "
                                                "(they may import code from the agent's working folder)",
                               "Run `cogit doctor --fix` (or `cogit install claude`) to upgrade them."))
    if not out:
        out.append(Finding("hooks", "ok", "no agent settings hold cogit hooks (`cogit install claude` adds them)"))
    return out
