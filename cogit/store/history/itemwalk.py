"""One item's history read through the `git` binary, for `why ID` / `log --item ID` while
the item index lacks more than LAZY_MIN of the branch's commits (a fresh clone, a lost
runtime folder, an index the session ends are still building: history/log.py catch_up).

Building the whole index (history/log.py ItemIndex) diffs every commit in Python: 47 s
at 10,000 commits. One item needs far less. Here:

* `git log --raw --diff-merges=first-parent` lists, for every commit reachable from the
  head, its commit time, parents and the blobs of the files it changed against its first
  parent (what `commit_changes` diffs);
* `git cat-file --batch`, asked as the log streams by (one commit's new file is the next
  one's old, so the last few answers are kept), gives the blobs of the changed item files
  (and tools.yaml, whose keys are tool names); a blob whose bytes cannot hold the id (the id
  is not in it, and it has no backslash escape or NUL that could spell it otherwise) is
  dropped unread; the others are read (`canonical_reader`, else the validated loader, as
  `log._doc` does) and only their entries with that id are kept;
* a commit's changes to the item are `diff_states` of those entries against its first
  parent's, in the order of SECTIONS: the changes `commit_changes` gives with that key,
  since every change keyed by the id compares only entries with that id (items) or the
  fields of that tool (tools.yaml);
* the root commit is diffed whole by `commit_changes` itself, and the hits are ordered as
  `git.walk` orders them (gitlog's `_walk_order`) and read by `cat-file` (gitlog `_cat`).

An id that is a section's own name (a document section's key), that needs quoting in
YAML, or any git failure returns None: the caller builds the index as before. Memory is
bounded: of the history, only rev-list's lines (for the order) and the item's changes are
kept, of a blob only the item's own entries, and only of the last few.
"""

from __future__ import annotations

import subprocess
import threading

from cogit.store.history import gitlog

TIMEOUT = gitlog.TIMEOUT
_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
_SKIP = object()  # a blob that cannot hold the id


def usable_id(item_id: str) -> bool:
    """An id this walk answers for: plain characters (its bytes are its YAML text), not a
    section name (the key of a document section's change), not a number or a YAML word."""
    from cogit.store.state.schema import SECTIONS

    return (isinstance(item_id, str) and 0 < len(item_id) <= 200 and _ID_CHARS.issuperset(item_id)
            and item_id not in SECTIONS and not item_id[0].isdigit() and item_id[0] not in "-."
            and item_id.lower() not in ("true", "false", "null", "yes", "no", "on", "off", "y", "n"))


LAZY_MIN = 1000  # commits: a shorter history, or a smaller gap in the index, is indexed by the query itself


def item_history(git_dir: str, head: str, item_id: str, open_repo, root_changes):
    """[(raw commit as gitlog gives it, [ItemChange])] of every commit reachable from
    `head` that changed `item_id`, in `git.walk`'s order; None when git cannot answer or
    the history is short. `open_repo()`: the dulwich repository, opened only for a root
    commit or a blob the canonical reader refuses; `root_changes(repo, sha)`: a root
    commit's changes to the item (log.commit_changes)."""
    from cogit.store.state.documents import ITEM_SECTIONS

    base = gitlog.command(git_dir)
    if base is None or not gitlog._sha(head) or not usable_id(item_id):
        return None
    sections = {f"{s}.yaml".encode(): s for s in (*ITEM_SECTIONS, "tools")}
    opened = []

    def repo_of():
        if not opened:
            opened.append(open_repo())
        return opened[0]

    order = bytearray()
    hits: dict[str, list] = {}
    try:
        with gitlog.raw_log(base, gitlog._env(), head) as log, \
                gitlog.streamed(base, gitlog._env(), ("cat-file", "--batch"), stdin=subprocess.PIPE) as cat:
            roots = _walk(gitlog.raw_commits(log.stdout, sections, order), cat, item_id, repo_of, hits)
            if roots is None or not gitlog.finish(log) or not gitlog.finish(cat):
                return None
        if order.count(b"\n") < LAZY_MIN:
            return None
        for sha in roots:  # everything in it is new: diffed whole, as the full walk does
            changes = root_changes(repo_of(), sha)
            if changes:
                hits[sha] = changes
    except (OSError, ValueError, UnicodeDecodeError, subprocess.SubprocessError):
        return None
    finally:
        for repo in opened:
            repo.close()
    text = order.decode("ascii")
    del order
    walk = gitlog._walk_order(text, head, set(hits))
    if walk is None:
        return None
    raw = gitlog._cat(base, gitlog._env(), walk) if walk else {}
    if raw is None:
        return None
    return [(raw[sha], hits[sha]) for sha in walk]


_KEEP = 16  # blobs kept read: one commit's new file is the next (older) commit's old one
_END = object()


