"""Learning from sessions: prompt analysis (stdlib, used by hooks) and the folding of
session records into memory (`drain`, which runs outside the hooks)."""
