"""Measuring a fetched pack before dulwich indexes it (the dulwich transport).

dulwich indexes a fetched pack by inflating every object whole: a 256 MiB blob of zeros,
a few hundred KB on the wire, costs hundreds of MB of memory there, before cogit's own
checks could say no. So the pack is first written to a temporary file and read here, entry
by entry, from the headers: a pack entry's header holds its object's size, and a delta's
own stream starts with the size of the object it makes. An entry over `max_object` bytes
refuses the whole fetch with nothing added to the object store; every other entry is
inflated in small pieces only to find where it ends (at most its announced size, so the
work is bounded by `max_object` per entry).

The git transport has the same bound from git itself: `core.bigFileThreshold` makes git
stream big blobs instead of holding them, and cogit's tree check then refuses them from
their header (store/git/object_sizes.py object_header).
"""

from __future__ import annotations

import zlib

from cogit.errors import InvalidState
from cogit.store.git.object_sizes import _varint  # one reader of delta headers (bounded shift)

MAX_ENTRIES = 5_000_000  # a pack claiming more is not memory (100,000 commits make ~300,000 objects)
_CHUNK = 64 * 1024


class _Reader:
    def __init__(self, f):
        self.f, self.buf, self.pos = f, b"", 0

    def _fill(self, n: int) -> None:
        while len(self.buf) - self.pos < n:
            more = self.f.read(_CHUNK)
            if not more:
                raise ValueError("the pack ends in the middle of an entry")
            self.buf = self.buf[self.pos:] + more
            self.pos = 0

    def byte(self) -> int:
        self._fill(1)
        self.pos += 1
        return self.buf[self.pos - 1]

    def take(self, n: int) -> bytes:
        self._fill(n)
        self.pos += n
        return self.buf[self.pos - n:self.pos]

    def inflate(self, limit: int, head: int = 0) -> bytes:
        """Inflate the zlib stream here, keeping its first `head` bytes; ValueError if it makes
        more than `limit` bytes. Leaves the reader just after the stream."""
        z, kept, made = zlib.decompressobj(), b"", 0
        while not z.eof:
            if self.pos >= len(self.buf):
                self.buf, self.pos = self.f.read(_CHUNK), 0
                if not self.buf:
                    raise ValueError("the pack ends in the middle of an entry")
            data = z.decompress(self.buf[self.pos:], _CHUNK)
            while True:
                made += len(data)
                if len(kept) < head:
                    kept += data[:head - len(kept)]
                if made > limit:
                    raise ValueError("an entry inflates to more than its header says")
                if not z.unconsumed_tail or z.eof:
                    break
                data = z.decompress(z.unconsumed_tail, _CHUNK)
            self.pos = len(self.buf) - len(z.unused_data)
            if z.eof:
                break
        return kept


def check(path: str, max_object: int, what: str) -> int:
    """Raise InvalidState if an entry of the pack at `path` is over `max_object` bytes (or the
    pack is malformed); returns the number of entries."""
    try:
        with open(path, "rb") as f:
            r = _Reader(f)
            if r.take(4) != b"PACK":
                raise ValueError("not a pack")
            version, count = int.from_bytes(r.take(4), "big"), int.from_bytes(r.take(4), "big")
            if version not in (2, 3) or count > MAX_ENTRIES:
                raise ValueError(f"a pack of version {version} with {count} entries")
            for n in range(count):
                byte = r.byte()
                kind, size, shift = (byte >> 4) & 7, byte & 0x0F, 4
                while byte & 0x80:
                    byte = r.byte()
                    size |= (byte & 0x7F) << shift
                    shift += 7
                    if shift > 70:
                        raise ValueError("an entry header that does not end")
                if kind == 6:  # delta against an earlier entry: its offset
                    byte = r.byte()
                    while byte & 0x80:
                        byte = r.byte()
                elif kind == 7:  # delta against an object by id
                    r.take(20)
                elif kind not in (1, 2, 3, 4):
                    raise ValueError(f"an entry of unknown type {kind}")
                if kind in (6, 7):
                    if size > max_object + 64:  # a delta is never much larger than what it makes
                        raise InvalidState(_too_big(what, size, max_object), hint=_HINT)
                    delta = r.inflate(size, head=20)
                    _, at = _varint(delta, 0)
                    made, _ = _varint(delta, at)
                    if made > max_object:
                        raise InvalidState(_too_big(what, made, max_object), hint=_HINT)
                elif size > max_object:
                    raise InvalidState(_too_big(what, size, max_object), hint=_HINT)
                else:
                    r.inflate(size)
            return count
    except ValueError as e:
        raise InvalidState(f"refused the fetch from {what}: its pack is malformed ({e})", hint=_HINT) from None


_HINT = ("Local memory is unchanged and nothing was written. A memory commit holds only cogit's state "
         "files, each far smaller than this (a crafted or foreign repository?). Check the URL with "
         "`cogit remote list`.")


def _too_big(what: str, size: int, limit: int) -> str:
    return f"refused the fetch from {what}: it sends an object of {size} bytes, over the {limit}-byte limit of any memory object"
