"""The one write path. Every change of memory, from any command or hook, comes here.

    lock -> absorb hand edits -> load -> apply -> cap -> redact -> validate
         -> write (objects, then a compare-and-swap of the branch) -> working tree
         -> digest cache

A change that changes nothing makes no commit. Items pruned by caps are named in
the commit message, so history keeps them. Hand edits waiting in the working tree
are committed first (as `human.edit`) when valid, or copied to runtime/rejected/
when not, so a write never silently overwrites what a person typed.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable

from cogit.errors import Conflict, InvalidState, Locked
from cogit.locking import LockTimeout, queued_lock
from cogit.paths import Home
from cogit.redact import clip, redact, redact_tree
from cogit.store.write.notes import log_note
from cogit.store.write.scrub import allowlist, clean_tree, redact_raw
from cogit.store.git import repo as git
from cogit.store.git import worktree
from cogit.store.state import loader, schema, yamlio
from cogit.store.git.provenance import COMMITTER, Provenance, message
from cogit.store.state.documents import (ITEM_SECTIONS, STATE_FILES, SINGULAR, apply_caps, default_doc, filename, section_of_file,
                                         shrink_to_fit, stamp_changes, template_text)
from cogit.domain.times import now_iso
from cogit.store.state.schema import SECTIONS, short_message


class State(dict):
    """section -> document; `raw` holds sections whose exact text a person wrote."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.raw: dict[str, bytes] = {}


@dataclass
class Change:
    summary: str
    body: str = ""
    trailers: dict[str, str] = field(default_factory=dict)


@dataclass
class WriteResult:
    sha: str
    summary: str
    sections: list[str]
    pruned: list[tuple[str, dict]]
    redacted: int


Apply = Callable[[State], "Change | None"]
CAS_RETRIES = 3


def load_state(repo, sha: str | None) -> State:
    """Every section at a commit as plain, validated data (parsed once per blob)."""
    return State(loader.load_plain(repo, sha))


def transact(
    home: Home,
    prov: Provenance,
    apply: Apply,
    *,
    branch: str = git.MAIN,
    timeout: float | None = None,
    extra_parents: list[str] = (),
    absorb: bool = True,
    skip_if=None,
) -> WriteResult | None:
    """Run `apply` on the branch's state under the lock and commit what it changed."""
    with memory_lock(home, timeout):
        repo = git.open_lite(home.memory)  # dulwich's repository layer only for what lite.py does not do
        try:
            if absorb:
                absorb_hand_edits(home, repo)
            if skip_if is not None and skip_if(repo, git.head(repo, branch)):
                return None
            for attempt in range(CAS_RETRIES + 1):
                try:
                    return commit_locked(home, repo, branch, prov, apply, extra_parents)
                except Conflict:
                    # The branch moved under us though we hold the lock: only a git command run
                    # by hand in memory does that. Build the change again on the new head.
                    if attempt == CAS_RETRIES:
                        raise
                    time.sleep(0.05 * (attempt + 1))
        finally:
            repo.close()


