"""The session's evidence record, written by the hooks (standard library only).

Each tool call the senses saw becomes one compact line in runtime/sessions/<id>/trace.jsonl
(tool, kind, success, error signature, target, command, test run, size, which senses fired
and what they said, motor learnings); each user prompt a marker line. The file is bounded
(`hooks.max_records` lines, default 1,000); the number of calls beyond the bound is kept in
the state, so the fold can say what was not analysed. `cogit finalize` runs the detectors
(cogit/learn/detectors.py) over it when the session is folded.

The per-session counts of each sense's firings go into the session's aggregate
(`agg["senses"]`), so the fold commit lists them.
"""


import os

from cogit import jsonio

TRACE = "trace.jsonl"
CLIP = 160
MAX_EVIDENCE = 300
MAX_SHOWN = 80


def _clip(value, limit=CLIP):
    if not isinstance(value, str) or not value:
        return None
    return value if len(value) <= limit else value[: limit - 1] + "…"


def trace_path(home_root: str, session_id: str) -> str:
    from cogit.paths import safe_name

    return os.path.join(home_root, "runtime", "sessions", safe_name(session_id), TRACE)


def _append(home_root: str, state: dict, line: dict, limit: int) -> None:
    if state.get("trace_n", 0) >= limit:
        state["trace_lost"] = state.get("trace_lost", 0) + 1
        return
    state["trace_n"] = state.get("trace_n", 0) + 1
    fd = os.open(trace_path(home_root, str(state.get("session_id"))), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, (jsonio.dumps(line) + "\n").encode("utf-8"))
    finally:
        os.close(fd)


def note_call(home_root: str, state: dict, call: dict, text, learnings, cfg: dict) -> None:
    """One tool call as the senses saw it (`call` from senses.make_call, `text` what they said)."""
    senses = state.get("senses") or {}
    fired = [s for s in (senses.get("last") or []) if isinstance(s, str)]
    line = {"n": state.get("n_calls", 0), "tool": call.get("tool"), "kind": call.get("kind"), "ok": bool(call.get("ok", True))}
    for key, limit in (("sig", CLIP), ("target", 200), ("cmd", 200)):
        value = _clip(call.get(key), limit)
        if value:
            line[key] = value
    if call.get("err") and not line["ok"]:
        line["err"] = _clip(call["err"], CLIP)  # the error as written (for the rule's text)
        line["vals"] = _clip(call.get("vals") or "", 200) or line["err"]  # its values: TDD's changing ones are progress
    if call.get("part"):
        line["part"] = _clip(call["part"], 40)  # a long file read in parts is not a re-read
    if call.get("change"):
        line["change"] = _clip(call["change"], CLIP)  # what an Edit replaced: a search for it after is a check
    if call.get("hits") is not None:
        line["hits"] = int(call["hits"])  # a search that found things is progress
    if call.get("is_test"):
        line["test"] = call.get("scope") or True
    if call.get("size"):
        line["size"] = int(call["size"])
    if fired:
        line["fired"] = fired
        line["ev"] = _clip(text, MAX_EVIDENCE)
        agg = state.get("agg")
        if isinstance(agg, dict):
            counts = agg.setdefault("senses", {})
            for name in fired:
                counts[name] = counts.get(name, 0) + 1
    if learnings:
        line["motor"] = [_clip(str(x.get("text") or ""), 400) for x in learnings if isinstance(x, dict)]
    _append(home_root, state, line, int((cfg.get("hooks") or {}).get("max_records", 1000)))


def note_prompt(home_root: str, state: dict, cfg: dict, prompt=None) -> None:
    """The user wrote: a marker (a long run without the user is counted between these).
    The session's first prompt is kept as its title (cogit/learn/prompts.py `title`)."""
    if prompt is not None and not state.get("title"):
        from cogit.learn.prompts import title

        state["title"] = title(prompt)
    _append(home_root, state, {"n": state.get("n_calls", 0), "prompt": True}, int((cfg.get("hooks") or {}).get("max_records", 1000)))


def shown_ids(text: str) -> list[str]:
    """The `[x-hex]` item ids a digest showed (string search: `re` costs milliseconds to import)."""
    out, start = [], 0
    while len(out) < MAX_SHOWN and (i := text.find("[", start)) >= 0:
        end = text.find("]", i, i + 24)
        start = i + 1
        if end < 0:
            continue
        prefix, dash, rest = text[i + 1 : end].partition("-")
        if dash and 1 <= len(prefix) <= 3 and prefix.isalpha() and prefix.islower() and 4 <= len(rest) <= 16 and all(c in "0123456789abcdef" for c in rest):
            out.append(text[i + 1 : end])
    return out


def read_trace(path: str, start: int = 0) -> list[dict]:
    """The trace lines from line `start` on (a torn last line is skipped)."""
    out = []
    try:
        with open(path, encoding="utf-8") as f:
            for index, line in enumerate(f):
                if index < start:
                    continue
                try:
                    value = jsonio.loads(line)
                except ValueError:
                    continue
                if isinstance(value, dict):
                    out.append(value)
    except OSError:
        pass
    return out
