"""Commands that create, read and change memory: init, status, show, add, focus, forget, edit, commit."""

from __future__ import annotations

import os

import click

from cogit import quickcli
from cogit.cli import cli, emit_json
from cogit.cli.project import project_option, scope_of
from cogit.errors import CogitError, InvalidState
from cogit.domain.sections import CATEGORIES, SECTIONS, section_name

# The store (dulwich), provenance (socket, getpass) and the editor's modules are imported
# inside the commands: `show` and `status` answered from a snapshot (store/cache/snapshot.py)
# need none of them.


def _prov(event: str, scope=None):
    return quickcli.provenance(event, scope)


def _report(result, nothing: str = "Nothing changed; no commit made.", scope=None) -> None:
    quickcli.report(result, nothing, scope, click.echo)


@cli.command()
@click.pass_obj
def init(obj) -> None:
    """Create the memory home ($COGIT_HOME, default ~/.cogit) with default state.

    A second `init` says so and changes nothing.
    """
    from cogit.store import memory

    created, sha = memory.init(obj.home)
    if created:
        click.echo(f"Created memory in {obj.home.memory} [{sha[:10]}]")
    else:
        click.echo(f"Memory already exists in {obj.home.memory} [{sha[:10]}]; nothing changed.")


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def status(obj, as_json: bool) -> None:
    """Where memory is, its head, item counts, hand edits waiting, the digest size."""
    quickcli.status(obj.home, as_json, click.echo)


@cli.command()
@click.argument("section", required=False)
@click.option("--at", "at", metavar="REV", help="Show memory as it was at a revision.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object keyed by section.")
@project_option
@click.pass_obj
def show(obj, section: str | None, at: str | None, as_json: bool, project: str | None) -> None:
    """Show memory (all sections, or one), now or --at a revision.

    With --project, the project's own items (`cogit project show` adds the digest).
    """
    if project is None and at is None:
        quickcli.show_now(obj.home, section, as_json, click.echo)
        return
    from cogit.state_render import render_state, state_json
    from cogit.store import memory

    sections = [section_name(section)] if section else list(SECTIONS)
    scope = scope_of(obj, project, must_exist=True)
    sha, state = memory.read(obj.home, at, branch=scope.branch)
    if as_json:
        emit_json(state_json(state, sections))
    else:
        click.echo(render_state(state, sections, sha))


@cli.command()
@click.argument("kind", type=click.Choice(["learning", "heuristic", "avoidance", "rule"]))
@click.argument("text")
@click.option("--category", "-c", type=click.Choice(CATEGORIES), help="For learnings (default insight).")
@click.option("--context", help="For learnings: the situation that produced it.")
@click.option("--detector", help="For rules: the detector whose pattern the rule is about (see `cogit rules`).")
@click.option("--force", is_flag=True, help="Add it even when a near-identical item is there (default: that one gains evidence).")
@project_option
@click.pass_obj
def add(obj, kind: str, text: str, category: str | None, context: str | None, project: str | None, detector: str | None = None,
        force: bool = False) -> None:
    """Add a learning, heuristic, avoidance or rule (one commit).

    When the scope already holds the same or a nearly identical text (docs/scopes.md
    "No duplicates"), that item gains evidence instead; --force adds a second item.

    \b
    Example:
      cogit add learning "Run the tests with python -m pytest -q" --category pattern
      cogit add rule "Read the error before retrying" --detector error_loop
    """
    quickcli.check_add(kind, category, detector)  # before the scope: a usage error first
    quickcli.add(obj.home, scope_of(obj, project), kind, text, category, context, detector, force, click.echo)


@cli.group()
def focus() -> None:
    """The current focus and its priorities."""


@focus.command("set")
@click.argument("text")
@click.option("--priority", "-p", "priorities", multiple=True, help="A priority, in order (repeatable).")
@project_option
@click.pass_obj
def focus_set(obj, text: str, priorities: tuple[str, ...], project: str | None) -> None:
    """Set the current focus (and, with -p, its priorities)."""
    from cogit.store import memory

    scope = scope_of(obj, project)
    result = memory.write(obj.home, _prov("focus.set", scope), memory.set_focus(text, list(priorities) or None), branch=scope.branch)
    _report(result, scope=scope)


@cli.command()
@click.argument("item_id")
@project_option
@click.pass_obj
def forget(obj, item_id: str, project: str | None) -> None:
    """Remove an item by id (it stays in history; `cogit revert` brings it back)."""
    from cogit.store import memory
    from cogit.errors import ItemNotFound
    from cogit.store import scoped

    scope = scope_of(obj, project, must_exist=True)
    # An item that came from a reflection leaves a tombstone, so no later reflection proposes it again.
    try:
        result = memory.write(obj.home, _prov("item.forget", scope), memory.forget(item_id, tombstone=True), branch=scope.branch)
    except ItemNotFound as e:
        raise (scoped.elsewhere_item(obj.home, item_id, scope, "forget") or e) from None
    _report(result, scope=scope)


