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
# Off unless turned on (`cogit rules on NAME`): on ordinary work they learn noise. A long run
# is what a user asks for in a migration, and a full context is what exploring a big codebase
# looks like; the in-session senses (Chronos, O2) still speak, but neither makes a rule.
DEFAULT_OFF = ("long_run", "context_flood")


@dataclass
class Detection:
    detector: str
    signature: str  # "" for detectors whose rule is about the behaviour, not one instance
    lesson: str  # the rule text a new rule gets
    evidence: str  # what happened, one line
    trigger: str = ""  # what the rule is about (error_loop: the failing command's program)
    episode: str = ""  # the motor learning of the same episode (the rule replaces it: one item)


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


def _writes_between(calls, a, b, target=None) -> bool:
    """A successful write between trace positions a and b (to `target` when given)."""
    return any(c.get("kind") == "write" and c.get("ok", True) and (target is None or c.get("target") == target)
               for c in calls[a + 1 : b])


# Commands that change nothing: a retry after `sleep 5` is the same attempt, not a fix.
_IDLE = frozenset("sleep true echo date printf wait".split())


def _values(err) -> str:
    from cogit.senses.signature import values_of

    return values_of(err)


def _program(cmd) -> str:
    from cogit.senses.commands import program

    return program(cmd or "")


def _loops(calls, t):
    """The error loops of a session: {signature: [the looping failures]}.

    A loop is `min_failures` failures with the same signature, where no edit changed the
    error's values: red-green TDD's "assert 0 == 3", an edit, then "assert 2 == 3" share a
    normalized signature but are progress, so the count starts again there (`vals`: the error
    as written without its locations, senses.signature.values_of). A failing command that then
    worked unchanged with nothing done in between but waiting (a retried network error) was
    transient, not a loop: there is nothing to learn but "retry"."""
    runs: dict[str, list[int]] = {}
    best: dict[str, list[int]] = {}
    for i, line in enumerate(calls):
        if line.get("ok", True) or not line.get("sig"):
            continue
        run = runs.get(line["sig"])
        if run:
            prev = calls[run[-1]]
            if _writes_between(calls, run[-1], i) and _vals(prev) != _vals(line):
                run = None
        run = runs[line["sig"]] = (run or []) + [i]
        if len(run) > len(best.get(line["sig"], ())):
            best[line["sig"]] = run
    out: dict[str, list[dict]] = {}
    for sig, idx in best.items():
        if len(idx) >= t["min_failures"] and not _transient(calls, idx):
            out[sig] = [calls[i] for i in idx]
    return out


def _vals(line) -> str:
    return line.get("vals") or _values(line.get("err") or line.get("sig"))


def _transient(calls, idx) -> bool:
    last = idx[-1]
    cmd = calls[last].get("cmd")
    if not cmd:
        return False
    for line in calls[last + 1 :]:
        if line.get("kind") == "exec" and line.get("cmd") == cmd:
            return bool(line.get("ok", True))
        if line.get("kind") == "write" or (line.get("kind") == "exec" and _program(line.get("cmd")) not in _IDLE):
            return False
    return False


def error_loop(trace, t, facts=None):
    calls = _calls(trace)
    cwd = str((facts or {}).get("cwd") or "")
    out = []
    for sig, lines in _loops(calls, t).items():
        last = lines[-1]
        what = last.get("cmd") or last.get("target") or last.get("tool") or "?"
        lesson = fix_lesson(calls, calls.index(last), cwd)
        out.append(Detection("error_loop", sig, lesson, f"{len(lines)} failures with \"{_clip(_rel(last.get('err') or sig, cwd), 100)}\" (`{_clip(_rel(what, cwd), 60)}`)",
                             _program(last.get("cmd")), _motor_after(trace, last.get("n", 0)) or ""))
    return out


def _rel(text, cwd: str) -> str:
    """Paths under the project folder, relative to it (a rule is read in other sessions and
    on other machines; a temp or home path in it is noise)."""
    text = str(text or "")
    if cwd and len(cwd) > 1:
        text = text.replace(cwd.rstrip("/") + "/", "").replace(cwd.rstrip("/"), ".")
    return text


def _same_family(a: dict, b: dict) -> bool:
    from cogit.senses.signature import similarity

    if a.get("test") and b.get("test"):
        return True
    ca, cb = str(a.get("cmd") or ""), str(b.get("cmd") or "")
    return bool(ca and cb) and (_program(ca) == _program(cb) or similarity(ca, cb) >= 0.5)


