"""The checks behind `cogit doctor`, one module per area; `cogit/doctor.py` runs them.

Every check returns Findings and never raises for what it finds: a broken home is
what it is there to describe. With `fix`, a check mends only what it names as safe.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass


@dataclass
class Finding:
    name: str
    status: str  # "ok", "warn", "fail", "fixed", "skipped"
    detail: str
    hint: str = ""
    extra: dict | None = None  # machine-readable facts for --json (e.g. the unstored item's fold id)

    def to_json(self) -> dict:
        out = asdict(self)
        out.update(out.pop("extra") or {})
        return out


def setting(config, section: str, key: str, default):
    """A number from config (`doctor.stale_days`, ...), the default when absent or odd:
    doctor must work on a home whose config is older (or newer) than this cogit."""
    value = ((config or {}).get(section) or {}).get(key) if isinstance(config, dict) else None
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else default


# --------------------------------------------------------------------------- the last check
# runtime/doctor.json: when doctor last ran and how far it had read each log, so that
# "errors since the last check" is exact (logs are append-only; a rotated or replaced
# log is read from its start).


def last_check_path(home) -> str:
    return os.path.join(home.top, "runtime", "doctor.json")  # = home.runtime (a Path; strings keep `status` light)


def read_last_check(home) -> dict:
    from cogit import jsonio  # not json: `cogit status` reads this on every run

    try:
        with open(last_check_path(home), encoding="utf-8") as f:
            data = jsonio.loads(f.read())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def write_last_check(home, offsets: dict) -> None:
    import json

    path = last_check_path(home)
    try:
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as f:
            json.dump({"time": time.time(), "logs": offsets}, f)
        os.replace(tmp, path)
    except OSError:
        pass  # an unwritable runtime folder is reported by its own check