def commit_locked(home: Home, repo, branch: str, prov: Provenance, apply: Apply, extra_parents=()) -> WriteResult | None:
    """The body of the write path; the caller holds the lock."""
    expected = git.head(repo, branch)
    old_blobs = git.blob_ids(repo, expected)
    old_files = _LazyFiles(repo, old_blobs)
    state = State(loader.load_plain(repo, expected, old_blobs))
    before = {s: yamlio.plain(d) for s, d in state.items()}
    change = apply(state)
    if change is None:
        return None
    # Settings rule from main: a project's config.yaml is there only for uniformity.
    # The items this change adds are never what its own cap prunes (issue 22: a new item at
    # the cap was dropped in silence and the command said it was "already in memory").
    new_ids = {i.get("id") for sec in ITEM_SECTIONS for i in (state[sec].get("items") or []) if isinstance(i, dict)} - {
        i.get("id") for sec in ITEM_SECTIONS for i in ((before.get(sec) or {}).get("items") or []) if isinstance(i, dict)}
    pruned = apply_caps(state, state.get("config") if branch == git.MAIN else main_config(repo), protect=new_ids)
    # Every change of an item carries its time, whatever made it (a command, a hand
    # edit, a revert); a merge keeps the latest of both sides' times (see merge.py).
    stamp = None if extra_parents else now_iso()
    changed = [s for s in SECTIONS if s in state.raw or yamlio.plain(state[s]) != before[s]]
    redactions = [0]
    allow = allowlist(state.get("config") if branch == git.MAIN else main_config(repo))
    size_pruned: list[tuple[str, dict]] = []
    files: dict[str, bytes | None] = {}
    for section in changed:
        name = filename(section)
        if section in state.raw:
            raw = state.raw[section]
            capped = any(s == section for s, _ in pruned)
            if stamp or capped:
                rt = schema.parse(section, raw, name)
                if capped:
                    # A hand edit over a cap: prune it in this very commit (which names what
                    # went), keeping the person's comments on the items that stay.
                    rt = yamlio.update(rt, yamlio.plain(state[section]))
                stamped = bool(stamp) and stamp_changes(rt, before[section], stamp)
                if capped or stamped:
                    raw = yamlio.dump(rt).encode()
            data, doc, n = redact_raw(section, raw, name, allow)
            redactions[0] += n
            # What is cached and injected from this state (the digest, below) is what is
            # stored: the redacted document, never the hand-edited one.
            state[section] = doc
            if len(data) > yamlio.MAX_BYTES:
                raise _too_big(name, section, len(data))
        else:
            clean_tree(state[section])  # no control character, no lone surrogate: fsck-clean, UTF-8
            redact_tree(state[section], redactions, allow)
            if stamp:
                stamp_changes(state[section], before[section], stamp)
            try:
                schema.check_changed(section, state[section], before[section], name)
            except InvalidState as e:
                # A command's own change (not a hand edit): advise fixing the command's input.
                raise InvalidState(short_message(e.message),
                                   hint="Nothing was written. Shorten or fix the value you gave and run the command again.") from None
            doc = yamlio.plain(state[section])
            data = _serialize(section, old_files.get(name), before[section], doc, old_blobs.get(name))
            # Never write what the read path refuses (it reads at most MAX_BYTES): with raised
            # caps, the items caps would prune first go until the file fits; history keeps them.
            while len(data) > yamlio.MAX_BYTES:
                victims = shrink_to_fit(section, state[section], len(data) - yamlio.MAX_BYTES)
                if not victims:
                    raise _too_big(name, section, len(data))
                size_pruned += victims
                doc = yamlio.plain(state[section])
                data = _serialize(section, old_files.get(name), before[section], doc, old_blobs.get(name))
        if old_files.get(name) != data:
            files[name] = data
            loader.remember(repo, section, data, doc)
    strays = git.stray_entries(repo, expected, STATE_FILES)
    if not files and not extra_parents and not strays:
        return None
    body = "\n\n".join(filter(None, [describe_pruned(pruned), describe_pruned(size_pruned, by_size=True)]))
    pruned += size_pruned
    if change.body:
        body = change.body + ("\n\n" + body if body else "")
    if strays:
        # Only plain `git commit` in the memory repository can put them there; memory holds
        # the state files alone (a pull refuses anything else), so they go, named here.
        body += (f"\n\nRemoved entries that are not memory files: {', '.join(repr(n)[:80] for n in strays[:20])}"
                 f" (still in history at {expected[:12]}).")
    if redactions[0]:
        body += f"\n\nRedacted {redactions[0]} secret(s) before storing."
    prov.extra.update(change.trailers)
    # The message is stored too: summaries quote item text, evidence quotes prompts,
    # the project trailer names a folder or URL. Every part of it is redacted here,
    # so a new trailer or a new caller is covered by construction.
    change.summary = redact(change.summary, allow)[0]
    body = redact(body, allow)[0]
    for attr in ("agent", "session", "project", "trigger", "evidence", "model", "author"):
        if getattr(prov, attr):
            setattr(prov, attr, redact(getattr(prov, attr), allow)[0])
    prov.extra = {redact(k, allow)[0]: redact(str(v), allow)[0] for k, v in prov.extra.items()}
    if pruned:
        prov.extra["Cogit-Pruned"] = " ".join(sorted({i.get("id", "?") for _, i in pruned} | set(prov.extra.get("Cogit-Pruned", "").split())))
    if expected is None and branch != git.MAIN:
        # A new project branch starts as a root commit of the templates (see scopes.py).
        expected = create_root(repo, branch, prov.project, prov)
    checked_out = git.checked_out_branch(repo) == branch
    if checked_out:
        worktree.mark_pending(home.memory, expected)  # see store/write/recover.py
    sha = git.commit(
        repo,
        branch,
        files,
        message(change.summary, body, prov),
        prov.author_line(),
        git.machine_committer(repo),  # one per machine: see machine_committer
        expected,
        extra_parents,
        keep_only=STATE_FILES,
    )
    if checked_out:
        worktree.sync_worktree(repo, home.memory, files, STATE_FILES)
        worktree.clear_pending(home.memory)
    from cogit.store.cache import digest

    digest.refresh(home, repo, branch, {branch: state})
    from cogit.store.cache import snapshot  # what the cold `show` / `status` read (checked against the head)

    snapshot.save(home, repo, branch, sha, parents=[p for p in [expected, *extra_parents] if p])
    return WriteResult(sha, change.summary, sorted(section_of_file(n) for n in files), pruned, redactions[0])


