"""The failure log of reflection, runtime/logs/reflect.log (read by `cogit doctor`).

Split from cogit/learn/reflect.py.
"""

from __future__ import annotations

import time

from cogit.paths import Home


# --------------------------------------------------------------------------- logging


def log_path(home: Home):
    return home.logs / "reflect.log"


def log(home: Home, text: str) -> None:
    """One timestamped line per failure in runtime/logs/reflect.log (read by `cogit doctor`:
    every line there is a failure; successes are commits)."""
    from cogit.redact import redact
    from cogit.runtime import append_private

    try:
        home.logs.mkdir(mode=0o700, parents=True, exist_ok=True)
        line = " ".join(redact(str(text))[0].split())[:2000]
        append_private(str(log_path(home)), f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {line}\n")
    except OSError:
        pass  # a log that cannot be written must not turn a failure into a crash
