"""The hooks' view of this machine's own settings ($COGIT_HOME/machine-settings.json).

Standard library only: the hooks take `sync.auto` and `sync.pull_timeout_s` from this
file alone, never from the synced config.yaml (cogit/machine_settings.py, the CLI's view,
explains why and validates the file).
"""

import os

FILE = "machine-settings.json"
MAX_BYTES = 64 * 1024  # a settings file larger than this is not read


def file_path(home_top: str) -> str:
    return os.path.join(home_top, FILE)


def hook_read(home_top: str) -> dict:
    """This machine's settings for the hooks, standard library only: {} for a missing,
    oversized or malformed file (a hook fails open, and no setting is the safe setting),
    and only values of the types the hooks use."""
    from cogit import jsonio

    try:
        with open(file_path(home_top), "rb") as f:
            data = f.read(MAX_BYTES + 1)
        doc = jsonio.loads(data.decode("utf-8")) if len(data) <= MAX_BYTES else None
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    if not isinstance(doc, dict):
        return {}
    reflex = doc.get("reflex") if isinstance(doc.get("reflex"), dict) else {}
    blocks = {"reflex": {"block_repeats": True}} if reflex.get("block_repeats") is True else {}
    sync = doc.get("sync")
    if not isinstance(sync, dict):
        return blocks
    out = {}
    if isinstance(sync.get("auto"), bool):
        out["auto"] = sync["auto"]
    t = sync.get("pull_timeout_s")
    if isinstance(t, (int, float)) and not isinstance(t, bool) and 0 <= t <= 60:
        out["pull_timeout_s"] = t
    return dict(blocks, sync=out) if out else blocks
