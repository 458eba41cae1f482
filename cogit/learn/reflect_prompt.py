"""What a reflection asks: the prompt, from the state and the recent sessions, and the
schema its answer must follow.

Split from cogit/learn/reflect.py (which asks and commits).
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources


# --------------------------------------------------------------------------- the prompt


def answer_schema() -> dict:
    from cogit.store.state.schema import schema

    return schema("reflection-answer")


def template() -> str:
    return resources.files("cogit.templates").joinpath("prompts", "reflect.md").read_text("utf-8")


def _bullets(lines: list[str], empty: str = "(none)") -> str:
    return "\n".join(f"- {' '.join(str(x).split())[:300]}" for x in lines) or empty


def build_prompt(state: dict, sessions: list[str], config=None) -> str:
    from cogit.learn import detectors
    from cogit.domain import rank

    focus = state.get("focus") or {}
    focus_text = " ".join(str(focus.get("current") or "(none)").split())
    if focus.get("priorities"):
        focus_text += "\nPriorities: " + "; ".join(str(p) for p in focus["priorities"])
    items = lambda s: (state.get(s) or {}).get("items") or []  # noqa: E731
    heur = [f"{i['text']} (used {i.get('use_count', 0)}x) [{i['id']}]" for i in rank.ranked("heuristics", items("heuristics"))[:20]]
    learn = [f"[{i.get('category', 'insight')}] {i['text']}" for i in rank.ranked("learnings", items("learnings"))[:20]]
    avoid = [i["text"] for i in items("avoidances")][:20]
    rules = [f"{i['text']} (detector {i.get('detector')}, detections {i.get('detections', 0)}, suppressions {i.get('suppressions', 0)}) [{i['id']}]"
             for i in items("rules")][:20]
    tools = (state.get("tools") or {})
    tool_lines = []
    for name, t in sorted((tools.get("tools") or {}).items(), key=lambda kv: -int(kv[1].get("calls", 0)))[:20]:
        calls, fails = int(t.get("calls", 0)), int(t.get("failures", 0))
        mean = int(t.get("duration_ms_total", 0)) // max(1, int(t.get("timed_calls", 0)))
        tool_lines.append(f"{name}: {calls} calls, {1 - fails / calls if calls else 1:.0%} success, {mean} ms mean")
    seqs = sorted((tools.get("sequences") or {}).items(), key=lambda kv: (-int(kv[1]), kv[0]))[:10]
    refl = [f"[{i.get('kind')}] {i['text']}" for i in items("reflections")][-10:]
    schema_text = json.dumps(_wire_schema(), indent=1)
    names = ", ".join(list(detectors.BUILTIN) + list(detectors._custom(config)))
    values = {
        "focus": focus_text, "heuristics": _bullets(heur), "learnings": _bullets(learn), "avoidances": _bullets(avoid),
        "rules": _bullets(rules), "tools": _bullets(tool_lines), "sequences": _bullets([f"{k} ({v}x)" for k, v in seqs]),
        "sessions": _bullets(sessions), "reflections": _bullets(refl), "schema": schema_text, "detectors": names,
    }
    text = template()
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def _wire_schema() -> dict:
    """The answer schema as sent to a server (without $schema/$id, which some reject)."""
    return {k: v for k, v in answer_schema().items() if k not in ("$schema", "$id", "title", "description")}


def prompt_hash(prompt: str) -> str:
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:16]
