"""How cogit writes a time: UTC, to the second, ISO 8601 (`2026-01-31T12:00:00Z`).

(Reading one back, without `time.strptime`'s import cost, is `ledger.parse_time`.)
"""

from __future__ import annotations

import time


def now_iso(t: float | None = None) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() if t is None else t))
