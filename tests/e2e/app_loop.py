"""The looping app of issue 23's proof 1, shared by tests/e2e/test_reflex_*.py: a project
whose `python3 app.py` fails until `src` is on the path, and, for the agents that speak the
Responses API (Codex, OpenClaw), the scripted model that ignores what memory gives at session
start and reacts only to what it is told after its last action."""

from __future__ import annotations

import json

CMD = "python3 app.py"
FIX = "PYTHONPATH=src python3 app.py"
OWN_DISCOVERY = 4  # failures before the scripted model finds the fix by itself
PROMPT = "make `python3 app.py` work"


def make_app(work):
    """The project: app.py imports a module that only `src` on the path makes importable."""
    (work / "src").mkdir(parents=True)
    (work / "app.py").write_text("import dih_helpers\nprint('app ran')\n")
    (work / "src" / "dih_helpers.py").write_text("")
    return work


# --- the Responses API (tests/e2e/fake_openai.py) ------------------------------------------


def turn(items):
    """This session's own turn: the items after the last user message."""
    users = [k for k, i in enumerate(items) if isinstance(i, dict) and i.get("role") == "user"]
    return items[users[-1] + 1:] if users else items


def calls(items) -> list[str]:
    """The commands of the turn's function calls (Codex names the argument `cmd`, OpenClaw `command`)."""
    out = []
    for i in items:
        if isinstance(i, dict) and i.get("type") == "function_call":
            args = json.loads(i.get("arguments") or "{}")
            out.append(args.get("cmd") or args.get("command"))
    return out


def since_last_action(items) -> str:
    """Everything the model was told after its last function call."""
    last = max((k for k, i in enumerate(items) if isinstance(i, dict) and i.get("type") == "function_call"), default=-1)
    return json.dumps(items[last + 1:])


def forgetful(action):
    """The scripted model: runs CMD until the text after its last action names the fix, or after
    OWN_DISCOVERY failures (how it found it the first time). `action(cmd)`: the agent's tool call."""

    def script(body: dict) -> list:
        items = turn(body.get("input") or [])
        done = calls(items)
        told = since_last_action(items) if done else ""
        pad = [None] * sum(1 for i in items if isinstance(i, dict) and i.get("type") == "function_call_output")
        if done and done[-1] == FIX:
            return pad + ["Fixed: the app runs." if "app ran" in told else "Not fixed."]
        cmd = FIX if ("PYTHONPATH=src" in told or done.count(CMD) >= OWN_DISCOVERY) else CMD
        return pad + [action(cmd)]

    return script
