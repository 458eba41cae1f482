"""`cogit demo`: a recorded agent session replayed through the real hooks.

Each event of templates/demo/session.jsonl goes to the installed hook command
(`cogit/launch.py`) as a subprocess, exactly as Claude Code would send it, into a throwaway
memory home. Then a second session starts and we show what it is told, the log
of what changed and the semantic diff.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from importlib import resources
from pathlib import Path

from cogit.launch import background_argv, hook_argv
from cogit.paths import Home
from cogit.store import memory
from cogit.store.git.provenance import Provenance

SESSION_ID = "5d1c0e2a-demo-4b7e-9d0a-2f1c3e5b7a90"
NEXT_SESSION = "7e2f1a3b-demo-4c8f-8e1b-3a2d4f6c8b01"


def recorded_events() -> list[dict]:
    text = resources.files("cogit.templates").joinpath("demo", "session.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _payload(event: dict, session_id: str, cwd: str) -> dict:
    body = json.loads(json.dumps(event).replace("{cwd}", cwd))
    name = body.pop("event")
    base = {"session_id": session_id, "transcript_path": f"{cwd}/.claude/{session_id}.jsonl", "cwd": cwd, "hook_event_name": name}
    if name not in ("SessionStart", "SessionEnd", "PreCompact"):
        base["permission_mode"] = "default"
    base.update(body)
    return base


def hook(home: Path, payload: dict) -> str:
    env = dict(os.environ, COGIT_HOME=str(home))
    env.pop("COGIT_IN_HOOK", None)
    proc = subprocess.run(hook_argv("claude", payload["hook_event_name"]),
                          input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=30)
    return proc.stdout.decode("utf-8", "replace")


def cli(home: Path, *args: str) -> str:
    env = dict(os.environ, COGIT_HOME=str(home))
    env.pop("COGIT_IN_HOOK", None)
    proc = subprocess.run(background_argv(str(home), list(args)), capture_output=True, env=env, timeout=60)
    return proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")


def _json(home: Path, *args: str):
    env = dict(os.environ, COGIT_HOME=str(home))
    env.pop("COGIT_IN_HOOK", None)
    proc = subprocess.run(background_argv(str(home), list(args)), capture_output=True, env=env, timeout=60)
    try:
        return json.loads(proc.stdout.decode("utf-8", "replace") or "[]")
    except ValueError:
        return []


def seed(home: Home) -> str:
    """Memory as a user might have it after a few earlier sessions."""
    memory.init(home)
    memory.write(home, Provenance(event="focus.set", source="cli"),
                 memory.set_focus("Make the store portable across platforms", ["Green CI on Windows", "No data loss"]))
    memory.write(home, Provenance(event="heuristic.add", source="cli"),
                 memory.add_item("heuristics", "Reproduce the failure locally before changing code"))
    memory.write(home, Provenance(event="avoidance.add", source="cli"),
                 memory.add_item("avoidances", "Rewriting working modules while chasing one bug"))
    result = memory.write(home, Provenance(event="learning.add", source="cli"),
                          memory.add_item("learnings", "Run the suite with python -m pytest -q", category="pattern"))
    return result.sha


def run(keep: bool = False, out=print) -> Path | None:
    root = Path(tempfile.mkdtemp(prefix="cogit-demo-"))
    home = Home(root / "home")
    project = root / "project"
    project.mkdir()
    try:
        before = seed(home)
        events = recorded_events()
        out(f"== Replaying a recorded Claude Code session: {len(events)} hook events through `cogit hook claude` ==")
        for event in events:
            payload = _payload(event, SESSION_ID, str(project))
            reply = hook(home.root, payload)
            name = payload["hook_event_name"]
            label = name + (f":{payload.get('tool_name')}" if payload.get("tool_name") else "")
            detail = payload.get("prompt") or (payload.get("tool_input") or {}).get("command") or ""
            out(f"  {label:<28} {str(detail)[:60]}")
            if reply:
                context = json.loads(reply)["hookSpecificOutput"]["additionalContext"]
                if name != "SessionStart":
                    for line in context.splitlines():
                        out(f"      ↳ to the model: {line}")
        cli(home.root, "finalize")
        out("\n== The next session starts: the digest injected into the model ==")
        start = _payload({"event": "SessionStart", "source": "startup"}, NEXT_SESSION, str(project))
        reply = hook(home.root, start)
        out(json.loads(reply)["hookSpecificOutput"]["additionalContext"] if reply else "(nothing injected)")
        out("\n== cogit log -n 6 ==")
        out(cli(home.root, "log", "-n", "6").rstrip())
        out(f"\n== cogit diff {before[:10]} (what the session changed) ==")
        out(cli(home.root, "diff", before).rstrip())
        out("\n== cogit stats ==")
        out(cli(home.root, "stats").rstrip())
        rules = _json(home.root, "rules", "--json")
        if rules:  # the learned rule: where it came from, and how a person takes it back
            rule = rules[0]
            out(f"\n== cogit why {rule['id']} (where the rule came from) ==")
            out(cli(home.root, "why", rule["id"]).rstrip())
            created = [e for e in _json(home.root, "log", "--item", rule["id"], "--json")
                       if e["trailers"].get("Cogit-Event") == "rule.detect"]
            if created:
                sha = created[-1]["sha"]
                out(f"\n== cogit revert {sha[:10]} (take the rule back: it goes, and a tombstone keeps it gone) ==")
                out(cli(home.root, "revert", sha).rstrip())
                out(cli(home.root, "rules", "tombstones").rstrip())
        if keep:
            out(f"\nThe demo memory is kept in {home.root} (try: COGIT_HOME={home.root} cogit log).")
            return home.root
        return None
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
