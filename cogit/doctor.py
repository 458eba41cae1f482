"""`cogit doctor`: find what is wrong with this machine's cogit; with `fix`, mend what is safe.

Each check returns Findings: `ok`, `warn`, `fail` (each with what to do next),
`skipped` (`--offline`) or, with `fix`, `fixed` (mended just now, and how). Mending is
limited to what cogit owns and can redo: its own hook entries in agent settings
(rewritten to the current command, with a backup), the repairs every writer makes
anyway (stale git locks, an interrupted working-tree update: see store/write/recover.py),
folding finished sessions, committing a missing state file's defaults, packing
loose objects, rebuilding a pack's lost index and moving a branch off a missing commit
(checks/damage.py). Nothing a person wrote is changed. The checks live in cogit/checks/.
"""

from __future__ import annotations

import os

from cogit.checks import Finding  # noqa: F401  (re-exported: callers import it from here)
from cogit.errors import CogitError
from cogit.paths import Home


def doctor(home: Home, claude_project: str | None = None, fix: bool = False, offline: bool = False) -> list[Finding]:
    from cogit.checks import read_last_check, write_last_check
    from cogit.checks.agents import check_agent_evidence, check_agents
    from cogit.learn.drain import stale_minutes
    from cogit.checks.logs import check_logs
    from cogit.checks.machine import check_disk, check_runtime

    from cogit.checks.damage import check_damage

    findings = []
    if (home.memory / ".git").exists():
        findings = guarded("repair", check_damage, home, fix)
    if any(f.status == "fail" for f in findings):
        pass  # every other check of memory reads commits, and would only fail the same way
    else:
        findings += guarded("memory", check_memory, home, fix)
        if (home.memory / ".git").exists():
            findings += check_repository(home, fix, offline)
    last = read_last_check(home)
    logs, offsets = check_logs(home, last)
    hooks = guarded("hooks", check_agents, claude_project, fix)
    installed = sorted({f.extra["agent"] for f in hooks if f.extra and f.extra.get("agent")})
    findings += [*logs, *guarded("runtime", check_runtime, home), *guarded("disk", check_disk, home), *hooks,
                 *guarded("agents", check_agent_evidence, str(home.runtime), installed, stale_minutes(home))]
    write_last_check(home, offsets)
    return findings


def check_repository(home: Home, fix: bool, offline: bool) -> list[Finding]:
    """Everything that needs the memory repository open, in the order a person reads them."""
    from cogit.checks.network import check_endpoint, check_remotes
    from cogit import machine_settings
    from cogit.checks.repository import check_fsck, check_hand_edits, check_size, check_staleness, check_state_files
    from cogit.checks.settings import check_waiting_settings
    from cogit.store.git import repo as git
    from cogit.store.state.documents import default_doc

    findings = guarded("fsck", check_fsck, home)
    damaged = any(f.status == "fail" for f in findings)
    findings += guarded("sessions", check_sessions, home, fix)
    try:
        repo = git.open_repo(home.memory)
    except Exception as e:  # noqa: BLE001
        return findings + [Finding("memory", "fail", f"the repository cannot be opened: {type(e).__name__}: {e}",
                                   "See the fsck check; restore memory from a remote or a backup.")]
    try:
        try:
            from cogit.store.write.transact import main_config

            config = main_config(repo)
        except Exception:  # noqa: BLE001 - an invalid config is the state check's finding; use the defaults
            config = default_doc("config")
        findings += guarded("state", check_state_files, home, repo, fix and not damaged)
        findings += guarded("edits", check_hand_edits, home, repo)
        findings += guarded("staleness", check_staleness, home, repo, config)
        findings += guarded("repository", check_size, home, config, fix, damaged)
        findings += guarded("remotes", check_remotes, repo, offline)
        findings += guarded("settings", check_waiting_settings, home, config)
        # The endpoint doctor contacts is this machine's own, never one a synced config names.
        findings += guarded("endpoint", lambda: check_endpoint(machine_settings.effective(home, config), offline))
    finally:
        repo.close()
    return findings


def guarded(name: str, check, *args) -> list[Finding]:
    """A check that trips over a damaged repository reports that instead of stopping doctor."""
    try:
        return check(*args)
    except CogitError as e:
        return [Finding(name, "fail", e.message, e.hint or "")]
    except Exception as e:  # noqa: BLE001 - doctor describes broken homes; it must not become one
        return [Finding(name, "fail", f"the check could not run: {type(e).__name__}: {str(e)[:200]}",
                        "Often a damaged repository: see the fsck check.")]