def fix_lesson(calls, last: int, cwd: str = "", limit: int = 220) -> str:
    """The rule a loop teaches, from its first session: what fixed it.

    - The failing command worked changed: "When `A` fails with "E", run `B` instead (added `X`)."
    - It worked unchanged after something was done: "... it worked after <the edits/reads>."
    - It never worked: "... stop after the second identical failure and check the assumption..."
    The error is the one as written (never the normalized signature, which stays the rule's
    `signature` field), paths are relative to the project, and the text is about `limit` chars."""
    failed = calls[last]
    cmd = _clip(_rel(failed.get("cmd") or failed.get("target") or failed.get("tool") or "?", cwd), 70)
    err = _clip(_rel(failed.get("err") or "the same error", cwd), 70)
    head = f'When `{cmd}` fails with "{err}", '
    between = []
    for line in calls[last + 1 :]:
        if line.get("kind") == "exec" and line.get("ok", True) and failed.get("cmd") and _same_family(failed, line):
            fix = str(line.get("cmd") or "")
            if fix != failed.get("cmd"):
                added = [w for w in fix.split() if w not in str(failed["cmd"]).split()]
                how = f" (added `{_clip(' '.join(added), 40)}`)" if added and len(fix) > 60 else ""
                return _clip(head + f"run `{_clip(_rel(fix, cwd), 90)}` instead{how}.", limit)
            if between:
                edits = [b for b in between if b.startswith("editing ")]  # the edit is the fix, not the look around
                return _clip(head + "it worked after " + ", ".join((edits or between)[-2:]) + ".", limit)
            break
        if not line.get("ok", True):
            continue
        if line.get("kind") == "write" and line.get("target"):
            between.append(f"editing {_clip(_rel(line['target'], cwd), 60)}")
        elif line.get("kind") == "exec" and line.get("cmd") and _program(line.get("cmd")) not in _IDLE:
            between.append(f"`{_clip(_rel(line['cmd'], cwd), 50)}`")
        elif line.get("kind") == "read" and line.get("target"):
            between.append(f"reading {_clip(_rel(line['target'], cwd), 60)}")
    return _clip(head + "stop after the second identical failure and check the assumption "
                 "(read the failing source or its docs) before another attempt.", limit)


def _motor_after(trace, n):
    """The motor learning of the episode that resolved this failure (what changed), if any."""
    for line in trace:
        if line.get("motor") and line.get("n", 0) > n:
            return str(line["motor"][0])
    return None


def _rereads(calls) -> dict[str, int]:
    """Per file, the most reads of one part of it (the same offset/limit) with no write to
    it in between. A re-read after an edit is how an agent avoids editing a stale copy, and a
    long file read in parts is one read of each part: neither is a re-read."""
    seen: dict[tuple, int] = {}
    worst: dict[str, int] = {}
    for line in calls:
        target = line.get("target")
        if not target:
            continue
        if line.get("kind") == "write":
            for key in [k for k in seen if k[0] == target]:
                del seen[key]
        elif line.get("kind") == "read" and line.get("ok", True):
            key = (target, line.get("part") or "")
            seen[key] = seen.get(key, 0) + 1
            worst[target] = max(worst.get(target, 0), seen[key])
    return worst


def repeated_read(trace, t):
    counts = _rereads(_calls(trace))
    worst = max(counts.items(), key=lambda kv: kv[1], default=(None, 0))
    if worst[1] >= t["min_reads"]:
        return [Detection("repeated_read", "",
                          "Read a file once and note what matters (in a task list or memory) instead of reading it again.",
                          f"{_base(worst[0])} read {worst[1]} times with no change to it in between")]
    return []


def _search_key(line):
    return f"{line.get('tool')} {line.get('cmd') or line.get('target') or ''}"


def _pattern(line) -> str:
    return str(line.get("target") or "").split(" in ", 1)[0]


def _literal(pattern: str) -> str:
    """A search pattern's longest literal run (regex syntax dropped), lower-cased."""
    runs, cur = [], ""
    for ch in pattern.lower():
        if ch.isalnum() or ch in "_-":
            cur += ch
        else:
            runs.append(cur)
            cur = ""
    runs.append(cur)
    best = max(runs, key=len)
    return best if len(best) >= 3 else "\0"


def _fruitless(calls) -> tuple[int, str]:
    """The worst fruitless repetition of a search: the same search again with nothing written
    in between and the same result, or the same pattern finding nothing (in any folder).
    A search that finds things is progress, and so is one whose result changed after edits
    (the leftovers of a rename shrinking)."""
    same: dict[str, tuple[int, object]] = {}  # key -> (repeats, hits)
    empty: dict[str, int] = {}
    found: set[str] = set()  # a pattern that found things once: zero later is "no leftovers"
    worst = (0, "")
    replaced = ""  # what the session's edits replaced: a search for it after finds nothing on purpose
    for line in calls:
        if line.get("kind") == "write" and line.get("ok", True):
            same.clear()
            replaced += " " + str(line.get("change") or "").lower()
            continue
        if line.get("kind") != "search":
            continue
        key, hits = _search_key(line), line.get("hits")
        n, before = same.get(key, (0, None))
        same[key] = (n + 1, hits) if n == 0 or before == hits else (1, hits)
        worst = max(worst, (same[key][0], key))
        pat = f"{line.get('tool')} {_pattern(line)}"
        if hits or _literal(_pattern(line)) in replaced:
            found.add(pat)
        elif hits == 0:
            empty[pat] = empty.get(pat, 0) + 1
    for pat, n in empty.items():
        if pat not in found:
            worst = max(worst, (n, pat + " (nothing found)"))
    return worst


