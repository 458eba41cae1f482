"""Reading state from commits fast: each blob is parsed and validated once.

ruamel.yaml's round-trip parser costs milliseconds per file, and history walks,
digests and every write read whole states. A blob's content never changes for
its id, so the validated plain document is cached by (section, blob id): in this
process, and as JSON under runtime/cache/parsed/ for the next process (bounded: the
session-end work in store/maintain.py evicts the least recently used). Round-trip
documents (with comments) are parsed only for the sections a write changes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from cogit.store.git import repo as git
from cogit.store.git.lite import blob_id as blob_id_of
from cogit.store.state import schema, yamlio
from cogit.store.state.schema import SECTIONS
from cogit.store.state.documents import default_doc, filename

_MEMO: dict[tuple[str, str], dict] = {}
_MEMO_LIMIT = 4096


def cache_dir(repo) -> Path:
    # memory/ and runtime/ are siblings in the memory home.
    return Path(repo.path).parent / "runtime" / "cache" / "parsed"


def parse_blob(repo, section: str, blob_id: str) -> dict:
    """The validated plain document of one blob (raises InvalidState if it is bad)."""
    key = (section, blob_id)
    if key in _MEMO:
        return json.loads(json.dumps(_MEMO[key]))  # callers may mutate: hand out a copy
    path = cache_dir(repo) / f"{section}-{blob_id}.json"
    try:
        doc = json.loads(path.read_text("utf-8"))
        os.utime(path)  # recently used: store/maintain.py evicts the least recently used first
    except (OSError, ValueError):
        name = filename(section)
        doc = yamlio.plain(schema.parse(section, git.blob(repo, blob_id), name))
        _store(path, doc)
    if len(_MEMO) >= _MEMO_LIMIT:
        _MEMO.clear()
    _MEMO[key] = doc
    return json.loads(json.dumps(doc))


def read_only(repo, section: str, blob_id: str, data: bytes | None = None) -> dict:
    """The plain document of one blob, to read and not to change (it may share its entries
    with other results): a file in cogit's canonical layout through `canonical_reader`,
    several times faster than ruamel.yaml and with nothing cached on disk; any other
    layout through the validated, cached `parse_blob` (raises InvalidState if it is bad).
    History walks read thousands of old versions this way."""
    from cogit.store.state import canonical_reader

    if data is None:
        data = git.blob(repo, blob_id)
    doc = canonical_reader.read(data) if len(data) <= yamlio.MAX_BYTES else None
    return parse_blob(repo, section, blob_id) if doc is None else doc


def load_plain(repo, sha: str | None, blobs: dict[str, str] | None = None) -> dict[str, dict]:
    """section -> plain, validated document at a commit (defaults for missing files)."""
    blobs = git.blob_ids(repo, sha) if blobs is None else blobs
    out = {}
    for section in SECTIONS:
        blob_id = blobs.get(filename(section))
        out[section] = parse_blob(repo, section, blob_id) if blob_id else yamlio.plain(default_doc(section))
    return out


def remember(repo, section: str, data: bytes, doc: dict, blob_id: str | None = None) -> None:
    """Seed the caches with a document this process just wrote or validated (no re-parse
    later). `blob_id`: the id of `data` when the caller knows it (a pull does)."""
    if blob_id is None:
        blob_id = blob_id_of(data)
    text = json.dumps(doc)  # once: the cache file's text, and the detached copy kept here
    _MEMO[(section, blob_id)] = json.loads(text)
    _store(cache_dir(repo) / f"{section}-{blob_id}.json", doc, text)


_MADE: set[str] = set()  # cache folders this process made (a pull stores thousands of files in one)


def _store(path: Path, doc: dict, text: str | None = None) -> None:
    try:
        if str(path.parent) not in _MADE:
            for folder in (path.parent.parent, path.parent):  # mkdir's mode reaches the leaf only
                folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            _MADE.add(str(path.parent))
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        except FileNotFoundError:  # the folder went (a cleanup): make it again
            _MADE.discard(str(path.parent))
            for folder in (path.parent.parent, path.parent):
                folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(doc) if text is None else text)
        os.replace(tmp, path)
    except OSError:
        pass  # a cache that cannot be written only costs speed


_CANONICAL: set[str] = set()  # blob ids this process wrote with the canonical writer


def mark_canonical(data: bytes) -> None:
    if len(_CANONICAL) > _MEMO_LIMIT:
        _CANONICAL.clear()
    _CANONICAL.add(blob_id_of(data))


def is_canonical(blob_id: str | None) -> bool:
    return bool(blob_id) and blob_id in _CANONICAL
