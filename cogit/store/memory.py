"""Core operations on memory: create it, read it, and the changes people and agents make.

Every change is an `Apply` function handed to `write.transact`, the one write path.
"""

from __future__ import annotations

import os

from cogit.errors import CogitError, UsageError
from cogit.paths import Home
from cogit.store.git import repo as git
from cogit.store.git import worktree
from cogit.store.git.repo import open_existing
from cogit.store.state import yamlio
from cogit.store.git.provenance import Provenance, message
from cogit.store.state.schema import SECTIONS
from cogit.store.state.documents import CATEGORIES, STATE_FILES, filename, find, new_id, template_text  # noqa: F401
from cogit.domain.times import now_iso  # noqa: F401
from cogit.store.write.transact import Change, State, load_state, transact


def init(home: Home) -> tuple[bool, str]:
    """Create the memory home with defaults from templates/. Returns (created, head sha)."""
    if (home.memory / ".git").exists():
        repo = git.open_repo(home.memory)
        try:
            return False, git.head(repo) or ""
        finally:
            repo.close()
    home.runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
    home.runtime.chmod(0o700)  # tool output, prompts and paths live below: private to the user
    repo = git.init(home.memory)
    try:
        files = {filename(s): template_text(s).encode("utf-8") for s in SECTIONS}
        prov = Provenance(event="init", source="cli")
        # One committer per machine: two machines' first commits must differ even when
        # made in the same second, or their histories would look related (see machine_committer).
        sha = git.commit(repo, git.MAIN, files, message("Create memory", "", prov), prov.author_line(),
                         git.machine_committer(repo), None)
        worktree.sync_worktree(repo, home.memory, files, STATE_FILES)
        from cogit.store.cache import digest

        digest.refresh(home, repo, git.MAIN)
        return True, sha
    finally:
        repo.close()


def read(home: Home, at: str | None = None, branch: str = git.MAIN) -> tuple[str | None, dict]:
    """(commit sha, plain state) of a branch, or of the revision `at`."""
    repo = open_existing(home)
    try:
        sha = git.resolve(repo, at, branch) if at is not None else git.head(repo, branch)
        return sha, yamlio.plain(dict(load_state(repo, sha)))
    finally:
        repo.close()


MAX_TEXT = 2000  # schemas/*.schema.json: items[].text maxLength


def add_item(section: str, text: str, *, category: str | None = None, context: str | None = None, source: str = "cli"):
    text = " ".join(text.split()) if "\n" not in text.strip() else text.strip()
    if not text:
        raise UsageError("the text is empty", hint="Give the text to remember, e.g. cogit add learning \"...\"")
    if len(text) > MAX_TEXT:
        head = " ".join(text[:60].split())
        raise UsageError(f"the text is {len(text):,} characters, over the limit of {MAX_TEXT:,} (it starts \"{head}…\")",
                         hint=f"Shorten it to at most {MAX_TEXT:,} characters, or split it into several items, and add it again.")
    if category and category not in CATEGORIES:
        raise UsageError(f"unknown category {category!r}", hint="Categories: " + ", ".join(CATEGORIES) + ".")

    def apply(state: State) -> Change | None:
        from cogit.store.dedupe import stored_text

        items = state[section]["items"]
        stored = stored_text(text, state)
        for item in items:
            if item.get("text") in (text, stored):
                return None  # already known (as memory holds it, secrets redacted): a no-op makes no commit
        now = now_iso()
        item = {"id": new_id(section, state), "text": text}
        if section == "learnings":
            item["category"] = category or "insight"
            if context:
                item["context"] = context
        if section == "heuristics":
            item["use_count"] = 0
            item["last_used"] = None
        item.update(source=source, created_at=now, updated_at=now)
        items.append(item)
        kind = section[:-1]
        return Change(f"Add {kind} {item['id']}: {text}", trailers={"Cogit-Item": item["id"]})

    return apply


def forget(item_id: str, tombstone: bool = False):
    def apply(state: State) -> Change:
        section, index, item = find(state, item_id)
        del state[section]["items"][index]
        if tombstone and item.get("source") == "reflection":
            from cogit.domain.tombstones import bury

            bury(state, section, item.get("text", ""), "forgotten", item_id)
        body = ""
        if tombstone and section == "rules":  # the detector must not recreate it (issue 22)
            from cogit.domain.tombstones import bury_rule

            if bury_rule(state, item, "forget"):
                body = (f"Tombstone on detector {item.get('detector')} and its signature: the same pattern makes no new rule "
                        f"(`cogit rules tombstones`; `cogit rules lift {item_id}` to allow it again).")
        return Change(f"Forget {section[:-1]} {item_id}: {item.get('text', '')}", body=body, trailers={"Cogit-Item": item_id})

    return apply


