"""The memory repository: integrity (`git fsck`), every state file on every branch, hand
edits, staleness, size and loose objects; with `fix`, restoring a missing state file
(a commit through the one write path) and packing loose objects."""

from __future__ import annotations

import os
import subprocess
import time
from datetime import datetime, timezone

from cogit.checks import Finding, setting
from cogit.errors import CogitError

FSCK_TIMEOUT = 300  # seconds; a big repository is the one slow check
DEFAULTS = {"stale_days": 30, "reflection_stale_days": 14, "max_loose_objects": 2000, "max_repo_mb": 500}


def doctor_setting(config, key: str):
    return setting(config, "doctor", key, DEFAULTS[key])


def check_fsck(home) -> list[Finding]:
    """`git fsck` when git is on PATH (the reference), else dulwich reading every object."""
    from cogit.programs import clean_path_env, which

    git_bin = which("git")  # never a git from the agent's folder
    if git_bin:
        env = clean_path_env({k: v for k, v in os.environ.items() if not k.startswith("GIT_")})
        try:
            proc = subprocess.run([git_bin, "-C", str(home.memory), "fsck", "--no-progress", "--no-dangling"],
                                  capture_output=True, text=True, env=env, timeout=FSCK_TIMEOUT,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return [Finding("fsck", "warn", f"`git fsck` did not finish within {FSCK_TIMEOUT} s",
                            f"Run it yourself: git -C {home.memory} fsck")]
        if proc.returncode == 0:
            return [Finding("fsck", "ok", "`git fsck` finds the repository intact", extra={"tool": "git"})]
        lines = [ln for ln in (proc.stderr + proc.stdout).splitlines() if ln.strip() and not ln.startswith("Checking")]
        return [Finding("fsck", "fail", f"`git fsck` found damage: {'; '.join(lines[:3])[:400]}", _damage_hint(home),
                        extra={"tool": "git"})]
    from cogit.store.git import repo as git
    from cogit.store.git import objects as git_objects

    repo = git.open_repo(home.memory)
    try:
        problems = git_objects.check_objects(repo)
    finally:
        repo.close()
    if problems:
        return [Finding("fsck", "fail", f"object check (dulwich; git is not on PATH) found damage: {'; '.join(problems[:3])}",
                        _damage_hint(home), extra={"tool": "dulwich"})]
    return [Finding("fsck", "ok", "every object reads back intact (dulwich check; git is not on PATH)",
                    extra={"tool": "dulwich"})]


def _damage_hint(home) -> str:
    return ("Damaged objects cannot be repaired here. With a remote: move the memory folder away and "
            f"`cogit clone URL` (then copy back what only this machine had); else restore {home.memory} from a backup.")


# --------------------------------------------------------------------------- state files


def check_state_files(home, repo, fix: bool) -> list[Finding]:
    from cogit.store.state import loader
    from cogit.store.git import repo as git
    from cogit.store.state.schema import SECTIONS
    from cogit.store.scopes import is_project
    from cogit.store.state.documents import filename

    out, missing = [], {}
    branches = [b for b in git.branches(repo) if b == git.MAIN or is_project(b)]
    for branch in branches:
        try:
            blobs = git.blob_ids(repo, git.head(repo, branch))
        except Exception as e:  # noqa: BLE001 - a damaged tree is reported, fsck says more
            out.append(Finding("state", "fail", f"{branch}: its tree cannot be read ({type(e).__name__}: {e})",
                               _damage_hint(home)))
            continue
        for section in SECTIONS:
            name = filename(section)
            if name not in blobs:
                missing.setdefault(branch, []).append(section)
                continue
            try:
                loader.parse_blob(repo, section, blobs[name])
            except CogitError as e:
                good = last_valid(repo, branch, section)
                out.append(Finding("state", "fail", f"{branch}: {e.message}", _restore_hint(home, branch, name, good),
                                   extra={"branch": branch, "file": name, "last_valid": good}))
            except Exception as e:  # noqa: BLE001 - an unreadable blob
                out.append(Finding("state", "fail", f"{branch}: {name} cannot be read ({type(e).__name__}: {e})",
                                   _damage_hint(home), extra={"branch": branch, "file": name}))
    for branch, sections in missing.items():
        names = ", ".join(filename(s) for s in sections)
        if fix:
            try:
                restore_defaults(home, branch, sections)
                out.append(Finding("state", "fixed", f"{branch}: restored {names} from the defaults (one commit)"))
            except CogitError as e:
                out.append(Finding("state", "fail", f"{branch}: could not restore {names}: {e.message}", e.hint or ""))
        else:
            out.append(Finding("state", "warn", f"{branch}: {names} missing from the branch (cogit reads the defaults)",
                               "`cogit doctor --fix` commits the default file(s).",
                               extra={"branch": branch, "files": [filename(s) for s in sections]}))
    if not out:
        out.append(Finding("state", "ok", f"every state file is present and valid on {len(branches)} branch(es)"))
    return out


def last_valid(repo, branch: str, section: str, limit: int = 500) -> str | None:
    """The newest commit on `branch`'s first-parent line whose copy of `section` validates."""
    from cogit.store.state import loader
    from cogit.store.git import repo as git
    from cogit.store.state.documents import filename

    sha = git.head(repo, branch)
    for _ in range(limit):
        if not sha:
            return None
        try:
            blob = git.blob_ids(repo, sha).get(filename(section))
            if blob is None:
                return sha
            loader.parse_blob(repo, section, blob)
            return sha
        except Exception:  # noqa: BLE001 - invalid or unreadable: look further back
            parents = repo[sha.encode()].parents
            sha = parents[0].decode() if parents else None
    return None


def _restore_hint(home, branch: str, name: str, good: str | None) -> str:
    """cogit itself refuses to build on an invalid commit (every write validates what it reads),
    so the way back is git: commit the file's last valid version on top, keeping history."""
    from shlex import quote

    mem = quote(str(home.memory))
    name = quote(name)
    if not good:
        return (f"Every write to {branch} is refused until {name} is fixed: fix it in a git checkout of {branch} "
                f"and commit it with git (`git -C {mem} log {branch} -- {name}` shows its history).")
    if branch == "main":
        fix = f"cd {mem} && git checkout {good[:12]} -- {name} && git commit -m 'Restore {name}' -- {name}"
    else:
        tmp = quote(f"{home.runtime}/restore")
        fix = (f"git -C {mem} worktree add -q {tmp} {branch} && git -C {tmp} checkout {good[:12]} -- {name} && "
               f"git -C {tmp} commit -qm 'Restore {name}' && git -C {mem} worktree remove {tmp}")
    return (f"Every write to {branch} is refused until {name} is valid. Its last valid version is in {good[:12]}; "
            f"commit it on top (history keeps the rest): {fix}")


def restore_defaults(home, branch: str, sections: list[str]):
    """Commit the template of each missing state file, through the one write path.
    Hand edits waiting in the working tree are left alone (absorb=False)."""
    from cogit.store.state import schema
    from cogit.store.git.provenance import Provenance
    from cogit.store.state.documents import filename, template_text
    from cogit.store.write.transact import Change, transact

    def apply(state):
        for section in sections:
            text = template_text(section).encode("utf-8")
            state[section] = schema.parse(section, text, filename(section))
            state.raw[section] = text  # a file that is missing differs from its defaults' text
        return Change(f"Restore {', '.join(filename(s) for s in sections)} from the defaults",
                      body="The file(s) were missing from the branch; `cogit doctor --fix` put the defaults back.")

    return transact(home, Provenance(event="doctor.restore", source="cli"), apply, branch=branch, absorb=False)


# --------------------------------------------------------------------------- hand edits


def check_hand_edits(home, repo) -> list[Finding]:
    from cogit.store.state import schema
    from cogit.store.state.documents import section_of_file
    from cogit.store.write.transact import dirty_files

    out = []
    try:
        dirty = dirty_files(home, repo)
    except CogitError as e:
        return [Finding("edits", "fail", e.message, e.hint or "")]
    for name, data in sorted(dirty.items()):
        if data is None:
            out.append(Finding("edits", "warn", f"{name} was deleted in the working tree: the next write commits that "
                                                "section as reset to its defaults",
                               f"To keep it: cd {home.memory} && git checkout -- {name}"))
            continue
        try:
            schema.parse(section_of_file(name), data, name)
            out.append(Finding("edits", "warn", f"a hand edit of {name} waits to be committed",
                               "Run `cogit commit` (any write commits it first anyway)."))
        except CogitError as e:
            out.append(Finding("edits", "fail", f"an invalid hand edit waits: {e.message}",
                               f"Fix {home.memory / name} and run `cogit commit`; until then the hooks use the last "
                               f"committed version, and a write of that section replaces it (a copy goes to {home.rejected})."))
    rejected = sorted(os.listdir(home.rejected)) if home.rejected.is_dir() else []
    if rejected:
        out.append(Finding("edits", "warn", f"{len(rejected)} invalid hand edit(s) were set aside: "
                                            f"{', '.join(rejected[:5])}",
                           f"Copy what you need from {home.rejected} into memory (`cogit edit`), then delete them.",
                           extra={"rejected": rejected}))
    if not out:
        out.append(Finding("edits", "ok", "no hand edits waiting or set aside"))
    return out


# --------------------------------------------------------------------------- staleness


def check_staleness(home, repo, config) -> list[Finding]:
    from cogit.store.state import loader
    from cogit.store.git import repo as git
    from cogit.store.scopes import is_project

    now = time.time()
    branches = [b for b in git.branches(repo) if b == git.MAIN or is_project(b)]
    last_update, newest_reflection = 0, None
    for branch in branches:
        sha = git.head(repo, branch)
        if not sha:
            continue
        last_update = max(last_update, repo[sha.encode()].commit_time)
        try:
            blob = git.blob_ids(repo, sha).get("reflections.yaml")
            items = (loader.parse_blob(repo, "reflections", blob).get("items") or []) if blob else []
        except Exception:  # noqa: BLE001 - an invalid file is the state check's finding
            items = []
        for item in items:
            when = _epoch(item.get("created_at"))
            if when and (newest_reflection is None or when > newest_reflection):
                newest_reflection = when
    out = []
    stale = doctor_setting(config, "stale_days")
    age = (now - last_update) / 86400
    if age > stale:
        out.append(Finding("staleness", "warn", f"memory last changed {age:.0f} days ago (over doctor.stale_days = {stale})",
                           "If agents ran meanwhile, their hooks are not reaching cogit: see the hooks check.",
                           extra={"last_update_days": round(age, 2)}))
    else:
        out.append(Finding("staleness", "ok", f"memory last changed {_ago(age)}", extra={"last_update_days": round(age, 2)}))
    limit = doctor_setting(config, "reflection_stale_days")
    if newest_reflection is None:
        born = _born(home)
        if born is not None and (now - born) / 86400 > limit:
            out.append(Finding("staleness", "warn", f"no reflection in the {(now - born) / 86400:.0f} days since memory "
                                                    f"was made (over doctor.reflection_stale_days = {limit})",
                               "Run `cogit reflect`; see reflect-log for why automatic ones fail."))
        else:
            out.append(Finding("staleness", "ok", "no reflection yet (memory is young)"))
    else:
        r_age = (now - newest_reflection) / 86400
        if r_age > limit:
            out.append(Finding("staleness", "warn", f"the last reflection is {r_age:.0f} days old "
                                                    f"(over doctor.reflection_stale_days = {limit})",
                               "Run `cogit reflect`; see reflect-log for why automatic ones fail.",
                               extra={"last_reflection_days": round(r_age, 2)}))
        else:
            out.append(Finding("staleness", "ok", f"the last reflection is from {_ago(r_age)}",
                               extra={"last_reflection_days": round(r_age, 2)}))
    return out


def _ago(days: float) -> str:
    return "today" if days < 1 else f"{days:.0f} day(s) ago"


def _epoch(text) -> float | None:
    try:
        dt = datetime.fromisoformat(str(text))
    except ValueError:
        return None
    return (dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)).timestamp()


