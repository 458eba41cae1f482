"""Drift, scope: recent targets no longer related to the terms of the user's last prompt.

`on_prompt` takes the prompt's terms: path parts, identifiers and their parts, and words of
four letters or more that are not stop words. A short continuation ("yes, go on") keeps the
previous terms. The targets of the first `early` calls after the prompt count as on-task too
(the files the agent found for the task). From `min_calls` calls after the prompt on, the
sense speaks when at most `max_related` of the last `recent` calls that have a target share a
term with the prompt or with those early targets. Terms match when equal, or when one is a
prefix of the other of at least four letters (date, dates; export, exporter).
"""

import os

from .base import cool, cooling
from .text import clip, display, listing, tag

NAME = "drift"
MAX_TERMS = 40

_STOP = frozenset(
    """about above after again against also another because been before being below between both could
    does doing done down during each every from further have having here into itself just like make made
    more most much must need needs only other over please same should some such than that their them then
    there these they this those through under until very want what when where which while will with within
    without would your yours thing things something anything everything nothing stuff sure okay yeah yes
    thanks thank look looks looking good great nice fine cool perfect right wrong well better best
    now later soon today still again instead anyway actually maybe perhaps probably really quite rather
    check checks file files code line lines function functions method methods class classes change
    changes changed update updates updated fix fixes fixed add adds added remove removed work works
    working worked test tests testing tested run runs running make sure using use used uses let's it's
    don't can't won't isn't doesn't didn't next first last once more whole also already both either
    ensure keep keeps start stop continue proceed done finish finished implement implemented write
    writes wrote read reads create created new old part parts way ways time times kind sort""".split()
)
_NOISE = frozenset(
    """src lib libs test tests spec specs index main init __init__ home users user work tmp var usr opt
    py pyi js jsx ts tsx mjs cjs go rs md txt json yaml yml toml cfg ini sh rb java the and for not
    venv bin dist build node_modules pkg internal cmd app apps git python python3 pytest npm npx yarn pnpm
    node cargo make grep cat sed head tail echo ls cd rm cp mv mkdir find xargs sort uniq wc awk diff
    status log show install run exec dev null true false def class import from return self const let var
    function async await none print pass elif else try except raise with while yield lambda public private
    static void new this stat stats oneline head origin commit branch checkout stash add pip uv""".split()
)
# file extensions: noise as parts of a path, but a word the user writes ("the json output") counts
_EXT = frozenset("json yaml toml html".split())
# Tokenizing by hand, not with `re`: every prompt and many tool calls pass here, and
# importing `re` costs a hook more than the rest of its work. Each function gives exactly
# what the pattern in its docstring gives with re.findall / re.split
# (tests/senses/test_drift_tokens.py checks them against `re`).
_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_SEPS = frozenset("/\\._-")


def _is_word(ch):
    return ch.isalnum() or ch == "_"  # what \w matches in a str pattern


def words_of(text, extra="./\\-", min_len=1):
    r"""re.findall(r"[A-Za-z_][\w./\\-]*", text); with extra="" and min_len=3:
    re.findall(r"[A-Za-z_]\w{2,}", text)."""
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if not (_is_word(ch) or ch in extra):
            i += 1
            continue
        j = i
        while j < n and (_is_word(text[j]) or text[j] in extra):
            j += 1
        start = next((k for k in range(i, j) if text[k] in _START), None)
        if start is not None and j - start >= min_len:
            out.append(text[start:j])
        i = j
    return out


def _split_seps(token):
    r"""re.split(r"[/\\._\-]+", token)."""
    out, cur = [], []
    i, n = 0, len(token)
    while i < n:
        if token[i] in _SEPS:
            out.append("".join(cur))
            cur = []
            while i < n and token[i] in _SEPS:
                i += 1
            continue
        cur.append(token[i])
        i += 1
    out.append("".join(cur))
    return out


def _camel(chunk):
    r"""re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+", chunk)."""
    out, i, n = [], 0, len(chunk)
    while i < n:
        ch = chunk[i]
        if ch in _UPPER:
            j = i
            while j < n and chunk[j] in _UPPER:
                j += 1
            if j - i >= 2 and j < n and chunk[j] in _LOWER:
                out.append(chunk[i:j - 1])  # an acronym before a capitalised word: HTTP|Server
                i = j - 1
            elif i + 1 < n and chunk[i + 1] in _LOWER:
                k = i + 1
                while k < n and chunk[k] in _LOWER:
                    k += 1
                out.append(chunk[i:k])
                i = k
            else:
                out.append(chunk[i:j])
                i = j
        elif ch in _LOWER:
            k = i
            while k < n and chunk[k] in _LOWER:
                k += 1
            out.append(chunk[i:k])
            i = k
        elif ch.isdecimal():  # what \d matches in a str pattern
            k = i
            while k < n and chunk[k].isdecimal():
                k += 1
            out.append(chunk[i:k])
            i = k
        else:
            i += 1
    return out