def create_root(repo, branch: str, name: str, cause: Provenance | None = None) -> str:
    """Start a project branch: a root commit of the templates. The caller holds the lock.

    Its provenance is that of the write that needed the branch (`cause`): a branch a hook's
    session created says hook, agent and session, not the command line."""
    files = {filename(s): template_text(s).encode("utf-8") for s in SECTIONS}
    c = cause or Provenance(event="project.create", source="cli")
    prov = Provenance(event="project.create", source=c.source, agent=c.agent, session=c.session,
                      project=name or branch.removeprefix("project/"), trigger=c.trigger, author=c.author)
    summary = f"Create project memory {name or branch}"
    body = f"Created for the first change of this project's memory ({c.event})." if cause else ""
    return git.commit(repo, branch, files, message(summary, body, prov), prov.author_line(), COMMITTER, None)


def main_config(repo):
    """main's config.yaml (the settings of every scope), defaults if it has none."""
    # Through the parse cache (loader.py): a read command never imports ruamel.yaml or jsonschema for it.
    blob = git.blob_ids(repo, git.head(repo, git.MAIN)).get(filename("config"))
    return loader.parse_blob(repo, "config", blob) if blob is not None else default_doc("config")


def lock_wait() -> float:
    """How long a command waits for the memory lock: $COGIT_LOCK_WAIT seconds, else 30."""
    try:
        return max(0.0, float(os.environ.get("COGIT_LOCK_WAIT", "30")))
    except ValueError:
        return 30.0


@contextmanager
def memory_lock(home: Home, timeout: float | None = None):
    """Hold the memory lock for several commits (promote, sync) as transact does for one.

    Every writer of the memory repository holds it; so, once we hold it, whatever a
    killed writer left half-done is repaired first (store/write/recover.py).
    """
    timeout = lock_wait() if timeout is None else timeout
    with busy_lock(home.lock, timeout, "memory is in use by another cogit process"):
        from cogit.store.write.recover import recover

        recover(home)
        yield


@contextmanager
def busy_lock(path, timeout: float, what: str):
    """A lock served in arrival order; waiting past `timeout` is "busy" (exit 1), not a bug."""
    try:
        lock = queued_lock(path, timeout)
        lock.__enter__()
    except LockTimeout:
        raise Locked(
            f"busy: {what} (waited {timeout:g}s)",
            hint="Try again in a moment; if it stays busy, look for a stuck cogit process (`ps aux | grep cogit`).",
        ) from None
    try:
        yield
    finally:
        lock.__exit__(None, None, None)


