"""What a session's fold commit records of the session beyond its counts: its title (the
first prompt, cogit/learn/prompts.py `title`) and the rules it was shown.

The report titles sessions by `Cogit-Title` and counts "shown in N sessions" by
`Cogit-Shown`: every rule id in the part's injection receipts, whatever their source (the
session-start digest, a per-prompt update, a reflex). A prompt is hostile text: the title
is redacted whole (the hook kept a head cut only at white space), every absolute path in
it is shortened to its last part (a title names a file, never where a home or a checkout
is), and it is cut to TITLE_MAX; the store redacts every trailer again before the commit,
and the report only ever shows it as text.
"""

from __future__ import annotations

TITLE_MAX = 100  # characters of a title
SHOWN_MAX = 280  # characters of the rule ids (a trailer holds 300)
_OPEN = "\"'`([{<"
_CLOSE = "\"'`)]}>,.;:!?"


def short_path(word: str) -> str:
    """`/home/me/src/app.py` -> `…/app.py`; `~/x/y`, `C:\\x\\y`, `file:///x/y` alike; other words as they are."""
    lead = len(word) - len(word.lstrip(_OPEN))
    core = word[lead:]
    body = core.rstrip(_CLOSE)
    tail = core[len(body):]
    path = body[7:] if body.lower().startswith("file://") else body
    drive = len(path) > 2 and path[0].isalpha() and path[1] == ":" and path[2] in "\\/"
    if not (drive or path.startswith(("/", "~/", "~\\"))) or len(path.strip("/\\~")) == 0 or any(c in path for c in '<>|*?"'):
        return word
    last = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    return word[:lead] + ("…/" + last if last and not (drive and len(last) == 2) else "…") + tail


def title(text) -> str:
    """A session's title as it is stored: redacted, no absolute path, one line, bounded."""
    from cogit.redact import redact

    text = " ".join(str(text or "").split())
    if not text:
        return ""
    text = " ".join(short_path(w) for w in redact(text)[0].split())
    return text if len(text) <= TITLE_MAX else text[: TITLE_MAX - 1].rstrip() + "…"


def _is_rule_id(value) -> bool:
    prefix, dash, rest = str(value).partition("-")
    return prefix == "ru" and bool(dash) and 4 <= len(rest) <= 16 and all(c in "0123456789abcdef" for c in rest)


def shown_rules(receipts) -> str:
    """The rule ids of every receipt, once each, in order; bounded, with how many were left out."""
    ids: list[str] = []
    for r in receipts or []:
        for i in (r.get("shown") or []) if isinstance(r, dict) else []:
            if isinstance(i, str) and _is_rule_id(i) and i not in ids:
                ids.append(i)
    kept, size = [], 0
    for i in ids:
        if size + len(i) + 1 > SHOWN_MAX - 12:
            break
        kept.append(i)
        size += len(i) + 1
    more = len(ids) - len(kept)
    return " ".join(kept) + (f" +{more} more" if more else "")


def parse_shown(value: str) -> list[str]:
    """The rule ids of a `Cogit-Shown` trailer (its `+N more` is not an id)."""
    return [w for w in str(value or "").split() if _is_rule_id(w)]


def fold_trailers(pending: dict) -> dict[str, str]:
    out = {}
    name = title(pending.get("title"))
    if name:
        out["Cogit-Title"] = name
    shown = shown_rules(pending.get("receipts"))
    if shown:
        out["Cogit-Shown"] = shown
    return out