def _parts(token):
    out = []
    for chunk in _split_seps(token):
        if not chunk:
            continue
        out.append(chunk.lower())
        out.extend(p.lower() for p in _camel(chunk))
    return out


def _ok(term):
    return len(term) >= 3 and not term.isdigit() and term not in _NOISE and term not in _STOP


def prompt_terms(prompt):
    """The prompt's first MAX_TERMS terms (the caller cuts the prompt: cogit/bounds.py)."""
    terms = []
    for word in words_of(prompt or ""):
        if len(terms) >= MAX_TERMS:
            break
        compound = any(ch in word for ch in "/._\\-") or any(a in _LOWER and b in _UPPER for a, b in zip(word, word[1:]))
        if compound:
            cands = _parts(word.strip("./-"))
        else:
            cands = [word.lower()] if len(word) >= 4 else []
        for t in cands:
            if (_ok(t) or (not compound and t in _EXT)) and t not in terms:
                terms.append(t)
    return terms[:MAX_TERMS]


def call_terms(call, cwd=None):
    """Terms of a call's target: path parts (relative to cwd), search patterns, command words."""
    target = call.get("target") or ""
    if not target:
        return []
    kind = call.get("kind")
    words = []
    if kind == "exec":
        for token in (call.get("cmd") or target).split():
            if token.startswith("-"):
                continue  # an option: --short, -k
            for word in words_of(token):
                if len(word) >= 4:
                    words.extend(_parts(display(word, cwd) if os.path.isabs(word) else word))
    elif kind == "search" and " in " in target:
        pattern, _, where = target.rpartition(" in ")
        for word in words_of(pattern, extra="", min_len=3):
            words.extend(_parts(word))
        where = where.split(" (")[0]
        if where and where != cwd:
            words.extend(_parts(display(where, cwd)))
    elif os.path.isabs(target):
        words = _parts(display(target, cwd))
    else:
        words = _parts(target)
    return list(dict.fromkeys(w for w in words if _ok(w)))


def _related(a, b):
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= 4 and long_.startswith(short)


def _label(call, cwd):
    target = call.get("cmd") or call.get("target") or ""
    if call.get("kind") in ("read", "write") and os.path.isabs(target):
        return display(target, cwd)
    return "`%s`" % clip(target, 50)


def sense(state, call, cfg, cwd=None):
    prompt = state.get("prompt")
    if not isinstance(prompt, dict) or not prompt.get("terms"):
        return None
    since = state["n"] - prompt["n"]
    terms = call_terms(call, cwd)
    call["terms"] = terms
    if since <= cfg["early"]:
        early = prompt.setdefault("early", [])
        for t in terms:
            if t not in early and len(early) < MAX_TERMS:
                early.append(t)
        return None
    if not cfg["enabled"] or since < cfg["min_calls"] or cooling(state, NAME):
        return None
    after = [c for c in state["win"] if c.get("i", 0) > prompt["n"] + cfg["early"] and c.get("terms")]
    recent = after[-max(1, cfg["recent"]):]
    if len(recent) < cfg["recent"]:
        return None
    anchor = list(prompt["terms"]) + list(prompt.get("early") or [])
    related = [c for c in recent if any(_related(t, a) for t in c["terms"] for a in anchor)]
    if len(related) > cfg["max_related"] * len(recent):
        return None
    cool(state, NAME, cfg["cooldown"])
    labels = list(dict.fromkeys(_label(c, cwd) for c in reversed(recent) if c not in related))
    share = "none of which share those terms" if not related else "only %d of them related to those terms" % len(related)
    return (
        '%s The user\'s last prompt was about "%s" (%s); the last %d calls went to %s, %s. '
        "Intended exploration, or has the scope drifted?"
        % (tag(NAME), clip(prompt.get("summary") or "", 80), ", ".join(prompt["terms"][:5]), len(recent),
           listing(labels), share)
    )
