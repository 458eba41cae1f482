"""Objects read out of git's packs with the standard library: the pack index (version 2)
looked up, the entry inflated, its delta chain applied (on an offset or on an object id).

lite.py's reader (the write path's repository without dulwich); lite.py checks each index's
version before it hands it here. A damaged pack is a ValueError, never a wrong answer: lite.py
checks every object's id against its content.
"""

from __future__ import annotations

import struct
import zlib

TYPES = {1: b"commit", 2: b"tree", 3: b"blob", 4: b"tag"}
_OFS_DELTA, _REF_DELTA = 6, 7
MAX_DELTA_CHAIN = 10_000  # = object_sizes.MAX_DELTA_CHAIN: git's default depth is 50
MAX_OBJECT_BYTES = 256 * 1024 * 1024  # a pack entry's claimed size past this is a damaged pack
_FANOUT = 8  # after the magic and the version


def find(idx, want: bytes) -> int | None:
    """The offset in its pack of the object `want` (20 bytes), from a version 2 index; None."""
    first = want[0]
    lo = struct.unpack_from(">I", idx, _FANOUT + 4 * (first - 1))[0] if first else 0
    hi = struct.unpack_from(">I", idx, _FANOUT + 4 * first)[0]
    count = struct.unpack_from(">I", idx, _FANOUT + 4 * 255)[0]
    base = _FANOUT + 1024
    while lo < hi:
        mid = (lo + hi) // 2
        got = idx[base + 20 * mid: base + 20 * mid + 20]
        if got < want:
            lo = mid + 1
        elif got > want:
            hi = mid
        else:
            offset = struct.unpack_from(">I", idx, base + 24 * count + 4 * mid)[0]
            if offset & 0x80000000:  # past 2 GiB: the large offset table
                offset = struct.unpack_from(">Q", idx, base + 28 * count + 8 * (offset & 0x7FFFFFFF))[0]
            return offset
    return None


def read_entry(pack, offset: int, by_id) -> tuple[bytes, bytes]:
    """(type name, content) of the pack entry at offset, its delta chain applied; `by_id(hex)`
    reads the base of a delta on an object id (which may be loose or in another pack)."""
    deltas = []
    while True:
        if len(deltas) > MAX_DELTA_CHAIN:
            raise ValueError("delta chain too long")
        kind, size, pos = _entry_header(pack, offset)
        if kind == _OFS_DELTA:
            byte = pack[pos]
            rel, pos = byte & 0x7F, pos + 1
            while byte & 0x80:
                byte = pack[pos]
                rel, pos = ((rel + 1) << 7) | (byte & 0x7F), pos + 1
            if rel <= 0 or rel > offset:
                raise ValueError("delta base outside its pack")
            deltas.append(_inflate(pack, pos, size))
            offset -= rel
            continue
        if kind == _REF_DELTA:
            deltas.append(_inflate(pack, pos + 20, size))
            name, data = by_id(pack[pos:pos + 20].hex())
            break
        if kind not in TYPES:
            raise ValueError(f"pack entry of unknown type {kind}")
        name, data = TYPES[kind], _inflate(pack, pos, size)
        break
    for delta in reversed(deltas):
        data = apply_delta(data, delta)
    return name, data


def _entry_header(pack, offset: int) -> tuple[int, int, int]:
    """(type, size, position of what follows) of the pack entry at offset."""
    if offset + 1 > len(pack):
        raise ValueError("entry past the end of its pack")
    byte = pack[offset]
    kind, size, shift, pos = (byte >> 4) & 7, byte & 0x0F, 4, offset + 1
    while byte & 0x80:
        byte = pack[pos]
        size |= (byte & 0x7F) << shift
        pos, shift = pos + 1, shift + 7
    if size > MAX_OBJECT_BYTES:
        raise ValueError("pack entry larger than any memory object")
    return kind, size, pos


def _inflate(pack, pos: int, size: int) -> bytes:
    z = zlib.decompressobj()
    out = []
    got = 0
    step = max(4096, size + 64)
    while not z.eof:
        chunk = pack[pos:pos + step]
        if not chunk:
            raise ValueError("pack entry cut short")
        pos += len(chunk)
        piece = z.decompress(chunk, size + 1 - got)
        got += len(piece)
        out.append(piece)
        if got > size:
            raise ValueError("pack entry larger than its header says")
    data = b"".join(out)
    if len(data) != size:
        raise ValueError("pack entry smaller than its header says")
    return data


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        pos, shift = pos + 1, shift + 7
        if not byte & 0x80:
            return value, pos


def apply_delta(base: bytes, delta: bytes) -> bytes:
    """git's delta format: the base's size, the result's size, then copy and insert steps."""
    src, pos = _varint(delta, 0)
    dst, pos = _varint(delta, pos)
    if src != len(base):
        raise ValueError("delta applied to the wrong base")
    out = []
    end = len(delta)
    while pos < end:
        op = delta[pos]
        pos += 1
        if op & 0x80:
            off = size = 0
            for i in range(4):
                if op & (1 << i):
                    off |= delta[pos] << (8 * i)
                    pos += 1
            for i in range(3):
                if op & (0x10 << i):
                    size |= delta[pos] << (8 * i)
                    pos += 1
            size = size or 0x10000
            if off + size > len(base):
                raise ValueError("delta copies past its base")
            out.append(base[off:off + size])
        elif op:
            out.append(delta[pos:pos + op])
            pos += op
        else:
            raise ValueError("delta step 0")
    data = b"".join(out)
    if len(data) != dst:
        raise ValueError("delta result of the wrong size")
    return data