@cli.command()
@click.argument("section", required=False, default="learnings")
@project_option
@click.pass_obj
def edit(obj, section: str, project: str | None) -> None:
    """Open a section in $VISUAL/$EDITOR; the result is validated and committed as a hand edit.

    An invalid edit is refused with file, line and field, and kept in a temp file.
    """
    import subprocess
    from pathlib import Path

    from cogit.store import memory
    from cogit.store.git.provenance import Provenance
    from cogit.store.scopes import section_text

    sec = section_name(section)
    scope = scope_of(obj, project)
    memory.read(obj.home)  # refuses, with the next step, when there is no memory yet
    if project is None:
        from cogit.store import scoped

        # In a project's folder, as `show` there shows the project first: its section.
        here = scoped.folder_project(obj.home, os.getcwd())
        if here is not None:
            scope = here
            click.echo(f"Editing {sec} of project {here.name} (`--project global` edits global memory).", err=True)
    current = memory.worktree_text(obj.home, sec) if scope.is_global else section_text(obj.home, scope, sec)
    editor = memory.editor_command()  # before the temp file: no editor, nothing left behind
    # In runtime/edit (0700), 0600, named by this pid and the text it starts from: a killed
    # edit's file is cleaned by the next writer (store/write/recover.py), never left in /tmp.
    import hashlib

    from cogit.store.write.recover import edit_dir

    name = f"{sec}.{os.getpid()}.{hashlib.sha256(current).hexdigest()[:16]}.yaml"
    tmp = str(edit_dir(obj.home) / name)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(current)

    def keep() -> str:  # a text kept for the person goes among the refused edits, 0600
        obj.home.rejected.mkdir(mode=0o700, parents=True, exist_ok=True)
        kept = str(obj.home.rejected / f"edit-{name}")
        os.replace(tmp, kept)
        return kept

    try:
        code = subprocess.call(editor + [tmp], stdin=None)
    except OSError as e:
        raise CogitError(f"cannot start the editor {editor[0]!r}: {e.strerror}; nothing changed",
                         hint=f"Your text is kept in {keep()}. Set $EDITOR to an editor you have, e.g. `export EDITOR=nano`.") from None
    if code != 0:
        raise CogitError(f"the editor ({editor[0]}) exited with {code}; nothing changed", hint=f"Your text is kept in {keep()}.")
    data = Path(tmp).read_bytes()
    prov = Provenance(event="human.edit", source="human", project=scope.name)
    try:
        result = memory.write(obj.home, prov, memory.replace_section(sec, data), branch=scope.branch)
    except InvalidState as e:
        kept = keep()
        raise InvalidState(e.message.replace(f"{sec}.yaml", kept, 1), hint=f"Your edit is kept in {kept}; fix it and run `cogit edit {sec}` again.") from None
    os.unlink(tmp)
    _report(result, scope=scope)


@cli.command("commit")
@click.option("-m", "--message", "message_text", help="The commit's summary line.")
@click.pass_obj
def commit_cmd(obj, message_text: str | None) -> None:
    """Validate and commit hand edits made in the memory repository's files."""
    from cogit.store import memory

    _report(memory.commit_hand_edits(obj.home, message_text), nothing="No hand edits to commit.")



@cli.command()
@click.option("--session", "session_id", help="Only this session.")
@click.option("--quiet", is_flag=True, help="Print nothing (used by the hooks).")
@click.option("--sync", "then_sync", is_flag=True, help="Then push to the remote (auto-sync after a session; never fails).")
@click.option("--pack", "pack_now", is_flag=True, hidden=True, help="Pack objects and trim now, whatever the counts.")
@click.pass_obj
def finalize(obj, session_id: str | None, quiet: bool, then_sync: bool, pack_now: bool) -> None:
    """Commit what agent sessions queued and fold finished sessions' records into memory.

    Runs by itself after each session and before any cogit command; a session that
    never ended cleanly is folded once it has been silent for hooks.session_stale_minutes.
    """
    from cogit.learn.drain import finalize as run_finalize
    from cogit.learn.drain import stale_minutes

    in_hook = os.environ.get("COGIT_IN_HOOK") == "1"
    if in_hook:
        _make_memory(obj.home)
    ended = in_hook and session_id is not None and _ended(obj.home, session_id)
    results = run_finalize(obj.home, session_id, stale_minutes(obj.home))
    if ended:  # the detached session-end work: reflect on its scope when due (cogit/learn/trigger.py)
        from cogit.learn.trigger import after_session

        after_session(obj.home, *ended)
    if not quiet:
        for r in results:
            click.echo(f"[{r.sha[:10]}] {r.summary}")
        if not results:
            click.echo("Nothing to finalize.")
    if then_sync:
        from cogit.sync.remote import background

        background(obj.home, "push")
    _maintain(obj.home, pack_now)


def _maintain(home, force: bool) -> None:
    """Housekeeping after the session's commits (store/maintain.py): never fails finalize."""
    from cogit.store.maintain import maintain
    from cogit.store.write.transact import log_note

    try:
        maintain(home, force)
    except Exception as e:  # noqa: BLE001 - housekeeping; the next run retries
        log_note(home, f"maintenance failed: {type(e).__name__}: {e}")


def _ended(home, session_id: str):
    """(branch, project) of the session if it ended, else None (read before finalize removes it)."""
    from cogit.learn.drain import ended_scope

    return ended_scope(home, session_id)


def _make_memory(home) -> None:
    """Started by a hook on a machine with no memory yet: create it from the defaults, so a
    lesson the agent was told is noted is stored, not kept waiting for `cogit init`."""
    from cogit.store import memory
    from cogit.store.write.transact import log_note, memory_lock

    if (home.memory / ".git").exists():
        return
    with memory_lock(home):  # two hooks' finalize may arrive at once
        if not (home.memory / ".git").exists():
            memory.init(home)
            log_note(home, f"created memory in {home.memory} at the first agent session (no `cogit init` had run)")
