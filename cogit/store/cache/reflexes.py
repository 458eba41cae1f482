"""The reflex table: the learned rules a hook may give at the moment they matter.

Written by the write path next to the digest cache (runtime/digest/<scope>.reflex.json,
beside <scope>.json) every time the digest is recompiled; read by the hooks
(cogit/hooks/reflex.py) with the standard library alone, before a tool call and at a
failure. Compiling it needs nothing the hook could not have, but it is done here, once per
commit, so the per-call path only reads a small JSON file:

- only the rules the digest may show (confidence above the floor, not dormant:
  domain/rank.ranked), best first, at most MAX_RULES;
- each rule's text redacted again and made frame-neutral (cogit/frame.py), cut to
  MAX_TEXT characters;
- for an error_loop rule built by detectors.fix_lesson ("When `CMD` fails with "E", run
  `FIX` instead."), the failing command and its fix are read out of the text, so the hook
  can tell the command the rule is about from the fix it recommends.

No rule for the reflexes: the file is removed, and a hook's open() fails at once.
"""

from __future__ import annotations

import json

MAX_RULES = 40
MAX_TEXT = 300
REFLEX_DETECTORS = ("error_loop", "repeated_read")


def path_for(digest_path):
    """runtime/digest/<scope>.reflex.json beside runtime/digest/<scope>.json."""
    return digest_path.with_name(digest_path.stem + ".reflex.json")


def _spans(text: str) -> list[str]:
    """The `backticked` spans of a rule text, in order."""
    parts = text.split("`")
    return [parts[i] for i in range(1, len(parts) - 1, 2)]


def entry(rule: dict, allow=()) -> dict | None:
    """One rule as the hooks read it, or None for a rule no reflex is about."""
    from cogit.frame import neutral
    from cogit.redact import redact

    detector = str(rule.get("detector") or "")
    if detector not in REFLEX_DETECTORS or not rule.get("id"):
        return None
    text = neutral(" ".join(redact(str(rule.get("text") or ""), allow)[0].split()))
    if not text:
        return None
    if len(text) > MAX_TEXT:
        text = text[: MAX_TEXT - 1] + "…"
    out = {"id": neutral(str(rule["id"]))[:24], "detector": detector, "text": text}
    if detector == "error_loop":
        out["sig"] = str(rule.get("signature") or "")[:300]
        out["trigger"] = str(rule.get("trigger") or "")[:100]
        spans = _spans(text)
        if text.startswith("When `") and spans:
            out["cmd"] = spans[0][:300]
            if len(spans) > 1 and ", run `" in text:
                out["fix"] = spans[1][:300]
        if not out["sig"] and not out["trigger"] and "cmd" not in out:
            return None  # a general rule ("after two failures, stop"): no moment it is about
    return out


def table(scopes: list[tuple[str, dict]], config, heads: dict) -> dict:
    """The reflex table of a scope's digest: its rules (global and project), best first."""
    from cogit.domain import rank

    allow = tuple((((config or {}).get("redaction") or {}).get("allowlist")) or ())
    rules = []
    for _, state in scopes:
        rules += [r for r in ((state.get("rules") or {}).get("items") or []) if isinstance(r, dict)]
    out = []
    for rule in rank.ranked("rules", rules, config=config):
        e = entry(rule, allow)
        if e:
            out.append(e)
        if len(out) >= MAX_RULES:
            break
    return {"heads": heads, "rules": out}


def write(digest_path, scopes, config, heads) -> None:
    """Write (or remove) the reflex table beside the digest cache at `digest_path`."""
    from cogit.store.git import repo as git

    doc = table(scopes, config, heads)
    target = path_for(digest_path)
    if not doc["rules"]:
        try:
            target.unlink()
        except FileNotFoundError:
            pass
        return
    git.write_atomic(target, json.dumps(doc, ensure_ascii=False).encode("utf-8"), durable=False)
