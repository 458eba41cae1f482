"""Detectors: a finished session's trace -> the failure patterns that happened in it.

Pure functions over the lines of runtime/sessions/<id>/trace.jsonl (cogit/learn/record.py).
Each detector answers two questions about a session:

- `detect`: did its pattern happen? -> Detection(detector, signature, lesson, evidence)
- `precondition`: did the session do the kind of work the pattern is about (ran commands,
  read files, searched, edited...)? A rule that was injected, whose precondition held and
  whose pattern did not happen earns a suppression (cogit/learn/rules.py).

Built in (thresholds in config `learning.detectors`):

| detector | pattern | precondition |
|---|---|---|
| error_loop | the same normalized error `min_failures` (3) or more times; signature = the error | ran a command |
| repeated_read | one file read `min_reads` (4) or more times | `min_reads` - 1 reads |
| circular_search | the same search (tool, pattern, path) `min_repeats` (3) or more times | 2 searches |
| long_run | `min_calls` (50) tool calls in a row without the user | a run of 40% of that |
| edits_without_tests | `min_edits` (8) edits in a row without a test run | 3 edits |
| context_flood | the O2 sense (context filling fast) fired `min_warnings` (2) or more times | 10 tool calls |

User-defined detectors (config `learning.custom_detectors`, schema-validated): `name`,
`tool`, optional `target` (a substring of the target or command) or `error` (a substring
of the error signature: only failed calls count), `threshold`, `lesson`.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULTS = {
    "error_loop": {"min_failures": 3},
    "repeated_read": {"min_reads": 4},
    "circular_search": {"min_repeats": 3},
    "long_run": {"min_calls": 50},
    "edits_without_tests": {"min_edits": 8},
    "context_flood": {"min_warnings": 2},
}
BUILTIN = tuple(DEFAULTS)


@dataclass
class Detection:
    detector: str
    signature: str  # "" for detectors whose rule is about the behaviour, not one instance
    lesson: str  # the rule text a new rule gets
    evidence: str  # what happened, one line


def _clip(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _base(target: str) -> str:
    return target.rsplit("/", 1)[-1] if target else "?"


def thresholds(config: dict | None) -> dict:
    out = {k: dict(v) for k, v in DEFAULTS.items()}
    for name, values in (((config or {}).get("learning") or {}).get("detectors") or {}).items():
        if name in out and isinstance(values, dict):
            out[name].update({k: v for k, v in values.items() if k in out[name]})
    return out


def _calls(trace):
    return [line for line in trace if "tool" in line]


def error_loop(trace, t):
    counts: dict[str, list[dict]] = {}
    for line in _calls(trace):
        if not line.get("ok", True) and line.get("sig"):
            counts.setdefault(line["sig"], []).append(line)
    out = []
    for sig, lines in counts.items():
        if len(lines) >= t["min_failures"]:
            what = lines[-1].get("cmd") or lines[-1].get("target") or lines[-1].get("tool") or "?"
            motor = _motor_after(trace, lines[-1].get("n", 0))
            lesson = motor or (
                f'When `{_clip(what, 80)}` fails with "{_clip(sig, 100)}", stop after the second identical failure: '
                "read the failing source or its docs and check the assumption before another attempt."
            )
            out.append(Detection("error_loop", sig, lesson, f"{len(lines)} failures with \"{_clip(sig, 100)}\" (`{_clip(what, 60)}`)"))
    return out


def _motor_after(trace, n):
    """The motor learning of the episode that resolved this failure (what changed), if any."""
    for line in trace:
        if line.get("motor") and line.get("n", 0) > n:
            return str(line["motor"][0])
    return None


def repeated_read(trace, t):
    counts: dict[str, int] = {}
    for line in _calls(trace):
        if line.get("kind") == "read" and line.get("target"):
            counts[line["target"]] = counts.get(line["target"], 0) + 1
    worst = max(counts.items(), key=lambda kv: kv[1], default=(None, 0))
    if worst[1] >= t["min_reads"]:
        return [Detection("repeated_read", "",
                          "Read a file once and note what matters (in a task list or memory) instead of reading it again.",
                          f"{_base(worst[0])} read {worst[1]} times")]
    return []


def _search_key(line):
    return f"{line.get('tool')} {line.get('cmd') or line.get('target') or ''}"


def circular_search(trace, t):
    counts: dict[str, int] = {}
    for line in _calls(trace):
        if line.get("kind") == "search":
            key = _search_key(line)
            counts[key] = counts.get(key, 0) + 1
    worst = max(counts.items(), key=lambda kv: kv[1], default=(None, 0))
    if worst[1] >= t["min_repeats"]:
        return [Detection("circular_search", "",
                          "After two searches without an answer, stop repeating them: search more broadly once, or read the code that owns the name.",
                          f"the same search {worst[1]} times ({_clip(worst[0], 80)})")]
    return []


def _longest_run(trace) -> int:
    longest = run = 0
    for line in trace:
        if line.get("prompt"):
            run = 0
        elif "tool" in line:
            run += 1
            longest = max(longest, run)
    return longest


def long_run(trace, t):
    run = _longest_run(trace)
    if run >= t["min_calls"]:
        return [Detection("long_run", "",
                          "Check in with the user at milestones instead of running long stretches alone.",
                          f"{run} tool calls in a row without the user")]
    return []


def _longest_untested(trace) -> int:
    longest = streak = 0
    for line in _calls(trace):
        if line.get("test"):
            streak = 0
        elif line.get("kind") == "write":
            streak += 1
            longest = max(longest, streak)
    return longest


def edits_without_tests(trace, t):
    streak = _longest_untested(trace)
    if streak >= t["min_edits"]:
        return [Detection("edits_without_tests", "",
                          "Run the relevant tests after each small group of edits, not after many.",
                          f"{streak} edits in a row without a test run")]
    return []


def context_flood(trace, t):
    n = sum(1 for line in _calls(trace) if "o2" in (line.get("fired") or []))
    if n >= t["min_warnings"]:
        return [Detection("context_flood", "",
                          "Keep the context lean: read files in parts, filter command output, hand broad exploration to a subagent.",
                          f"context filling fast, {n} warnings")]
    return []


DETECT = {
    "error_loop": error_loop,
    "repeated_read": repeated_read,
    "circular_search": circular_search,
    "long_run": long_run,
    "edits_without_tests": edits_without_tests,
    "context_flood": context_flood,
}


def precondition(detector: str, trace, config: dict | None = None) -> bool:
    """Whether the session did the kind of work `detector` is about (needed for a suppression)."""
    t = thresholds(config)
    calls = _calls(trace)
    kinds = [line.get("kind") for line in calls]
    if detector == "error_loop":
        return "exec" in kinds
    if detector == "repeated_read":
        return kinds.count("read") >= t["repeated_read"]["min_reads"] - 1
    if detector == "circular_search":
        return kinds.count("search") >= 2
    if detector == "long_run":
        return _longest_run(trace) >= max(1, int(t["long_run"]["min_calls"] * 0.4))
    if detector == "edits_without_tests":
        return kinds.count("write") >= 3
    if detector == "context_flood":
        return len(calls) >= 10
    custom = _custom(config).get(detector)
    if custom:
        return any(line.get("tool") == custom["tool"] for line in calls)
    return False


def _custom(config) -> dict:
    items = ((config or {}).get("learning") or {}).get("custom_detectors") or []
    return {str(c["name"]): c for c in items if isinstance(c, dict) and c.get("name") and c.get("tool")}


def custom_detect(spec: dict, trace) -> list[Detection]:
    n = 0
    for line in _calls(trace):
        if line.get("tool") != spec["tool"]:
            continue
        if spec.get("error"):
            if line.get("ok", True) or str(spec["error"]).lower() not in str(line.get("sig") or "").lower():
                continue
        if spec.get("target") and str(spec["target"]) not in f"{line.get('target') or ''} {line.get('cmd') or ''}":
            continue
        n += 1
    if n >= int(spec.get("threshold", 3)):
        lesson = spec.get("lesson") or f"Avoid repeating {spec['tool']} {spec.get('target') or spec.get('error') or ''} ({spec['name']})."
        return [Detection(str(spec["name"]), "", _clip(lesson, 500), f"{n} matching {spec['tool']} calls")]
    return []


def run(trace: list[dict], config: dict | None = None) -> list[Detection]:
    """Every detection in a session's trace, built-in detectors first, in a fixed order."""
    t = thresholds(config)
    out: list[Detection] = []
    for name, fn in DETECT.items():
        out += fn(trace, t[name])
    for spec in _custom(config).values():
        out += custom_detect(spec, trace)
    return out
