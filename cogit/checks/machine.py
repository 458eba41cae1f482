"""The machine under memory: a writable runtime folder and free disk space."""

from __future__ import annotations

import os
import shutil

from cogit.checks import Finding

MIN_FREE_MB = 100  # below this a write may fail midway (git objects, logs, session records)


def check_runtime(home) -> list[Finding]:
    """Hooks keep sessions, queued items and logs in runtime/: if it cannot be written,
    they fail open and nothing the agent does is remembered."""
    runtime = str(home.runtime)
    try:
        os.makedirs(runtime, mode=0o700, exist_ok=True)
        for sub in ("", "sessions", "logs"):
            folder = os.path.join(runtime, sub)
            if sub and not os.path.exists(folder):
                continue
            probe = os.path.join(folder, f".doctor-probe-{os.getpid()}")
            fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            os.close(fd)
            os.unlink(probe)
    except OSError as e:
        where = getattr(e, "filename", None) or runtime
        return [Finding("runtime", "fail", f"the runtime folder cannot be written ({where}: {e.strerror or e}); "
                                           "hooks record nothing and queue nothing",
                        f"Make it writable by you (e.g. chmod u+rwx {runtime}, or move away what is in its place).")]
    return [Finding("runtime", "ok", f"{runtime} is writable")]


def check_disk(home) -> list[Finding]:
    target = str(home.root if home.root.exists() else home.root.parent)
    try:
        free = shutil.disk_usage(target).free
    except OSError as e:
        return [Finding("disk", "warn", f"cannot read free space at {target}: {e.strerror or e}")]
    mb = free / 1e6
    if mb < MIN_FREE_MB:
        return [Finding("disk", "fail", f"only {mb:.0f} MB free at {target}; writes may fail midway",
                        "Free some disk space.", extra={"free_bytes": free})]
    return [Finding("disk", "ok", f"{mb / 1000:.1f} GB free at {target}", extra={"free_bytes": free})]
