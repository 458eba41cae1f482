"""Settings that wait: acting values of the synced config.yaml not in effect on this machine."""

from __future__ import annotations

from cogit.checks import Finding


def check_waiting_settings(home, config) -> list[Finding]:
    """One warn per setting that waits, each with the exact command that confirms it (see
    cogit/machine_settings.py: who committed a value never makes it this machine's)."""
    from cogit import machine_settings

    waiting = machine_settings.pending(home, config)
    if not waiting:
        return [Finding("settings", "ok", "every setting that acts here is this machine's own "
                        f"({machine_settings.FILE}); none waits for confirmation")]
    return [Finding("settings", "warn", f"{machine_settings.describe(p)}: not in effect, it waits for your confirmation",
                    f"If you set it, or trust it: {p['command']}. If not: {p['decline']} (this machine keeps "
                    "its value; nothing of it runs meanwhile).", extra={"key": p["key"], "command": p["command"],
                                                                        "decline": p["decline"]})
            for p in waiting]
