"""OS file locks with bounded waits (standard library only; hooks use them too).

flock locks are released by the kernel when a process dies, so a crashed writer
never leaves memory locked. Waits are bounded: a hook gives up and fails open.
"""

from __future__ import annotations

import fcntl
import os
import time
from contextlib import contextmanager


class LockTimeout(Exception):
    pass


@contextmanager
def file_lock(path, timeout: float):
    os.makedirs(os.path.dirname(os.fspath(path)), exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + timeout
        delay = 0.001
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockTimeout(str(path)) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
