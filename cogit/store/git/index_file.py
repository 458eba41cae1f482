"""The memory repository's git index (`.git/index`) read and written with the standard library,
for the write path's repository without dulwich (lite.py, store/git/worktree.py).

Versions 2 and 3 are read (v4's compressed paths and entries in a merge stage are Unsupported:
dulwich takes those); optional extensions (the cache tree, the untracked cache) are dropped, git
rebuilds them; a damaged file (its checksum) is a ValueError. Written as version 2 through
`index.lock`, as git does.
"""

from __future__ import annotations

import os
import stat
import struct

from .lite import Unsupported, locked_write, sha1

_ENTRY = struct.Struct(">10I20sH")


def read_index(path: str) -> tuple[int, dict[bytes, list]]:
    """(version, name -> [ctime_s, ctime_ns, mtime_s, mtime_ns, dev, ino, mode, uid, gid, size,
    sha hex, flags]) of a git index; {} for none. Extensions (all optional ones: the cache tree,
    untracked cache) are dropped: git rebuilds them. Unsupported for v4 or a required extension;
    ValueError for a damaged index."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return 2, {}
    if len(data) < 32 or data[:4] != b"DIRC" or sha1(data[:-20]).digest() != data[-20:]:
        raise ValueError("damaged index")
    version, count = struct.unpack_from(">II", data, 4)
    if version not in (2, 3):
        raise Unsupported(f"index version {version}")
    pos, out = 12, {}
    for _ in range(count):
        *fields, sha, flags = _ENTRY.unpack_from(data, pos)
        start = pos
        pos += _ENTRY.size
        if flags & 0x4000:
            if version < 3 or (struct.unpack_from(">H", data, pos)[0]):
                raise Unsupported("extended index flags")
            pos += 2
        nul = data.index(b"\0", pos)
        name = data[pos:nul]
        pos = start + ((nul - start) // 8 + 1) * 8
        if flags & 0x3000:
            raise Unsupported("an index entry in a merge stage")
        out[name] = [*fields, sha.hex(), flags & 0x8000]
    end = len(data) - 20
    while pos + 8 <= end:
        sig = data[pos:pos + 4]
        if not b"A" <= sig[:1] <= b"Z":
            raise Unsupported(f"required index extension {sig!r}")
        pos += 8 + struct.unpack_from(">I", data, pos + 4)[0]
    return version, out


def entry_from_stat(st: os.stat_result, sha: str) -> list:
    mode = stat.S_IFREG | (0o755 if st.st_mode & 0o100 else 0o644)
    m = 0xFFFFFFFF
    return [st.st_ctime_ns // 10**9 & m, st.st_ctime_ns % 10**9, st.st_mtime_ns // 10**9 & m, st.st_mtime_ns % 10**9,
            st.st_dev & m, st.st_ino & m, mode, st.st_uid & m, st.st_gid & m, st.st_size & m, sha, 0]


def write_index(path: str, entries: dict[bytes, list]) -> None:
    """Write a version 2 index through `index.lock` (renamed over it), as git does."""
    parts = [b"DIRC", struct.pack(">II", 2, len(entries))]
    for name in sorted(entries):
        e = entries[name]
        flags = min(len(name), 0xFFF) | (e[11] & 0x8000)
        body = _ENTRY.pack(*e[:10], bytes.fromhex(e[10]), flags) + name
        parts.append(body + b"\0" * (8 - len(body) % 8))
    data = b"".join(parts)
    data += sha1(data).digest()
    locked_write(path, data)
