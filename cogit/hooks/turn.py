"""Per-turn injection: at each user prompt, only what changed in memory since this
session's last injection. Standard library only (every prompt comes through here).

The write path recompiles runtime/digest/<scope>.json after every commit, with the
branch heads it was compiled from (`heads`), the newest items of each scope with the
line the digest shows for them (`fresh`) and every item id (`ids`); see
cogit/digest/assemble.py `fresh`. A session keeps the heads it last saw (`mem_marker`) and
the ids it knows (`mem_known`): at a prompt, equal heads mean nothing changed (one small
file read, no git), and otherwise the session is told the fresh items it does not know,
within `digest.turn_max_chars`. Items this session queued itself (`mem_own`) are not
told back: the model was already told they were noted. Each injection is a receipt
(source `turn`), folded into the session's commit like the session-start digest.
"""


import time

OPEN = "<cogit-memory-update>"
CLOSE = "</cogit-memory-update>"
HEAD = "New in memory since this session's last memory update (another session, a pull or an edit):"
GONE = "No longer in memory (forgotten, reverted or pruned); do not rely on them:"
FOCUS = "The focus is now:"
DEFAULT_MAX_CHARS = 600
MAX_KNOWN = 400
MAX_OWN = 20
MAX_RECEIPTS = 10


def _norm(text) -> str:
    return " ".join(str(text or "").split())


def known_ids(digest: dict) -> list[str]:
    """The ids a session knows once it was shown this digest: the fresh ones first (they
    are the ones compared), then every other id, bounded."""
    fresh = [f.get("id") for f in digest.get("fresh") or [] if isinstance(f, dict)]
    out = [i for i in fresh if isinstance(i, str)]
    seen = set(out)
    for i in digest.get("ids") or ():
        if isinstance(i, str) and i not in seen:
            out.append(i)
            seen.add(i)
    if not out and digest.get("text"):  # a cache written before `fresh` existed
        from cogit.learn.record import shown_ids

        out = shown_ids(digest["text"])
    return out[:MAX_KNOWN]


def saw(state: dict, digest: dict | None) -> None:
    """The session was shown this digest (whole, at session start): remember its version."""
    if digest:
        state["mem_marker"] = digest.get("heads") or {}
        state["mem_known"] = known_ids(digest)
        state["mem_focus"] = digest.get("focus") or ""


def own(state: dict, text: str) -> None:
    """This session queued `text` itself: never announce it back to it."""
    state["mem_own"] = (state.get("mem_own") or [])[-(MAX_OWN - 1):] + [_norm(text)]


def receipt(state: dict, source: str, branch: str, digest: dict, text: str, cut: int, shown: list[str],
            withheld: list[str] | None = None) -> None:
    state["receipts"] = (state.get("receipts") or [])[-(MAX_RECEIPTS - 1):] + [
        {
            "t": time.time(),
            "source": source,
            "branch": branch,
            "commit": (digest.get("heads") or {}).get(branch),
            "chars": len(text),
            "tokens": (len(text) + 3) // 4,
            "cut": cut,
            "shown": shown,  # learning loop: which rules were injected
            "withheld": list(withheld or []),  # and which were left out on purpose (hooks/withhold.py)
        }
    ]


def changes(state: dict, digest: dict | None, branch: str, limit: int) -> str | None:
    """Under the session lock: the update to inject at this prompt, or None. Moves the
    session's marker forward either way, so each change is told at most once."""
    if not digest or limit <= 0:
        return None
    heads = digest.get("heads")
    if not isinstance(heads, dict) or not heads or heads == state.get("mem_marker"):
        return None  # the common case: nothing committed since the last look
    if "mem_marker" not in state:
        # A part that began without a session-start injection (resumed after its records
        # were folded, hooks installed mid-session): what memory held before is not news;
        # count from here.
        saw(state, digest)
        return None
    known = set(state.get("mem_known") or ())
    mine = set(state.get("mem_own") or ())
    new = [f for f in digest.get("fresh") or () if isinstance(f, dict) and isinstance(f.get("line"), str)
           and f.get("id") not in known and _norm(f.get("text")) not in mine and f.get("id") not in (state.get("withheld") or ())]
    # What left memory, and a new focus: told once, like what was added (issue 22 part 6).
    ids = digest.get("ids")
    present = set(i for i in ids if isinstance(i, str)) if isinstance(ids, list) else None
    gone = [i for i in state.get("mem_known") or () if isinstance(i, str) and len(i) <= 24
            and all(c.isalnum() or c == "-" for c in i) and i not in present] if present is not None else []
    focus = digest.get("focus") if isinstance(digest.get("focus"), str) else None
    focus_news = focus if focus and "mem_focus" in state and focus != state.get("mem_focus") else None
    state["mem_marker"] = heads
    state["mem_known"] = known_ids(digest)
    if focus is not None:
        state["mem_focus"] = focus
    if not new and not gone and not focus_news:
        return None
    head = [OPEN]
    if focus_news:
        head.append(_norm(f"{FOCUS} {focus_news}").replace("<", "‹")[:240])  # memory text never ends the block
    if gone:
        listed = ", ".join(f"[{i}]" for i in gone[:12]) + (f" and {len(gone) - 12} more" if len(gone) > 12 else "")
        head.append(f"{GONE} {listed}")
    if not new:
        text = "\n".join(head + [CLOSE])
        receipt(state, "turn", branch, digest, text, 0, [])
        return text
    lines = head + [HEAD]
    size = sum(len(x) + 1 for x in lines) + len(CLOSE) + 1
    reserve = 60  # for the "(n more ...)" line
    shown: list[str] = []
    from cogit.frame import neutral

    for f in new:
        line = neutral(_norm(f["line"]))  # (the cache's lines are neutral; one written by an older cogit may not be)
        room = limit - size - reserve - 1
        if len(line) > room:
            if shown or room < 40:
                continue  # a long item does not stop a shorter one from fitting
            line = line[: room - 1] + "…"  # the first item always shows, cut to the budget
        lines.append(line)
        shown.append(str(f.get("id")))
        size += len(line) + 1
    cut = len(new) - len(shown)
    if cut:
        lines.append(f"({cut} more: see `cogit show`)")
    lines.append(CLOSE)
    text = "\n".join(lines)
    receipt(state, "turn", branch, digest, text, cut, shown)
    return text
