"""A fast reader for state files in the canonical layout (what `yamlio.canonical` writes).

ruamel.yaml takes tens of milliseconds per file; a pull of a thousand commits would
spend minutes there. Files cogit wrote itself are in one fixed layout, which this
reads with a few string operations. It is sound by construction rather than by
care: the result is accepted only if `yamlio.canonical` renders it back to the very
same text, and the property tests of yamlio check that ruamel.yaml reads that text
as the same data. Anything else (a person's layout, comments inside, anchors) gets
None, and the caller falls back to ruamel.yaml.
"""

from __future__ import annotations

import json
import re
from typing import Any

from cogit.store.state import yamlio

_DECODER = json.JSONDecoder()
_INT = re.compile(r"^-?[0-9]+$")
# Each level of the canonical layout indents by 2, and `{}`/`[]` and the top add at most 2
# levels without indenting: text this deep would be nested about as deep as yamlio refuses.
_MAX_INDENT = 2 * (yamlio.MAX_DEPTH - 2)
_SPECIAL_FLOATS = {".nan": float("nan"), ".inf": float("inf"), "-.inf": float("-inf")}


class _NotCanonical(Exception):
    pass


def read(data: bytes) -> dict | None:
    """The plain document of a canonical file, or None if the text is not canonical.

    The document shares its list entries with earlier results: treat it as read-only."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    header = yamlio.header_of(text)
    body = text[len(header):]
    known = _read_by_entries(header, body)
    if known is not None:
        return known
    lines = body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return _read_lines(header, lines, text)


# Successive versions of a state file share all but a few entries of its `items` list, and a
# pull reads every version: each entry's text is read and proven canonical once. The canonical
# writer renders the top-level keys one after another and each entry of a top-level list from
# the entry alone, so a file is canonical when its other keys (with `items: []` in place of the
# list) are, and each entry's lines are, as `items:` followed by just those lines.
_ENTRIES: dict[str, Any] = {}  # the lines of one entry of a top-level `items` list -> its value
# Bounded by the entries' text, not their count: the values take about three times their text,
# and a walk through 100,000 commits of history filled 20,000 entries (22 MB) before a clear.
_ENTRIES_LIMIT = 2 << 20  # characters of entry text kept (about 8 MB with the values)
_entries_size = 0
_LIST_KEY = "items:"


# With string searches on the whole text, not a loop over its lines: a pull reads thousands
# of versions of hundreds of lines each, and the loop was most of a pull's CPU.
_BLOCK_END = re.compile(r"\n(?!  )")  # the end of the last line indented under `items:`
_ENTRY_START = re.compile(r"\n(?=  -(?: |\n|$))")  # a line `  -` or `  - ...` (an entry's first)


def _read_by_entries(header: str, body: str) -> dict | None:
    """`body` (the text after the header) read entry by entry, or None."""
    if body.startswith(_LIST_KEY + "\n"):
        at = 0
    else:
        at = body.find("\n" + _LIST_KEY + "\n") + 1
        if at == 0:
            return None
    start = at + len(_LIST_KEY) + 1
    if body[start:start + 2] != "  ":  # no line indented under `items:`
        return None
    found = _BLOCK_END.search(body, start)
    end = found.start() if found else len(body)
    block = body[start:end]
    if not (block == "  -" or block.startswith("  -\n") or block.startswith("  - ")):
        return None
    rest = body[end:]
    skeleton_text = body[:at] + _LIST_KEY + " []" + (rest if rest else "\n")
    skeleton = skeleton_text.split("\n")
    if skeleton and skeleton[-1] == "":
        skeleton.pop()
    doc = _read_lines(header, skeleton, header + "\n".join(skeleton) + "\n")
    if doc is None or doc.get("items") != []:
        return None
    items = [_entry(entry) for entry in _ENTRY_START.split(block)]
    if any(item is _NOT_CANONICAL for item in items):
        return None
    doc["items"] = items
    return doc


_NOT_CANONICAL = object()


def _entry(text: str) -> Any:
    """One entry of the `items` list (its lines, as they are in the file), read once."""
    value = _ENTRIES.get(text, _NOT_CANONICAL)
    if value is _NOT_CANONICAL:
        doc = _read_lines("", [_LIST_KEY, *text.split("\n")], _LIST_KEY + "\n" + text + "\n")
        if doc is None or len(doc.get("items") or ()) != 1:
            return _NOT_CANONICAL
        value = doc["items"][0]
        global _entries_size
        if _entries_size + len(text) > _ENTRIES_LIMIT:
            _ENTRIES.clear()
            _entries_size = 0
        _ENTRIES[text] = value
        _entries_size += len(text)
    return value


def _read_lines(header: str, lines: list[str], text: str) -> dict | None:
    """The document of `text` (`header` + `lines`), read whole and proven canonical."""
    try:
        doc, end = _block(lines, 0, 0) if lines else ({}, 0)
    except (_NotCanonical, ValueError, IndexError, RecursionError):
        return None
    if end != len(lines) or not isinstance(doc, dict) or yamlio.canonical(doc, header) != text:
        return None
    return doc


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block(lines: list[str], i: int, indent: int) -> tuple[Any, int]:
    if indent >= _MAX_INDENT:
        raise _NotCanonical  # deep nesting: ruamel.yaml decides, and refuses it past yamlio.MAX_DEPTH
    body = lines[i][indent:]
    if body == "-" or body.startswith("- "):
        return _sequence(lines, i, indent)
    return _mapping(lines, i, indent)


def _mapping(lines: list[str], i: int, indent: int, first: str | None = None) -> tuple[dict, int]:
    out: dict = {}
    while i < len(lines):
        line = first if first is not None else lines[i]
        first = None
        if _indent(line) != indent or line[indent:].startswith("-"):
            break
        key, rest = _key(line[indent:])
        if key in out:
            raise _NotCanonical
        i += 1
        if rest == "" and i < len(lines) and _indent(lines[i]) > indent:
            out[key], i = _block(lines, i, _indent(lines[i]))
        elif rest == "" and i < len(lines) and _indent(lines[i]) == indent and lines[i][indent:].startswith("- "):
            raise _NotCanonical  # canonical lists are indented under their key
        else:
            out[key] = _scalar(rest)
    return out, i


def _sequence(lines: list[str], i: int, indent: int) -> tuple[list, int]:
    out: list = []
    while i < len(lines) and _indent(lines[i]) == indent and (lines[i][indent:] == "-" or lines[i][indent:].startswith("- ")):
        item = lines[i][indent + 2:]
        if _is_pair(item):
            # The first key sits after "- "; the others line up under it.
            value, after = _mapping(lines, i, indent + 2, first=" " * (indent + 2) + item)
            if after == i:  # e.g. "-  x: y": no progress means not canonical (and no endless loop)
                raise _NotCanonical
            out.append(value)
            i = after
        else:
            out.append(_scalar(item))
            i += 1
    return out, i


def _is_pair(text: str) -> bool:
    if text.startswith('"'):
        _, end = _DECODER.raw_decode(text)
        return text[end:end + 1] == ":"
    return ": " in text or text.endswith(":")


def _key(text: str) -> tuple[str, str]:
    if text.startswith('"'):
        key, end = _DECODER.raw_decode(text)
        rest = text[end:]
    else:
        key, sep, after = text.partition(":")
        if not sep:
            raise _NotCanonical
        rest = ":" + after
    if rest == ":":
        return str(key), ""
    if not rest.startswith(": "):
        raise _NotCanonical
    return str(key), rest[2:]


def _scalar(text: str) -> Any:
    if text == "":
        return None
    if text in ("true", "false"):
        return text == "true"
    if text == "{}":
        return {}
    if text == "[]":
        return []
    if text.startswith('"'):
        value, end = _DECODER.raw_decode(text)
        if end != len(text) or not isinstance(value, str):
            raise _NotCanonical
        return value
    if (text[0].isdigit() or text[0] in "-.") and len(text) > yamlio.MAX_NUMBER_CHARS:
        raise _NotCanonical  # ruamel.yaml decides (it refuses numbers this long)
    if _INT.match(text):
        return int(text)
    if text in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[text]
    if text[0].isdigit() or text[0] in "-.":
        return float(text)
    return text