def _walk(commits, cat, item_id, repo_of, hits):
    """Diff each commit's changed files for the item as git log streams them; the root
    commits' shas are returned (None if git's output did not parse).

    A thread reads the log and asks cat-file for each blob not among the last _KEEP it
    asked for; this thread reads the answers in the same order and keeps the same last
    _KEEP, so both sides agree on which blobs come down the pipe, git never waits for a
    round trip, and memory holds a bounded queue and a few reduced documents, not the
    history (before: every commit's blob pairs and every blob with the id, 156 MB at
    100,000 commits)."""
    import queue

    token = item_id.encode()
    work: queue.Queue = queue.Queue(maxsize=64)
    stop = threading.Event()
    failed = []

    def ask():
        asked: dict[str, None] = {}
        batch, lines = [], []
        try:
            for sha, root, pairs in commits:
                wanted = []
                for _section, old, new in () if root else pairs:
                    for blob in (old, new):
                        if blob is not None and blob not in asked:
                            asked[blob] = None
                            if len(asked) > _KEEP:
                                asked.pop(next(iter(asked)))
                            wanted.append(blob)
                            lines.append(blob + "\n")
                batch.append((sha, root, pairs, wanted))
                # handed over in batches (a queue hand-off costs more than a commit's work), small
                # enough that their asks fit in the pipe while cat-file waits for them to be read
                if len(batch) >= 64 or len(lines) >= 256:
                    _hand(cat, work, stop, batch, lines)
                    batch, lines = [], []
            _hand(cat, work, stop, batch, lines)
        except BaseException as exc:  # noqa: BLE001 - handed to the reading side, which refuses
            failed.append(exc)
        finally:
            try:
                cat.stdin.close()
            except OSError:
                pass
            _put(work, stop, _END)

    asker = threading.Thread(target=ask, daemon=True)
    asker.start()
    kept: dict[str, object] = {}
    roots, done = [], False
    try:
        while True:
            batch = work.get()
            if batch is _END:
                break
            for sha, root, pairs, fresh in batch:
                if root:
                    roots.append(sha)
                    continue
                now: dict[str, object] = {}  # this commit's blobs, taken as the asking side took them
                for section, old, new in pairs:
                    for blob in (old, new):
                        if blob is None or blob in now:
                            continue
                        if blob in fresh:
                            now[blob] = kept[blob] = _read(cat.stdout, blob, token, section, item_id)
                            if len(kept) > _KEEP:
                                kept.pop(next(iter(kept)))
                        else:
                            now[blob] = kept[blob]  # KeyError: the two sides disagree, refused
                if now:
                    changes = _changes(pairs, now, item_id, repo_of)
                    if changes:
                        hits[sha] = changes
        done = True
    except (_Refused, KeyError):
        return None
    finally:
        stop.set()
        if not done:  # the asking side may wait on a full pipe nobody reads now
            cat.kill()
        asker.join(timeout=5)
    return None if failed else roots


class _Refused(Exception):
    """cat-file's answer was not what it should be."""


def _hand(cat, work, stop, batch, lines):
    if lines:
        cat.stdin.write("".join(lines).encode())
        cat.stdin.flush()
    if batch:
        _put(work, stop, batch)


def _put(work, stop, job):
    import queue

    while not stop.is_set():
        try:
            work.put(job, timeout=0.1)
            return
        except queue.Full:
            continue


def _read(stream, blob_id, token, section, item_id):
    """One blob of cat-file's answers: the entries with the id (or the plain document of
    tools.yaml), the blob id itself when only the validated loader can read it, or _SKIP
    when its bytes cannot hold the id."""
    from cogit.store.state import canonical_reader, yamlio

    head = stream.readline().split()
    if len(head) != 3 or head[0].decode("ascii", "replace") != blob_id or head[1] != b"blob" or not head[2].isdigit():
        raise _Refused()
    size = int(head[2])
    if size > yamlio.MAX_BYTES:  # larger than any state file: read in pieces and dropped, the loader decides
        left = size + 1
        while left:
            piece = stream.read(min(left, 1 << 16))
            if not piece:
                raise _Refused()
            left -= len(piece)
        return blob_id
    data = stream.read(size + 1)
    if len(data) != size + 1 or data[-1:] != b"\n":
        raise _Refused()
    data = data[:-1]
    if token not in data and b"\\" not in data and b"\x00" not in data:
        return _SKIP
    doc = canonical_reader.read(data)
    return blob_id if doc is None else _reduce(doc, section, item_id)


def _changes(pairs, kept, item_id, repo_of):
    """The changes keyed `item_id` of one commit's changed files (section, old, new)."""
    from cogit.store.history.diff import diff_states
    from cogit.store.state.schema import SECTIONS

    before, after = {}, {}
    for section, old, new in pairs:
        a, b = kept.get(old, _SKIP), kept.get(new, _SKIP)
        if a is _SKIP and b is _SKIP:
            continue
        before[section] = _doc(a, section, old, item_id, repo_of)
        after[section] = _doc(b, section, new, item_id, repo_of)
    if not before:
        return []
    changes = diff_states(before, after)
    rank = {s: n for n, s in enumerate(SECTIONS)}
    return sorted((c for c in changes if c.key == item_id), key=lambda c: rank[c.section])


def _doc(kept, section, blob_id, item_id, repo_of):
    """The reduced document of a blob: its entries with the id (items) or its whole plain
    document (tools.yaml); `_SKIP` (the id is not in it) reads as such a document too."""
    from cogit.store.state import yamlio
    from cogit.store.state.documents import ITEM_SECTIONS, default_doc

    if blob_id is None:
        kept = yamlio.plain(default_doc(section))
    elif kept is _SKIP:
        return {"items": []} if section in ITEM_SECTIONS else {}
    elif isinstance(kept, str):  # the canonical reader refused it: the validated loader reads it
        from cogit.store.state import loader

        kept = loader.parse_blob(repo_of(), section, blob_id)
    return _reduce(kept, section, item_id)


def _reduce(doc, section, item_id):
    from cogit.store.state.documents import ITEM_SECTIONS

    if section not in ITEM_SECTIONS:
        return doc
    return {"items": [i for i in (doc.get("items") or []) if i.get("id") == item_id]}
