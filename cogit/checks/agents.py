"""Which agents have cogit's hooks installed, and whether each installed command still
starts a working cogit (it is run, with a probe that touches nothing)."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
import time

from cogit.checks import Finding
from cogit.errors import CogitError
from cogit.launch import package_root

PROBE_TIMEOUT = 10  # seconds for one installed command to start Python and import cogit


def check_agents(claude_project: str | None, fix: bool) -> list[Finding]:
    from cogit.install import AGENTS, installer

    out = []
    for agent in AGENTS:
        module = installer(agent)
        if not hasattr(module, "our_commands"):
            module = _Generic(module)
        for project in [None] + ([claude_project] if claude_project else []):
            out += check_one(module, agent, module.NAME, project, fix)
    if not out:
        names = ", ".join(AGENTS)
        out.append(Finding("hooks", "ok", f"no agent settings hold cogit hooks (`cogit install AGENT` adds them; agents: {names})"))
    return out


def check_one(module, agent: str, label: str, project: str | None, fix: bool) -> list[Finding]:
    path = module.settings_path(project)
    try:
        current = module.load(path)
    except CogitError as e:
        return [Finding("hooks", "fail", e.message, e.hint or "")]
    ours = module.our_commands(current)
    if not ours:
        return []
    home = module.home_of(ours)
    facts = {"agent": agent, "settings": str(path)}
    outdated = not same_form(ours, module.our_commands(module.with_ours(current, home)))
    broken = probe_all(ours) if not outdated else []
    if not outdated and not broken:
        return [Finding("hooks", "ok", f"{label} hooks in {path} are current and start cogit {_version()}", extra=facts)]
    if fix:
        result = module.install(project, home=home)
        what = "upgraded cogit's hook commands" if outdated else "reinstalled cogit's hook commands"
        still = probe_all(module.our_commands(module.load(path)))
        if still:
            return [Finding("hooks", "fail", f"{what} in {path}, but they still fail: {still[0]}",
                            f"Check that this Python ({_python()}) runs cogit.", extra=facts)]
        return [Finding("hooks", "fixed", f"{what} in {path} to this version's (backup: {result['backup']})", extra=facts)]
    if outdated:
        return [Finding("hooks", "fail", f"cogit's hook commands in {path} are from an older version "
                                         "(they may import code from the agent's working folder)",
                        f"Run `cogit doctor --fix` (or `cogit install {agent}`) to upgrade them.", extra=facts)]
    return [Finding("hooks", "fail", f"an installed {label} hook command does not start cogit: {broken[0]}",
                    f"Run `cogit doctor --fix` (or `cogit install {agent}`) to point them at this cogit.", extra=facts)]


class _Generic:
    """The doctor's view of an installer that only knows install/uninstall: cogit's commands
    are found by walking its settings file for handlers cogit wrote (cogit/install/hookfile.py
    markers; OpenClaw's plugin entry holds the command as a list) and each is run with the
    probe; a failing one is reinstalled by `--fix`."""

    def __init__(self, module):
        self.module = module
        self.NAME = module.NAME

    def settings_path(self, project):
        return self.module.settings_path(project)

    def load(self, path):
        from cogit.install import hookfile

        return (getattr(self.module, "load", None) or hookfile.load)(path)

    def our_commands(self, data) -> list[tuple[str, str]]:
        from cogit.install import hookfile

        out = []

        def walk(node, where):
            if isinstance(node, dict):
                cmd = node.get("command")
                if isinstance(cmd, str) and hookfile.is_ours(node):
                    out.append((where, cmd))
                elif isinstance(cmd, list) and any("from cogit.hooks import run" in str(a) for a in cmd):
                    home = node.get("home")
                    prefix = f"COGIT_HOME={shlex.quote(home)} " if isinstance(home, str) else ""
                    out.append((where, prefix + shlex.join([str(a) for a in cmd] + ["probe"])))
                for k, v in node.items():
                    walk(v, f"{where}.{k}" if where else str(k))
            elif isinstance(node, list):
                for v in node:
                    walk(v, where)

        walk(data, "")
        return sorted(out)

    def home_of(self, commands):
        from cogit.install.claude import home_of

        return home_of(commands)

    def with_ours(self, data, home):
        return data  # no old forms of these agents' commands exist yet: only the probe judges them

    def install(self, project, home=None):
        return self.module.install(project, home=home)


def same_form(installed: list[tuple[str, str]], expected: list[tuple[str, str]]) -> bool:
    """Are the installed commands what this cogit writes, but for which Python runs them?
    (Another interpreter is judged by running it: see probe_all.)"""
    if [e for e, _ in installed] != [e for e, _ in expected]:
        return False
    for (_, have), (_, want) in zip(installed, expected):
        try:
            a, b = shlex.split(have), shlex.split(want)
        except ValueError:
            return False
        if len(a) != len(b) or any(x != y and y not in (_python(), package_root()) for x, y in zip(a, b)):
            return False
    return True


def probe_all(commands: list[tuple[str, str]]) -> list[str]:
    """Run each distinct installed command (one per event-less form) with COGIT_HOOK_PROBE=1:
    a working cogit answers with its version and does nothing else. Returns what failed."""
    distinct: dict[str, str] = {}
    for event, cmd in commands:
        distinct.setdefault(_without_event(cmd, event), cmd)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "GIT_"))}
    env["COGIT_HOOK_PROBE"] = "1"
    problems = []
    # An empty folder: a command written by an old cogit (no -E -P) would import from its cwd.
    with tempfile.TemporaryDirectory(prefix="cogit-probe-") as cwd:
        running = [(cmd, subprocess.Popen(["/bin/sh", "-c", cmd], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE))
                   for cmd in distinct.values()]
        deadline = time.monotonic() + PROBE_TIMEOUT
        for cmd, proc in running:
            try:
                stdout, stderr = proc.communicate(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
                problems.append(f"`{_short(cmd)}` did not answer within {PROBE_TIMEOUT} s")
                continue
            answer = stdout.decode("utf-8", "replace").strip()
            if proc.returncode != 0:
                last = (stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"])[-1]
                problems.append(f"`{_short(cmd)}` exits {proc.returncode}: {last[:200]}")
            elif answer.startswith("cogit-probe-broken "):
                problems.append(f"`{_short(cmd)}`: {answer[len('cogit-probe-broken '):][:300]}")
            elif not answer.startswith("cogit-probe "):
                problems.append(f"`{_short(cmd)}` runs, but not a cogit that answers the probe (an older version?)")
    return problems


def _without_event(cmd: str, event: str) -> str:
    return cmd[: -len(event)] if cmd.endswith(event) else cmd


def _short(cmd: str, limit: int = 160) -> str:
    try:
        parts = shlex.split(cmd)
    except ValueError:
        parts = [cmd]
    text = " ".join(p if len(p) < 60 else p[:57] + "…" for p in parts)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _version() -> str:
    from cogit import __version__

    return __version__


def _python() -> str:
    import sys

    return sys.executable