def _born(home) -> float | None:
    """When this memory repository was made here (init or clone): git writes
    .git/description then and never again."""
    try:
        return os.stat(home.memory / ".git" / "description").st_mtime
    except OSError:
        return None


# --------------------------------------------------------------------------- size and packing


def check_size(home, config, fix: bool, damaged: bool) -> list[Finding]:
    from cogit.store.git import repo as git
    from cogit.store.git import objects as git_objects

    loose, size = git_objects.object_stats(home.memory)
    max_loose = doctor_setting(config, "max_loose_objects")
    max_mb = doctor_setting(config, "max_repo_mb")
    facts = {"loose_objects": loose, "bytes": size}
    out = []
    if loose > max_loose:
        if fix and not damaged:
            try:
                packed = pack(home)
                loose, size = git_objects.object_stats(home.memory)
                out.append(Finding("repository", "fixed", f"packed {packed} loose objects into one pack "
                                                          f"({size / 1e6:.1f} MB now, {loose} loose)",
                                   extra={"loose_objects": loose, "bytes": size}))
            except CogitError as e:
                out.append(Finding("repository", "warn", f"could not pack: {e.message}", e.hint or "", extra=facts))
        else:
            out.append(Finding("repository", "warn", f"{loose} loose objects (over doctor.max_loose_objects = "
                                                     f"{max_loose}) make reads slower",
                               "Repair the damage first (see fsck)." if damaged else
                               "`cogit doctor --fix` packs them.", extra=facts))
    if size / 1e6 > max_mb:
        out.append(Finding("repository", "warn", f"the repository is {size / 1e6:.0f} MB (over doctor.max_repo_mb = "
                                                 f"{max_mb})", "Pack it (`cogit doctor --fix`, or `git gc` in the "
                                                               "memory folder while no agent runs).", extra=facts))
    if not out:
        out.append(Finding("repository", "ok", f"{size / 1e6:.1f} MB, {loose} loose objects", extra=facts))
    return out


def pack(home) -> int:
    """Pack loose objects, inside the memory lock (so no writer adds one meanwhile)."""
    from cogit.store.git import repo as git
    from cogit.store.git import objects as git_objects
    from cogit.store.write.transact import memory_lock

    with memory_lock(home, timeout=10):
        repo = git.open_repo(home.memory)
        try:
            return git_objects.pack_loose(repo)
        finally:
            repo.close()