class _LazyFiles(dict):
    """name -> bytes of a commit's files, read from the object store on first use."""

    def __init__(self, repo, blobs: dict[str, str]):
        super().__init__()
        self._repo, self._blobs = repo, blobs

    def get(self, name, default=None):
        if name not in self._blobs:
            return default
        if not super().__contains__(name):
            self[name] = git.blob(self._repo, self._blobs[name])
        return super().__getitem__(name)

    def __contains__(self, name) -> bool:
        return name in self._blobs

    def __getitem__(self, name):
        value = self.get(name)
        if value is None:
            raise KeyError(name)
        return value


def _serialize(section: str, old_text: bytes | None, old_doc: dict, doc: dict, old_blob: str | None = None) -> bytes:
    """New file text for a section: the canonical writer if the old file is in its
    layout (what cogit wrote), else a round trip through the old document so a
    person's comments and layout survive."""
    text = old_text.decode("utf-8") if old_text is not None else template_text(section)
    header = yamlio.header_of(text)
    if old_text is None or loader.is_canonical(old_blob) or yamlio.canonical(old_doc, header) == text:
        fast = yamlio.canonical(doc, header)
        if fast is not None:
            data = fast.encode("utf-8")
            loader.mark_canonical(data)
            return data
    old = yamlio.load(text)
    return yamlio.dump(yamlio.update(old, doc)).encode("utf-8")


def describe_pruned(pruned: list[tuple[str, dict]], by_size: bool = False) -> str:
    if not pruned:
        return ""
    why = f"to keep each file within {yamlio.MAX_BYTES} bytes, what cogit reads" if by_size else "by caps"
    lines = [f"Pruned {why} (still in history; `cogit revert` or `cogit log --item ID` finds them):"]
    for section, item in pruned:
        # redact, then cut: the item may be pruned in the very commit that adds it, unredacted yet
        lines.append(clip(f"- {SINGULAR.get(section, section)} {item.get('id')} {item.get('text', '')!r}", 300, 0, ""))
    return "\n".join(lines)


def _too_big(name: str, section: str, size: int) -> InvalidState:
    return InvalidState(
        f"this change would make {name} {size} bytes, over the {yamlio.MAX_BYTES}-byte limit cogit reads; nothing changed",
        hint=f"Make {name} smaller first (`cogit edit {section}`, or lower the caps in config.yaml).",
    )


def dirty_files(home: Home, repo) -> dict[str, bytes | None]:
    """State files in the working tree that differ from the checked-out branch's commit."""
    branch = git.checked_out_branch(repo) or git.MAIN
    names = [filename(s) for s in SECTIONS]
    suspects = worktree.changed_by_stat(repo, home.memory, names)  # cheap: no file is read if stats match
    if not suspects:
        return {}
    committed = git.read_files(repo, git.head(repo, branch))
    current = worktree.worktree_files(home.memory, suspects)
    return {n: current[n] for n in suspects if current[n] != committed.get(n) and not (current[n] is None and n not in committed)}


def human_edit(files: dict[str, bytes | None]) -> Apply:
    def apply(state: State) -> Change:
        for name, data in files.items():
            section = section_of_file(name)
            if data is None:  # a deleted file means "back to defaults"
                state[section] = default_doc(section)
            else:
                state[section] = schema.parse(section, data, name)
                state.raw[section] = data
        names = ", ".join(sorted(files))
        return Change(f"Hand edit of {names}")

    return apply


def absorb_hand_edits(home: Home, repo) -> None:
    """Commit valid hand edits first; keep a copy of invalid ones in runtime/rejected/."""
    dirty = dirty_files(home, repo)
    if not dirty:
        return
    valid, invalid = {}, {}
    for name, data in dirty.items():
        try:
            if data is not None:
                schema.parse(section_of_file(name), data, name)
            valid[name] = data
        except InvalidState as e:
            invalid[name] = (data, e)
    if valid:
        branch = git.checked_out_branch(repo) or git.MAIN
        prov = Provenance(event="human.edit", source="human")
        commit_locked(home, repo, branch, prov, human_edit(valid))
    for name, (data, err) in invalid.items():
        home.rejected.mkdir(mode=0o700, parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%dT%H%M%S")
        fd = os.open(home.rejected / f"{name}.{stamp}", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(fd, "wb") as f:
            f.write(data)
        log_note(home, f"kept invalid hand edit of {name} in {home.rejected}/{name}.{stamp}: {err.message}")
