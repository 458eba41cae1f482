"""Validation of pulled commits, before any of them touches local memory.

Every commit new to us must hold exactly cogit's state files as regular blobs under
the size limit (trees are data, never paths: see `repo.tree_problems`), and every
state file of it is parsed and checked against the schemas: one bad file refuses the whole pull, naming the branch, the commit, the
file, the line and the field. Each distinct blob is checked once (the blobs our own
heads hold were checked when we wrote them), and the validated documents land in
the loader's cache, so the merge that follows reads them for free.

Parsing YAML is the cost of a pull: files in cogit's own layout go through the
fast `canonical_reader`, in this process, which reads and proves canonical each list
entry once however many versions of the file hold it (so a pull costs what changed,
not the size of every version), and items seen unchanged are not checked against the
schema again. Only the rest (a person's layout, or invalid) goes to ruamel.yaml, spread
over worker processes, one per CPU, when there are many.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Callable

from cogit.errors import InvalidState
from cogit.store.state import loader, schema, yamlio
from cogit.store.state import canonical_reader
from cogit.store.git import repo as git
from cogit.store.state.documents import STATE_FILES, filename, section_of_file

Progress = Callable[[bytes], None]
PARALLEL_FROM = 40  # below this many blobs, starting workers costs more than it saves
CHUNK = 16


def validate(repo, tips: dict[str, str], known: list[str], progress: Progress | None = None,
             walked: dict[str, int] | None = None) -> int:
    """Check every new state file reachable from `tips` (branch -> commit) and not from
    `known`. Raises InvalidState naming the first bad one; returns how many were checked.
    `walked` gets, per branch, how many commits new to this machine it brought (the one
    walk of the pulled history: integrate reports these instead of walking again)."""
    todo = check_structure(repo, tips, known, walked, progress)
    # Only the tips' documents are worth caching: the merge and the digest read those; a clone
    # that cached every version wrote 89 MB of runtime/cache/parsed at 10,000 commits.
    keep = {b for tip in tips.values() for b in git.blob_ids(repo, tip).values()}
    return _check_files(repo, todo, progress, keep)


def check_structure(repo, tips: dict[str, str], known: list[str], walked: dict[str, int] | None = None,
                    progress: Progress | None = None) -> dict[str, tuple[str, str, str]]:
    """Every commit reachable from `tips` and not from `known` holds only state files as
    regular blobs under the size limit, each measured from its header before any is read
    (InvalidState naming the first that does not). Returns the state files to parse:
    blob -> (branch, commit, file name). Also run on a local remote before anything is
    copied from it (transport.py), since copying reads every object whole."""
    todo: dict[str, tuple[str, str, str]] = {}  # blob -> (branch, commit, file name)
    seen: set[str] = set()
    for sha in known:
        seen.update(git.blob_ids(repo, sha).values())
    found = _structure_by_git(repo, tips, known, progress)
    if found is not None:
        for branch, (commits, files) in found.items():
            if walked is not None:
                walked[branch] = len(commits)
            for commit in commits:
                for name, blob in files[commit].items():
                    if section_of_file(name) and blob not in seen and blob not in todo:
                        todo[blob] = (branch, commit, name)
        return todo
    good_trees: set = set()
    tick = _ticker(progress)
    for branch, tip in tips.items():
        if tip in known:
            continue
        try:
            commits = git.new_commits(repo, tip, known, measured=True)
        except InvalidState as e:
            raise InvalidState(f"refused the pull: {branch}: {e.message}", hint=e.hint) from None
        if walked is not None:
            walked[branch] = len(commits)
        for n, commit in enumerate(commits, 1):
            tick(f"Checking pulled commits ({branch})", n, len(commits))
            problems = git.commit_problems(repo, commit) + git.tree_problems(repo, commit, STATE_FILES, yamlio.MAX_BYTES, good_trees)
            if problems:
                raise InvalidState(
                    f"refused the pull: {branch} commit {commit[:10]}: {problems[0]}"
                    + (f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""),
                    hint="Local memory is unchanged and nothing was written. A memory commit holds only "
                         "cogit's state files; this remote holds something else (a crafted or foreign "
                         "repository?). Check the URL with `cogit remote list`.",
                )
            for name, blob in git.blob_ids(repo, commit).items():
                if section_of_file(name) and blob not in seen and blob not in todo:
                    todo[blob] = (branch, commit, name)
    return todo


def _structure_by_git(repo, tips: dict[str, str], known: list[str], progress: Progress | None):
    """branch -> (new commits, commit -> files) when `git` proves every new commit memory
    (store/git/shape.py); None when it cannot (no git, or a doubt): the dulwich walk above
    then checks the same history and names the problem."""
    from cogit.store.git import plumbing, shape

    trees: dict[str, dict[str, str]] = {}
    out = {}
    try:
        for branch, tip in tips.items():
            if tip in known:
                continue
            out[branch] = shape.proven_history(git.git_dir(repo), tip, known, STATE_FILES, yamlio.MAX_BYTES, trees)
            if progress and len(out[branch][0]) >= 200:
                progress(f"Checking pulled commits ({branch}): 100% ({len(out[branch][0])}/{len(out[branch][0])}), "
                         "done.\n".encode())
    except plumbing.Unavailable:
        return None
    return out


def _check_files(repo, todo: dict[str, tuple[str, str, str]], progress: Progress | None,
                 keep: set[str] | frozenset = frozenset()) -> int:
    jobs = [(blob, section_of_file(name)) for blob, (_, _, name) in todo.items()]
    # Files in cogit's own layout are read here, each new list entry once (canonical_reader);
    # only the rest (a person's layout, or invalid) go to ruamel.yaml, in workers when many.
    slow = []
    tick = _ticker(progress)
    datas = _blobs(repo, [blob for blob, _ in jobs])
    for n, job in enumerate(jobs, 1):
        tick("Reading pulled memory files", n, len(jobs))
        if not check_fast(repo, *job, data=next(datas), keep=job[0] in keep):
            slow.append(job)
    datas.close()  # git stops here, before any worker is forked
    done = len(jobs) - len(slow)
    chunks = [slow[i:i + CHUNK] for i in range(0, len(slow), CHUNK)]
    for bad, count in _run(str(repo.path), chunks):
        if bad is not None:
            blob, message = bad
            branch, commit, _ = todo[blob]
            raise InvalidState(
                f"refused the pull: {branch} commit {commit[:10]}: {message}",
                hint="Local memory is unchanged. Fix or revert that change on the machine "
                     "that made it (any valid commit on top will do), push, and pull again.",
            )
        done += count
        if progress and len(jobs) >= 50:
            end = ", done.\n" if done == len(jobs) else "\r"
            progress(f"Validating pulled memory: {100 * done // len(jobs)}% ({done}/{len(jobs)}){end}".encode())
    return len(jobs)


def _ticker(progress: Progress | None, every: float = 0.25, at_least: int = 200):
    """A progress line for a long loop, as git writes its own (`\r`, then `, done.`): only
    for loops of `at_least` steps, at most one update per `every` seconds, so a pull of
    3,000 commits is not minutes of silence and a small one prints nothing."""
    import time

    state = {"t": 0.0}

    def tick(what: str, n: int, total: int) -> None:
        if progress is None or total < at_least:
            return
        now = time.monotonic()
        if n == total:
            progress(f"{what}: 100% ({n}/{total}), done.\n".encode())
        elif now - state["t"] >= every:
            state["t"] = now
            progress(f"{what}: {100 * n // total}% ({n}/{total})\r".encode())

    return tick


def _run(repo_path: str, chunks: list[list[tuple[str, str]]]):
    """Yield (first problem or None, blobs checked) per chunk, in parallel when it pays."""
    workers = min(len(chunks), os.cpu_count() or 1, 8)
    total = sum(len(c) for c in chunks)
    # fork copies the parent as it is; with other threads running that is not safe.
    if workers < 2 or total < PARALLEL_FROM or threading.active_count() > 1 or not hasattr(os, "fork"):
        for chunk in chunks:
            yield check_chunk(repo_path, chunk), len(chunk)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        futures = {pool.submit(check_chunk, repo_path, chunk): len(chunk) for chunk in chunks}
        try:
            for future in as_completed(futures):
                yield future.result(), futures[future]
        finally:
            for future in futures:
                future.cancel()


def _blobs(repo, blobs: list[str]):
    """The content of each of `blobs`, in order: streamed by `git cat-file` where git is on
    PATH (check_structure measured every one already), else (or from where git failed) dulwich."""
    from cogit.store.git import plumbing

    done = 0
    try:
        for _, kind, data in plumbing.objects(git.git_dir(repo), blobs, yamlio.MAX_BYTES):
            if kind != "blob":
                break
            done += 1
            yield data
    except (plumbing.Unavailable, plumbing.TooBig):
        pass
    for blob in blobs[done:]:
        yield git.blob(repo, blob)


def check_fast(repo, blob: str, section: str, data: bytes | None = None, keep: bool = True) -> bool:
    """Is the blob a valid file in cogit's own layout? False: ruamel.yaml has to decide.
    `keep`: seed the loader's caches with it (only a tip's file is read again: the merge, the digest)."""
    data = git.blob(repo, blob) if data is None else data
    doc = canonical_reader.read(data) if len(data) <= yamlio.MAX_BYTES else None
    if doc is not None and _valid(section, doc):
        if keep:
            loader.remember(repo, section, data, doc, blob)
        return True
    return False


def check_chunk(repo_path: str, chunk: list[tuple[str, str]]) -> tuple[str, str] | None:
    """(blob, message) of the first invalid blob of a chunk, or None (runs in a worker)."""
    repo = git.open_repo(Path(repo_path))
    try:
        for blob, section in chunk:
            if check_fast(repo, blob, section):
                continue
            try:  # not in cogit's own layout, or invalid: ruamel.yaml decides, and names the line
                loader.parse_blob(repo, section, blob)
            except InvalidState as e:
                return blob, e.message
        return None
    finally:
        repo.close()


_CHECKED_ITEMS: dict[str, dict] = {}  # section -> id -> item already validated in this process
_ITEMS_LIMIT = 2000


def _valid(section: str, doc: dict) -> bool:
    """Schema check of a document; items seen unchanged in an earlier blob are not checked again
    (successive commits share all but a few items: this keeps a pull linear in what changed)."""
    known = _CHECKED_ITEMS.setdefault(section, {})
    items = doc.get("items") if isinstance(doc.get("items"), list) else []  # else the schema says why
    items = [i for i in items if isinstance(i, dict) and isinstance(i.get("id"), str)]
    before = [known[i["id"]] for i in items if i["id"] in known]  # only what this document could share
    try:
        schema.check_changed(section, doc, {"items": before}, filename(section))
    except InvalidState:
        return False
    if len(known) > _ITEMS_LIMIT:
        known.clear()
    for item in doc.get("items") or []:
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            known[item["id"]] = item
    return True
