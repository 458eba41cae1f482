"""store.log: one line per thing the store did on its own (repairs, kept hand edits, packing).

Below every other store module, so the write path, recovery and maintenance can all
note what they did without importing each other."""

from __future__ import annotations

import time

from cogit.paths import Home
from cogit.redact import redact


def log_note(home: Home, text: str) -> None:
    from cogit.runtime import append_private

    home.logs.mkdir(mode=0o700, parents=True, exist_ok=True)
    append_private(str(home.logs / "store.log"), f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {redact(text)[0][:2000]}\n")
