"""Wiring cogit into agents: one module per agent.

Each module in AGENTS offers `settings_path(project)`, `load(path)`, `our_commands(data)`
(the (event, command) pairs cogit installed), `home_of(commands)`, `with_ours(data, home)`
and `install(project, home=...)`; `cogit doctor` checks every agent through them, so a
new agent is one line here.
"""

from __future__ import annotations

import importlib

# (module name under cogit.install, the agent's name for people)
AGENTS = (
    ("claude", "Claude Code"),
)


def installer(name: str):
    return importlib.import_module(f"cogit.install.{name}")