def check_sessions(home: Home, fix: bool = False) -> list[Finding]:
    """Queued items the store refused (kept in runtime/unstored/ by `cogit finalize`, never
    dropped), and sessions whose records are not in memory yet. With `fix`, what
    `cogit finalize` would fold is folded now (a session still running keeps its records)."""
    import json

    from cogit.learn.drain import unstored_dir

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
    from cogit.learn.drain import stale_minutes

    stale = stale_minutes(home)
    unfinished, running = session_counts(home, stale)
    if unfinished and fix:
        from cogit.learn.drain import finalize

        try:
            results = finalize(home, None, stale)
        except CogitError as e:
            out.append(Finding("sessions", "fail", f"could not finalize sessions: {e.message}", e.hint or ""))
            return out
        left, running = session_counts(home, stale)
        out.append(Finding("sessions", "fixed" if left < unfinished else "warn",
                           f"finalized {unfinished - left} of {unfinished} unfinished session(s): {len(results)} commit(s)"))
        unfinished = left
    if unfinished:
        out.append(Finding("sessions", "warn", f"{unfinished} session(s) ended or went silent with records not yet in memory",
                           "`cogit doctor --fix` (or `cogit finalize`) folds them now; any cogit command does it too.",
                           extra={"unfinished": unfinished}))
    if not out:
        out.append(Finding("sessions", "ok", "every finished session's records are in memory"
                           + (f"; {running} session(s) running" if running else ""), extra={"running": running}))
    return out


def session_counts(home: Home, stale_minutes: float) -> tuple[int, int]:
    """(unfinished, running): sessions with records not yet in memory that `cogit finalize`
    would fold now (queued items, a fold under way, or records of a session that ended or
    went silent), and live sessions with records (folded when they end)."""
    import json
    import time

    from cogit.learn.drain import _agg_empty
    from cogit.runtime import owner_gone

    unfinished = running = 0
    for path in home.sessions.glob("*/state.json") if home.sessions.exists() else []:
        try:
            state = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            unfinished += 1  # unreadable: cannot be sure it is saved
            continue
        records = not _agg_empty(state.get("agg"))
        over = (bool(state.get("ended")) or time.time() - float(state.get("last_event_at") or 0) >= stale_minutes * 60
                or owner_gone(state))
        if state.get("queue") or state.get("pending") is not None or (records and over):
            unfinished += 1
        elif records:
            running += 1
    return unfinished, running


def excerpt(text, limit: int = 80) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_memory(home: Home, fix: bool) -> list[Finding]:
    from cogit.store.git import repo as git
    from cogit.store.git import worktree
    from cogit.store.write.recover import TOP_LOCKS
    from cogit.store.state.documents import STATE_FILES
    from cogit.store.write.transact import memory_lock

    if not (home.memory / ".git").exists():
        return [Finding("memory", "fail", f"no cogit memory at {home.root}",
                        "Run `cogit init`, or `cogit clone URL` to join your other machines.")]
    gitdir = home.memory / ".git"
    leftovers = [n for n in TOP_LOCKS if (gitdir / n).exists()]
    for dirpath, _, names in os.walk(gitdir / "refs"):
        leftovers += [os.path.relpath(os.path.join(dirpath, n), gitdir) for n in names if n.endswith(".lock")]
    prefixes = tuple(f".{name}." for name in STATE_FILES)
    leftovers += [n for n in os.listdir(home.memory) if n.endswith(".tmp") and n.startswith(prefixes)]
    pending = worktree.read_pending(home.memory) is not None
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


def attention(home: Home, hand_edits: list[str] | None = None) -> list[str]:
    """What `cogit status` mentions to send a person to `cogit doctor`: only what is cheap to
    see (no fsck, no network, no hook probes), and news since the last doctor."""
    # Cheap imports only: `cogit status` answered from a snapshot calls this without the
    # store (dulwich, jsonschema); they come in only for a hand edit to check.
    from cogit.checks import read_last_check
    from cogit.checks.logs import LOGS, new_entries
    from cogit.heads import read_pending

    # Paths as strings from home.top (= home.logs, home.unstored, home.memory, home.runtime):
    # a `status` answered from its snapshot imports no pathlib.
    runtime = os.path.join(home.top, "runtime")
    out = []
    seen = read_last_check(home).get("logs") or {}
    for name, _, _, what, _ in LOGS:
        entries, _ = new_entries(os.path.join(runtime, "logs", name), seen.get(name) if isinstance(seen, dict) else None)
        if entries:
            out.append(f"{len(entries)} new {what} in {name}")
    try:
        unstored = sum(1 for e in os.scandir(os.path.join(runtime, "unstored")) if e.name.endswith(".json"))
    except OSError:  # no folder (or not a folder): nothing kept
        unstored = 0
    if unstored:
        out.append(f"{unstored} queued item(s) could not be stored")
    for name in hand_edits or []:
        from cogit.store.git import repo as git
        from cogit.store.git import worktree
        from cogit.store.state import schema
        from cogit.store.state.documents import section_of_file

        data = worktree.read_regular(home.memory, name) if section_of_file(name) else None
        if data is not None:
            try:
                schema.parse(section_of_file(name), data, name)
            except CogitError:
                out.append(f"an invalid hand edit of {name} waits")
    memory = os.path.join(home.top, "memory")
    if read_pending(memory) is not None or os.path.exists(os.path.join(memory, ".git", "index.lock")):
        out.append("a killed cogit process left a lock or an unfinished write")
    if os.path.exists(runtime) and not os.access(runtime, os.W_OK | os.X_OK):
        out.append(f"{home.runtime} is not writable")
    return out
