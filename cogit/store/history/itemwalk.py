"""One item's history read through the `git` binary, for `why ID` / `log --item ID` when
the item index is empty (a fresh clone, a lost runtime folder).

Building the whole index (history/log.py ItemIndex) diffs every commit in Python: 47 s
at 10,000 commits. One item needs far less. Here:

* `git log --raw --diff-merges=first-parent` lists, for every commit reachable from the
  head, its commit time, parents and the blobs of the files it changed against its first
  parent (what `commit_changes` diffs);
* `git cat-file --batch` streams the distinct blobs of the changed item files (and
  tools.yaml, whose keys are tool names); a blob whose bytes cannot hold the id (the id
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
bounded: nothing but the item's own entries is kept of a blob.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from cogit.store.history import gitlog

TIMEOUT = gitlog.TIMEOUT
_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
_ZERO = "0" * 40
_SKIP = object()  # a blob that cannot hold the id


def usable_id(item_id: str) -> bool:
    """An id this walk answers for: plain characters (its bytes are its YAML text), not a
    section name (the key of a document section's change), not a number or a YAML word."""
    from cogit.store.state.schema import SECTIONS

    return (isinstance(item_id, str) and 0 < len(item_id) <= 200 and _ID_CHARS.issuperset(item_id)
            and item_id not in SECTIONS and not item_id[0].isdigit() and item_id[0] not in "-."
            and item_id.lower() not in ("true", "false", "null", "yes", "no", "on", "off", "y", "n"))


LAZY_MIN = 1000  # commits: below this the caller builds the index (cheap, and later queries need no dulwich)


def item_history(git_dir: str, head: str, item_id: str, open_repo, root_changes):
    """[(raw commit as gitlog gives it, [ItemChange])] of every commit reachable from
    `head` that changed `item_id`, in `git.walk`'s order; None when git cannot answer or
    the history is short. `open_repo()`: the dulwich repository, opened only for a root
    commit or a blob the canonical reader refuses; `root_changes(repo, sha)`: a root
    commit's changes to the item (log.commit_changes)."""
    from cogit.store.state.documents import ITEM_SECTIONS

    binary = gitlog._git()
    if binary is None or not gitlog._sha(head) or not usable_id(item_id):
        return None
    base = [binary, "--git-dir", git_dir, "-c", "core.hooksPath=" + os.devnull]
    env = gitlog._env()
    sections = {f"{s}.yaml": s for s in (*ITEM_SECTIONS, "tools")}
    graph = _changed(base, env, head, sections)
    if graph is None:
        return None
    order_text, touched, roots, blobs = graph
    if order_text.count("\n") < LAZY_MIN:
        return None
    kept = _read_blobs(base, env, blobs, item_id.encode(), sections, item_id)
    if kept is None:
        return None
    opened = []

    def repo_of():
        if not opened:
            opened.append(open_repo())
        return opened[0]

    try:
        hits: dict[str, list] = {}
        for sha, pairs in touched:
            changes = _changes(pairs, kept, item_id, repo_of)
            if changes:
                hits[sha] = changes
        for sha in roots:  # everything in it is new: diffed whole, as the full walk does
            changes = root_changes(repo_of(), sha)
            if changes:
                hits[sha] = changes
    finally:
        for repo in opened:
            repo.close()
    order = gitlog._walk_order(order_text, head, set(hits))
    if order is None:
        return None
    raw = gitlog._cat(base, env, order) if order else {}
    if raw is None:
        return None
    return [(raw[sha], hits[sha]) for sha in order]


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


def _changed(base, env, head, sections):
    """From one `git log --raw`: rev-list's `time sha parents` lines (for the walk
    order), [(sha, [(section, old blob, new blob)])] of the commits that changed an item
    file or tools.yaml, the root commits, and the blob ids to read (old ones first met)."""
    try:
        proc = subprocess.Popen([*base, "log", "--no-color", "--format=%x01%ct %H %P", "--raw", "--no-abbrev",
                                 "--no-renames", "--diff-merges=first-parent", head],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                                cwd="/", env=env)
    except OSError:
        return None
    order, touched, roots, blobs = [], [], [], {}
    intern = sys.intern
    try:
        sha, pairs = None, []
        for line in proc.stdout:
            if line[:1] == b"\x01":
                if pairs:
                    touched.append((sha, pairs))
                parts = line[1:].decode("ascii").split()
                if len(parts) < 2:
                    return None
                order.append(" ".join(parts) + "\n")  # rev-list's line (a root's `%P` leaves a space)
                sha, pairs = parts[1], []
                if len(parts) == 2:
                    roots.append(sha)
                    sha = None  # (its files, all new, are not read here)
            elif line[:1] == b":" and sha is not None:
                meta, _, path = line.rstrip(b"\n").partition(b"\t")
                section = sections.get(path.decode("utf-8", "replace"))
                fields = meta.split()
                if section is None or len(fields) != 5:
                    continue
                old, new = fields[2].decode("ascii"), fields[3].decode("ascii")
                old = None if old == _ZERO else intern(old)
                new = None if new == _ZERO else intern(new)
                for b in (old, new):
                    if b is not None:
                        blobs[b] = section
                pairs.append((section, old, new))
        if pairs:
            touched.append((sha, pairs))
        proc.wait(timeout=TIMEOUT)
    except (OSError, UnicodeDecodeError, subprocess.SubprocessError):
        return None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    if proc.returncode != 0 or not order:
        return None
    return "".join(order), touched, roots, blobs


def _read_blobs(base, env, blobs: dict, token: bytes, sections, item_id):
    """blob id -> the entries with the id (or the plain document of tools.yaml), or the
    blob id itself when only the validated loader can read it; blobs that cannot hold
    the id are left out. Streamed: a blob's bytes are dropped once looked at."""
    from cogit.store.state import canonical_reader, yamlio

    ids = list(blobs)
    try:
        proc = subprocess.Popen([*base, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, cwd="/", env=env)
    except OSError:
        return None

    def feed():
        try:
            for n in range(0, len(ids), 512):
                proc.stdin.write("".join(b + "\n" for b in ids[n:n + 512]).encode())
            proc.stdin.close()
        except OSError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    kept = {}
    try:
        read, readline = proc.stdout.read, proc.stdout.readline
        for blob_id in ids:
            head = readline().split()
            if len(head) != 3 or head[0].decode("ascii", "replace") != blob_id or head[1] != b"blob" \
                    or not head[2].isdigit():
                return None
            size = int(head[2])
            data = read(size + 1)
            if len(data) != size + 1 or data[-1:] != b"\n":
                return None
            data = data[:-1]
            if token not in data and b"\\" not in data and b"\x00" not in data:
                continue
            doc = canonical_reader.read(data) if size <= yamlio.MAX_BYTES else None
            kept[blob_id] = blob_id if doc is None else _reduce(doc, blobs[blob_id], item_id)
        proc.wait(timeout=TIMEOUT)
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        writer.join(timeout=5)
    if proc.returncode != 0:
        return None
    return kept