def circular_search(trace, t):
    n, key = _fruitless(_calls(trace))
    if n >= t["min_repeats"]:
        return [Detection("circular_search", "",
                          "After two searches without an answer, stop repeating them: search more broadly once, or read the code that owns the name.",
                          f"the same search {n} times ({_clip(key, 80)})")]
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


def _untested_at_end(calls) -> tuple[int, set]:
    """Code edits after the last test run, at the end of the session, and the files.

    Docs and config have no tests (only code files count), and a long change that ended with
    a test run (a migration the user asked for) was tested."""
    from cogit.senses.commands import is_code_file

    n, files = 0, set()
    for line in calls:
        if line.get("test"):
            n, files = 0, set()
        elif line.get("kind") == "write" and line.get("ok", True) and is_code_file(line.get("target") or ""):
            n += 1
            files.add(line.get("target"))
    return n, files


def _tests_exist(calls, facts) -> bool:
    from cogit.senses.commands import is_test_file

    if (facts or {}).get("has_tests"):
        return True
    return any(line.get("test") or is_test_file(line.get("target") or "") for line in calls if line.get("kind") != "search")


def edits_without_tests(trace, t, facts=None):
    calls = _calls(trace)
    streak, files = _untested_at_end(calls)
    if streak >= t["min_edits"] and _tests_exist(calls, facts):
        return [Detection("edits_without_tests", "",
                          "Run the relevant tests after each small group of edits, not after many.",
                          f"{streak} code edits to {len(files)} files and no test run after them, in a project with tests")]
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


def _similar(a: str, b: str) -> bool:
    from cogit.senses.signature import similarity

    return bool(a and b) and (a == b or similarity(a, b) >= 0.6)


def relevant(rule: dict, trace, config: dict | None = None, facts: dict | None = None) -> bool:
    """Whether the session came near what `rule` is about: the situation in which the rule
    could have made a difference. Only such a session can suppress it; one that never came
    near it is no evidence either way (and counts toward the rule going dormant).

    - error_loop: a failure with the rule's signature (or a similar one), or a run of the
      command the rule is about (`trigger`, its program family); a general rule: a failure.
    - repeated_read: a file read twice with no change in between (the rule's file, when it
      names one).
    - circular_search: a search run twice, or one that found nothing.
    - edits_without_tests: half the threshold of code edits, in a project with tests.
    - long_run / context_flood (off by default): 40% of the run / one O2 warning.
    - custom: a call of its tool.
    """
    detector = str(rule.get("detector") or "")
    t = thresholds(config)
    calls = _calls(trace)
    if detector == "error_loop":
        sig, trigger = str(rule.get("signature") or ""), str(rule.get("trigger") or "")
        fails = [c for c in calls if not c.get("ok", True)]
        if not sig and not trigger:
            return bool(fails)
        if sig and any(_similar(sig, str(c.get("sig") or "")) for c in fails):
            return True
        return bool(trigger) and any(c.get("kind") == "exec" and _program(c.get("cmd")) == trigger for c in calls)
    if detector == "repeated_read":
        counts = _rereads(calls)
        trigger = str(rule.get("trigger") or "")
        if trigger:
            return any(k == trigger or k.endswith("/" + trigger) for k, v in counts.items() if v >= 2)
        return any(v >= 2 for v in counts.values())
    if detector == "circular_search":
        seen: dict[str, int] = {}
        for c in calls:
            if c.get("kind") == "search":
                if c.get("hits") == 0:
                    return True
                seen[_search_key(c)] = seen.get(_search_key(c), 0) + 1
        return any(v >= 2 for v in seen.values())
    if detector == "edits_without_tests":
        from cogit.senses.commands import is_code_file

        edits = sum(1 for c in calls if c.get("kind") == "write" and is_code_file(c.get("target") or ""))
        return edits >= max(2, t["edits_without_tests"]["min_edits"] // 2) and _tests_exist(calls, facts)
    if detector == "long_run":
        return _longest_run(trace) >= max(1, int(t["long_run"]["min_calls"] * 0.4))
    if detector == "context_flood":
        return any("o2" in (c.get("fired") or []) for c in calls)
    custom = _custom(config).get(detector)
    if custom:
        return any(line.get("tool") == custom["tool"] for line in calls)
    return False


def precondition(detector: str, trace, config: dict | None = None, facts: dict | None = None) -> bool:
    """`relevant` for a general rule of `detector` (no signature, no trigger)."""
    return relevant({"detector": detector}, trace, config, facts)


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


def run(trace: list[dict], config: dict | None = None, facts: dict | None = None, off=()) -> list[Detection]:
    """Every detection in a session's trace, built-in detectors first, in a fixed order.

    `facts`: what the finalize knows of the session's project ({"has_tests": bool}).
    `off`: detectors turned off (DEFAULT_OFF unless turned on; `cogit rules off/on`)."""
    t = thresholds(config)
    out: list[Detection] = []
    for name, fn in DETECT.items():
        if name in off:
            continue
        out += fn(trace, t[name], facts) if name in ("edits_without_tests", "error_loop") else fn(trace, t[name])
    for spec in _custom(config).values():
        if spec["name"] not in off:
            out += custom_detect(spec, trace)
    return out
