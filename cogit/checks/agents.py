"""Which agents have cogit's hooks installed, whether each installed command still
starts a working cogit (it is run, with a probe that touches nothing), which of cogit's
hook events are missing (and what that costs), and what the hooks really delivered:
an installed agent whose sessions never report a failure or never end."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
import time

from cogit.checks import Finding
from cogit.errors import CogitError
from cogit.launch import EARLIER_HOOK_CODES, HOOK_CODE, package_root

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
    expected = module.our_commands(module.with_ours(current, home))
    have, want = {e for e, _ in ours}, {e for e, _ in expected}
    missing = sorted(want - have) if have < want else []
    if missing:
        # Someone took events out (by hand, another tool): the rest is judged as it is.
        expected = [(e, c) for e, c in expected if e in have]
    outdated = not same_form(ours, expected)
    # an earlier safe form (a hook that works, only slower): a warning, upgraded by --fix
    slower = outdated and any(same_form(ours, [(e, c.replace(HOOK_CODE, old)) for e, c in expected])
                              for old in EARLIER_HOOK_CODES)
    broken = probe_all(ours) if not outdated else []
    if not outdated and not broken and missing:
        if fix:
            result = module.install(project, home=home)
            return [Finding("hooks", "fixed", f"added back cogit's {_names(missing)} hook{'s' if len(missing) > 1 else ''} "
                                              f"in {path} (backup: {result['backup']})", extra=facts)]
        return [Finding("hooks", "warn",
                        f"cogit's {_names(missing)} hook{'s are' if len(missing) > 1 else ' is'} missing from {path} "
                        f"(the other {len(have)} are current): {_costs(missing)}",
                        f"`cogit doctor --fix` (or `cogit install {agent}`) adds {'them' if len(missing) > 1 else 'it'} back; "
                        "if you took it out on purpose, this is what it costs.", extra={**facts, "missing": missing})]
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
    if slower:
        return [Finding("hooks", "warn", f"cogit's hook commands in {path} are an earlier form: they work, but each "
                                         "call pays the interpreter's teardown (about a fifth of a hook's time)",
                        f"Run `cogit doctor --fix` (or `cogit install {agent}`) to upgrade them.", extra=facts)]
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
                    # `hooks.<Event>[.hooks]` in every JSON hook file: the event is what is judged
                    parts = where.split(".")
                    out.append((parts[1] if len(parts) > 1 and parts[0] == "hooks" else where, cmd))
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
        """What `cogit install` would make of `data`: the expected events and commands."""
        if hasattr(self.module, "with_ours"):
            return self.module.with_ours(data, home)
        if hasattr(self.module, "groups"):
            from cogit.install import hookfile

            return hookfile.with_ours_grouped(data, self.module.groups(home))
        return data

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


# What each of cogit's hook events does, by the name each agent gives it: what is lost
# without it.
_COSTS = {
    "sessionstart": "sessions start without the memory digest",
    "userpromptsubmit": "prompts get no memory updates and \"remember this\" is not heard",
    "beforeagent": "prompts get no memory updates and \"remember this\" is not heard",
    "beforesubmitprompt": "prompts get no memory updates and \"remember this\" is not heard",
    "before_prompt_build": "no memory reaches the model and \"remember this\" is not heard",
    "pretooluse": "tool call durations are not measured",
    "beforetool": "tool call durations are not measured",
    "posttooluse": "tool calls are not recorded (no failures, no loops, no rules learned from them)",
    "aftertool": "tool calls are not recorded (no failures, no loops, no rules learned from them)",
    "after_tool_call": "tool calls are not recorded (no failures, no loops, no rules learned from them)",
    "posttoolusefailure": "failed tool calls are not recorded (no loops, no rules learned from them)",
    "stop": "the end of a turn is not seen",
    "afteragent": "the end of a turn is not seen",
    "agent_end": "the end of a turn is not seen",
    "subagentstop": "the end of a subagent is not seen",
    "precompact": "compactions are not seen",
    "precompress": "compactions are not seen",
    "before_compaction": "compactions are not seen",
    "sessionend": "sessions are folded into memory only after hooks.session_stale_minutes of silence",
    "session_end": "sessions are folded into memory only after hooks.session_stale_minutes of silence",
}


def _names(events: list[str]) -> str:
    return ", ".join(events)


def _costs(events: list[str]) -> str:
    costs = []
    for event in events:
        cost = _COSTS.get(event.lower(), f"cogit does not see {event}")
        if cost not in costs:
            costs.append(cost)
    return "; ".join(costs)


def _version() -> str:
    from cogit import __version__

    return __version__


def _python() -> str:
    import sys

    return sys.executable


# --------------------------------------------------------------- what the hooks delivered
# The rule (docs/incoming/agents-fail.md): over an installed agent's last folded sessions
# on this machine, folded by this version of cogit (cogit/learn/agent_evidence.py):
# - no failure ever, in at least MIN_SESSIONS sessions and MIN_SHELL shell commands: shell
#   commands fail now and then (a test run, a grep that finds nothing, a build); if even 1
#   in 20 does, 60 in a row succeed by chance less than 5% of the time (0.95^60 = 4.6%);
# - no session end ever, in at least MIN_SESSIONS sessions: an agent whose hooks end
#   sessions ends nearly every one; only killed agents are folded after going silent.
MIN_SESSIONS = 3
MIN_SHELL = 60
# `cogit install` names -> the agent names hooks record
RECORDED_AS = {"claude": "claude-code", "gemini": "gemini-cli"}


def check_agent_evidence(runtime: str, installed: list[str], stale_minutes: float) -> list[Finding]:
    from cogit.install import installer
    from cogit.learn.agent_evidence import read

    evidence = read(runtime)
    out = []
    for agent in installed:
        label = installer(agent).NAME
        records = [r for r in evidence.get(RECORDED_AS.get(agent, agent), []) if r.get("v") == _version()]
        facts = {"agent": agent, "sessions": len(records)}
        if len(records) < MIN_SESSIONS:
            continue
        shell = sum(int(r.get("shell") or 0) for r in records)
        failures = sum(int(r.get("failures") or 0) for r in records)
        if failures == 0 and shell >= MIN_SHELL:
            out.append(Finding(
                "agents", "warn",
                f"{label}'s hooks never reported a failed tool call: 0 failures in {shell} shell commands over the last "
                f"{len(records)} sessions (cogit {_version()}). Commands fail now and then, so cogit is probably not "
                f"reading {label}'s failures: no loops are noticed and no rules are learned from them.",
                f"In a {label} session run a command that fails (`ls /nonexistent`), then `cogit show tools`: its failure "
                "should be counted. If it is not, update cogit and `cogit install " + agent + "`; hooks.log may say why.",
                extra={**facts, "shell": shell, "failures": 0}))
        ends = [r.get("end") for r in records]
        if "ended" not in ends and "gone" not in ends:
            out.append(Finding(
                "agents", "warn",
                f"{label}'s sessions never end: the last {len(records)} were folded into memory only after "
                f"{stale_minutes:g} minutes of silence (hooks.session_stale_minutes), never by a session end "
                f"(cogit {_version()}). Their lessons and rule evidence arrive late, and a session cut short counts as one.",
                f"Check that cogit's session-end hook is installed for {label} (`cogit install {agent}`) and that "
                f"{label} runs it; hooks.log may say why it does not.",
                extra={**facts, "ended": 0}))
        if not out or out[-1].extra.get("agent") != agent:
            out.append(Finding("agents", "ok", f"{label}'s hooks report failures and session ends "
                                               f"({len(records)} recent sessions)", extra=facts))
    return out
