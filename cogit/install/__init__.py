"""Wiring cogit into agents: one module per agent, each with `install`, `uninstall`,
`settings_path`, `found` (is the agent on this machine), `NAME` and `NEXT_STEP`."""

AGENTS = ("claude", "codex", "gemini", "cursor", "openclaw")


def module(agent: str):
    import importlib

    return importlib.import_module(f"cogit.install.{agent}")


installer = module  # `cogit doctor` (cogit/checks/agents.py) checks every agent through it