def set_focus(text: str, priorities: list[str] | None):
    def apply(state: State) -> Change | None:
        focus = state["focus"]
        new_priorities = list(priorities) if priorities is not None else list(focus.get("priorities") or [])
        if focus.get("current") == text and list(focus.get("priorities") or []) == new_priorities:
            return None
        focus["current"] = text
        focus["priorities"] = new_priorities
        focus["updated_at"] = now_iso()
        return Change(f"Set focus: {text}")

    return apply


def use_heuristic(item_id: str, evidence: bool = False):
    """A heuristic was applied (or praised): its counters go up."""

    def apply(state: State) -> Change:
        section, _, item = find(state, item_id)
        if section != "heuristics":
            raise UsageError(f"{item_id} is a {section[:-1]}, not a heuristic")
        now = now_iso()
        item["use_count"] = int(item.get("use_count", 0)) + 1
        if evidence:
            item["evidence"] = int(item.get("evidence", 0)) + 1
        item["last_used"] = now
        item["updated_at"] = now
        return Change(f"Use heuristic {item_id}", trailers={"Cogit-Item": item_id})

    return apply


def commit_hand_edits(home: Home, message_text: str | None = None):
    """Validate and commit hand edits made in the memory's working tree.

    One invalid file refuses the whole commit (InvalidState names file, line, field)."""
    from cogit.store.write.transact import commit_locked, dirty_files, human_edit, memory_lock

    repo = open_existing(home)
    try:
        with memory_lock(home):
            dirty = dirty_files(home, repo)
            if not dirty:
                return None
            apply = human_edit(dirty)

            def apply_with_message(state):
                change = apply(state)
                if message_text:
                    change.summary = message_text
                return change

            branch = git.checked_out_branch(repo) or git.MAIN
            prov = Provenance(event="human.edit", source="human")
            return commit_locked(home, repo, branch, prov, apply_with_message)
    finally:
        repo.close()


def replace_section(section: str, data: bytes):
    """A person's edit of one whole section (from `cogit edit`)."""
    from cogit.store.state import schema

    def apply(state: State) -> Change:
        state[section] = schema.parse(section, data, filename(section))
        state.raw[section] = data
        return Change(f"Hand edit of {filename(section)}")

    return apply


FALLBACK_EDITORS = ("editor", "nano", "vi")


def editor_command() -> list[str]:
    """$VISUAL, else $EDITOR, else the first of `editor`, `nano`, `vi` on PATH (as git does)."""
    import shlex
    import shutil

    for var in ("VISUAL", "EDITOR"):
        value = os.environ.get(var, "")
        if value.strip():
            try:
                return shlex.split(value)
            except ValueError as e:
                raise CogitError(f"${var} ({value[:80]!r}) is not a command cogit can run: {e}",
                                 hint=f"Set it to an editor command, e.g. `export {var}=nano`.") from None
    for name in FALLBACK_EDITORS:
        found = shutil.which(name)
        if found:
            return [found]
    raise CogitError(
        "no editor: neither $VISUAL nor $EDITOR is set, and none of " + ", ".join(FALLBACK_EDITORS) + " is on PATH",
        hint="Set one (e.g. `export EDITOR=nano`), or edit the file in the memory folder "
             "($COGIT_HOME/memory/) directly and run `cogit commit`.",
    )


def worktree_text(home: Home, section: str) -> bytes:
    """The text `cogit edit` starts from: the working tree's file (a hand edit waiting in it
    included), else the committed one. A symlink or folder there is refused (InvalidState)."""
    data = worktree.read_regular(home.memory, filename(section))
    return data if data is not None else committed_text(home, git.MAIN, section)


def committed_text(home: Home, branch: str, section: str) -> bytes:
    """The exact committed text of one section on a branch (comments included), else the template."""
    repo = open_existing(home)
    try:
        data = git.read_files(repo, git.head(repo, branch)).get(filename(section))
    finally:
        repo.close()
    return data if data is not None else template_text(section).encode("utf-8")


def write(home: Home, prov: Provenance, apply, branch: str = git.MAIN):
    return transact(home, prov, apply, branch=branch)
