"""OS file locks with bounded waits (standard library only; hooks use them too).

flock locks are released by the kernel when a process dies, so a crashed writer
never leaves memory locked. Waits are bounded: a hook gives up and fails open.
"""


import fcntl
import os
import time


class LockTimeout(Exception):
    pass


class file_lock:  # noqa: N801 - used like a function: `with file_lock(path, timeout):`
    """Hold an exclusive flock on `path`, waiting at most `timeout` seconds.

    A class rather than @contextmanager: contextlib is not otherwise imported on
    the hook path, and every millisecond there is paid on each tool call.
    """

    def __init__(self, path, timeout: float):
        self.path = os.fspath(path)
        self.timeout = timeout
        self.fd = -1

    def __enter__(self) -> "file_lock":
        deadline = time.monotonic() + self.timeout
        delay = 0.001
        while True:
            fd = self._open()
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        os.close(fd)
                        raise LockTimeout(self.path) from None
                    time.sleep(delay)
                    delay = min(delay * 2, 0.05)
            # The holder we waited for may have removed the lock file (a finished
            # session's folder is deleted under its own lock): a lock on an unlinked
            # file guards nothing, so take the one now at the path instead.
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                self.fd = fd
                return self
            os.close(fd)
            if time.monotonic() >= deadline:
                raise LockTimeout(self.path)

    def _open(self) -> int:
        for _ in range(20):  # the folder can vanish between makedirs and open
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            try:
                return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            except FileNotFoundError:
                continue
        raise LockTimeout(self.path)

    def __exit__(self, *exc) -> bool:
        try:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
        finally:
            os.close(self.fd)
        return False


class queued_lock(file_lock):  # noqa: N801
    """`file_lock` whose waiters are served in the order they came.

    A bare flock poll lets newcomers overtake: under load one writer can wait out its
    whole timeout while others keep winning. Each waiter here holds a flock on a ticket
    file named by its arrival time in `<path>.queue/` and goes only when no live ticket
    is older; a waiter that dies drops its flock, so its ticket is known dead and removed.
    The lock itself is still the flock on `path`: mutual exclusion never depends on the
    queue, only the order does.
    """

    def __enter__(self) -> "queued_lock":
        queue = self.path + ".queue"
        os.makedirs(queue, exist_ok=True)
        name = f"{time.time_ns():020d}-{os.getpid()}"
        ticket = os.open(os.path.join(queue, name), os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(ticket, fcntl.LOCK_EX)
        deadline = time.monotonic() + self.timeout
        try:
            while True:
                if not _older_live_ticket(queue, name):
                    self.timeout = max(0.0, deadline - time.monotonic())
                    return super().__enter__()  # first in line: wait for the holder
                if time.monotonic() >= deadline:
                    raise LockTimeout(self.path)
                time.sleep(0.002)
        finally:
            try:
                os.unlink(os.path.join(queue, name))
            except OSError:
                pass
            os.close(ticket)


def _older_live_ticket(queue: str, mine: str) -> bool:
    """Is a live waiter ahead of `mine`? Dead ones (no flock held) are removed on the way."""
    for other in sorted(os.listdir(queue)):
        if other >= mine:
            return False
        path = os.path.join(queue, other)
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True  # alive and waiting
        else:
            try:
                os.unlink(path)  # its owner died waiting
            except OSError:
                pass
        finally:
            os.close(fd)
    return False
