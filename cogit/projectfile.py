"""Reading a file of the agent's working folder, which someone else may have written.

A project folder is hostile input: its `.git/config` or `tsconfig.json` can be a FIFO
(a plain `open()` waits for a writer for ever), a link to `/dev/zero` (a plain `read()`
fills memory) or a link to a file outside the project. So every file cogit reads in a
project goes through `read_bytes` / `read_text`:

* opened with O_NONBLOCK (opening a FIFO returns at once) and O_NOFOLLOW (a symlink as
  the last component is refused: the file must be the project's own);
* `fstat` of what was opened must say a regular file (no FIFO, device, socket or folder),
  checked on the open descriptor, so the file cannot be swapped between check and read;
* at most `limit` bytes: a larger file (by its size, or by what a read actually returns)
  is not read at all.

Anything else answers None, as a missing file does: callers treat all of these alike.
Standard library only, no imports beyond `os` and `stat`: the hooks read project files.
"""

import os
import stat

# Bounds, by what the file is. Far above any real file of its kind, far below harm.
POINTER = 4_096  # `.git` as a file ("gitdir: <path>"), `commondir`: one path
CONFIG = 1 << 20  # .git/config: a few KB in practice
MANIFEST = 1 << 20  # tsconfig.json, jsconfig.json, go.mod, Cargo.toml

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)


def read_bytes(path: str, limit: int) -> bytes | None:
    """The content of `path` if it is a regular file (not a symlink) of at most `limit` bytes, else None."""
    try:
        fd = os.open(path, _FLAGS)
    except (OSError, ValueError):  # missing, a symlink (ELOOP), no permission, a NUL in the path
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        chunks, size = [], 0
        while True:  # the size may change while we read: the bound holds on what arrives
            data = os.read(fd, min(limit + 1 - size, 1 << 20))
            if not data:
                break
            chunks.append(data)
            size += len(data)
            if size > limit:
                return None
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def read_text(path: str, limit: int, errors: str = "replace") -> str | None:
    """read_bytes decoded as UTF-8 (`errors` as for bytes.decode), line ends made "\n" as
    open() in text mode makes them; or None."""
    data = read_bytes(path, limit)
    if data is None:
        return None
    text = data.decode("utf-8", errors)
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def is_regular(path: str) -> bool:
    """Whether `path` itself (not a symlink's target) is a regular file; never opens it."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except (OSError, ValueError):
        return False
