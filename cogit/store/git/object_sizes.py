"""The size and type of a git object, read from its header before any of it is inflated.

Split from cogit/store/git/repo.py: the header reader for loose objects, pack entries and
delta chains, so that a pulled object is measured before it is read.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dulwich.repo import Repo


# --- object sizes from headers: a pulled object is measured before any of it is read ---
#
# A 256 MiB blob of zeros is a few hundred KB on the wire. Reading it to learn that it is too
# big costs its full size in memory (dulwich inflates an object whole). The size is in the
# object's header: "<type> <size>\0" at the start of a loose object's zlib stream, the
# type-and-size varint of a pack entry, or, for a delta, the result size at the start of the
# delta's own stream. So each read here inflates a few dozen bytes, whatever the object.

_OFS_DELTA, _REF_DELTA = 6, 7
_TYPES = {b"commit": 1, b"tree": 2, b"blob": 3, b"tag": 4}
MAX_DELTA_CHAIN = 10_000  # git's own default depth is 50; a longer chain is a crafted pack


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """A delta header size (7 bits a byte, least significant first) at pos: (value, next pos)."""
    value = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise ValueError("truncated delta header")
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        pos, shift = pos + 1, shift + 7
        if not byte & 0x80:
            return value, pos


def _inflate_head(f, want: int) -> bytes:
    """The first `want` bytes of the zlib stream at f's position (never more than that inflated)."""
    import zlib

    z, out = zlib.decompressobj(), b""
    while len(out) < want:
        chunk = f.read(512)
        if not chunk:
            break
        out += z.decompress(chunk, want - len(out))
        while z.unconsumed_tail and len(out) < want:
            out += z.decompress(z.unconsumed_tail, want - len(out))
        if z.eof:
            break
    return out


# The type of a delta is its chain's base's: (pack file, offset) -> (type, links below it).
# A pull measures thousands of objects whose deltas share chains (each version of a state
# file is a delta on the one before), so each link is followed once, not once per object
# above it: O(objects), not O(objects x depth). A pack file's name is its checksum, so an
# offset in it always holds the same entry. The depth is kept, so a chain that grows past
# MAX_DELTA_CHAIN through cached links is refused all the same.
_BASES: dict[tuple[str, int], tuple[int, int]] = {}
_BASES_LIMIT = 200_000


def _pack_header(repo: Repo, f, offset: int, depth: int = 0) -> tuple[int, int]:
    """(type, size) of the pack entry at offset of the open pack file f."""
    kind, size, _ = _pack_entry(repo, f, offset, depth)
    return kind, size


def _pack_entry(repo: Repo, f, offset: int, depth: int) -> tuple[int, int, int | None]:
    """(type, size, delta links below it, None when a REF_DELTA is among them) of the pack
    entry at offset of f."""
    if depth > MAX_DELTA_CHAIN:
        raise ValueError("delta chain too long")
    f.seek(offset)
    head = f.read(32)
    if not head:
        raise ValueError("entry past the end of its pack")
    byte = head[0]
    kind, size, shift, pos = (byte >> 4) & 7, byte & 0x0F, 4, 1
    while byte & 0x80:
        if pos >= len(head):
            raise ValueError("truncated entry header")
        byte = head[pos]
        size |= (byte & 0x7F) << shift
        pos, shift = pos + 1, shift + 7
    if kind not in (_OFS_DELTA, _REF_DELTA):
        return kind, size, 0
    if kind == _OFS_DELTA:
        byte = head[pos]
        rel, pos = byte & 0x7F, pos + 1
        while byte & 0x80:
            if pos >= len(head):
                raise ValueError("truncated delta offset")
            byte = head[pos]
            rel, pos = ((rel + 1) << 7) | (byte & 0x7F), pos + 1
        base = offset - rel
        if base < 0 or base >= offset:
            raise ValueError("delta base outside its pack")
    else:
        base_sha, pos = head[pos:pos + 20], pos + 20
    f.seek(offset + pos)
    delta = _inflate_head(f, 20)
    _, at = _varint(delta, 0)  # the base's size
    size, _ = _varint(delta, at)  # the result's
    key = (f.name, offset)
    known = _BASES.get(key) if kind == _OFS_DELTA else None
    if known is not None:
        base_kind, below = known
        if depth + below > MAX_DELTA_CHAIN:
            raise ValueError("delta chain too long")
        return base_kind, size, below
    if kind == _REF_DELTA:  # its base may be in another pack, or loose: followed each time, never cached
        base_kind, _ = object_header(repo, base_sha.hex().encode(), depth + 1)
        return base_kind, size, None
    base_kind, _, below = _pack_entry(repo, f, base, depth + 1)
    if below is None:  # a REF_DELTA below: its length is not known here, so nothing above it is cached
        return base_kind, size, None
    below += 1
    if len(_BASES) >= _BASES_LIMIT:
        _BASES.clear()
    _BASES[key] = (base_kind, below)
    return base_kind, size, below


def object_header(repo: Repo, sha: bytes | str, _depth: int = 0) -> tuple[int, int]:
    """(type number, size in bytes) of an object, read from its header alone.

    KeyError if the object is not in the repository; ValueError if its header is damaged."""
    hexsha = sha.encode() if isinstance(sha, str) else sha
    store = repo.object_store
    for pack in store.packs:
        try:
            offset = pack.index.object_offset(hexsha)
        except KeyError:
            continue
        with open(pack._data_path, "rb") as f:
            return _pack_header(repo, f, offset, _depth)
    path = os.path.join(str(store.path), hexsha[:2].decode("ascii"), hexsha[2:].decode("ascii"))
    try:
        with open(path, "rb") as f:
            head = _inflate_head(f, 32)
    except FileNotFoundError:
        raise KeyError(hexsha) from None
    name, sp, rest = head.partition(b" ")
    digits, nul, _ = rest.partition(b"\0")
    if not sp or not nul or name not in _TYPES or not digits.isdigit():
        raise ValueError("damaged loose object header")
    return _TYPES[name], int(digits)
