"""Validation of state documents against `schemas/`, with file, line and field.

The schemas ship inside the wheel (package `cogit.schemas`) and are read through
importlib.resources, so an installed cogit validates exactly what its tests did.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime
from functools import lru_cache
from typing import Any

# jsonschema (with referencing, attrs, rpds: about 40 ms) is imported only for a schema
# cogit/store/state/schemacheck.py refuses (none of schemas/ today), never by reading memory.

from cogit.errors import InvalidState
from cogit.store.state import yamlio

SECTIONS = (
    "focus",
    "heuristics",
    "learnings",
    "avoidances",
    "engagement",
    "tools",
    "reflections",
    "rules",
    "config",
)


@lru_cache(maxsize=None)
def schema(section: str) -> dict:
    # The file beside this package when installed as files (a plain open, where
    # importlib.resources would import its readers and zipfile on a cold write);
    # importlib.resources when cogit runs from a zip.
    for folder in _SCHEMAS:
        try:
            with open(os.path.join(folder, f"{section}.schema.json"), encoding="utf-8") as f:
                return json.loads(f.read())
        except FileNotFoundError:
            continue
    from importlib import resources

    return json.loads(resources.files("cogit.schemas").joinpath(f"{section}.schema.json").read_text("utf-8"))


# cogit/schemas/ of an installed cogit; schemas/ beside the package in a checkout (an
# editable install maps the package cogit.schemas there). cogit/store/state/ is three
# levels below the package's parent.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_SCHEMAS = (os.path.join(_PACKAGE, "schemas"), os.path.join(os.path.dirname(_PACKAGE), "schemas"))


# jsonschema checks `format: date-time` only when an optional package is installed;
# cogit checks it itself: RFC 3339 (what `now_iso` writes: 2026-11-30T10:00:00Z), with
# an offset (Z or +01:00), optional fractions, and a real date and time.
_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})")
@lru_cache(maxsize=None)
def formats():
    """The format checker of every validator: `date-time` checked by `_is_date_time`."""
    from jsonschema import FormatChecker

    checker = FormatChecker(formats=())
    checker.checks("date-time", raises=ValueError)(_is_date_time)
    return checker


def _is_date_time(value) -> bool:
    if not isinstance(value, str):
        return True  # the type keyword speaks for other types
    if not _DATE_TIME.fullmatch(value):
        return False
    # fromisoformat checks the ranges (month 13, Feb 30, hour 25); it wants an upper-case
    # Z-less offset and at most 6 fraction digits.
    date, time_part = value[:10], value[11:19]
    offset = value[19:].lstrip(".0123456789").upper().replace("Z", "+00:00")
    datetime.fromisoformat(f"{date}T{time_part}{offset}")
    return True


_ID = {"heuristics": "h", "learnings": "l", "avoidances": "a", "reflections": "rf", "rules": "ru"}
_ID_TEXT = re.compile(r"[a-z]{1,3}-[0-9a-f]{4,16}")


@lru_cache(maxsize=None)
def validator(section: str):
    """The section's validator, prepared once per process (see `prepare`)."""
    return prepare(schema(section))


def prepare(sch: dict):
    """`sch` compiled by cogit/store/state/schemacheck.py, which implements the part of JSON Schema
    cogit's schemas use and refuses the rest; a schema it refuses is validated by jsonschema
    (imported only then). Either answers `iter_errors` with errors that have `path`,
    `message`, `validator`, `validator_value` and `instance`."""
    from cogit.store.state import schemacheck

    try:
        return schemacheck.compile_schema(sch, {"date-time": _is_date_time})
    except schemacheck.Unsupported:
        from jsonschema import Draft202012Validator

        return Draft202012Validator(sch, format_checker=formats())


def _message(error) -> str:
    """jsonschema's message, said in cogit's words where it is cryptic."""
    if error.validator == "format" and error.validator_value == "date-time":
        return f"{error.instance!r} is not a time in ISO 8601 form like 2026-11-30T10:00:00Z"
    if error.validator == "pattern" and list(error.path)[-1:] == ["id"]:
        prefix = error.validator_value[1:].split("-", 1)[0]
        return f"{error.instance!r} is not an id of this file: {prefix}- and 4 to 16 hex digits, like {prefix}-3f2a9c"
    return error.message


def id_problems(section: str, doc: Any) -> list[tuple[list, str]]:
    """Duplicate ids in a section (ids name items in history, merges and `cogit forget`),
    and ids the schema's pattern lets through only because Python's `$` allows a final newline."""
    items = doc.get("items") if isinstance(doc, dict) and section in _ID else None
    if not isinstance(items, list):
        return []
    seen: dict[str, int] = {}
    out = []
    for index, item in enumerate(items):
        item_id = item.get("id") if isinstance(item, dict) else None
        if not isinstance(item_id, str):
            continue
        if item_id in seen:
            out.append((["items", index, "id"], f"duplicate id {item_id!r} (item {seen[item_id]} has it too); "
                                                  "give one of them a new id or remove it"))
        elif not _ID_TEXT.fullmatch(item_id):
            out.append((["items", index, "id"], f"{item_id!r} is not an id of this file"))
        seen.setdefault(item_id, index)
    return out


def field_path(path) -> str:
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def problems(section: str, doc: Any) -> list[tuple[list, str]]:
    """Every schema violation of `doc` as (path, message), sorted by path."""
    if section not in SECTIONS:
        return [([], f"unknown section {section!r}")]
    errors = sorted(validator(section).iter_errors(doc), key=lambda e: [str(p) for p in e.path])
    return [(list(e.path), _message(e)) for e in errors] or id_problems(section, doc)


def check_changed(section: str, doc: Any, before: Any, filename: str) -> None:
    """Like `check`, but items already in `before` unchanged are not checked again:
    they were validated when their blob was read. Keeps a write O(changed items)."""
    sch = schema(section)
    items = doc.get("items") if isinstance(doc, dict) else None
    if not isinstance(items, list) or "items" not in sch["properties"]:
        return check(section, doc, filename)
    known = {i.get("id"): i for i in (before or {}).get("items") or [] if isinstance(i, dict)}
    shell = dict(doc, items=[])
    check(section, shell, filename)
    item_validator = _item_validator(section)
    for index, item in enumerate(items):
        if isinstance(item, dict) and known.get(item.get("id")) == item:
            continue
        errors = sorted(item_validator.iter_errors(item), key=lambda e: [str(p) for p in e.path])
        if errors:
            path = ["items", index, *errors[0].path]
            raise InvalidState(
                f"{filename}: field {field_path(path)}: {_message(errors[0])}",
                hint=f"Fix {filename} and run `cogit commit` again; the last good state stays committed.",
            )
    for path, text in id_problems(section, doc)[:1]:
        raise InvalidState(
            f"{filename}: field {field_path(path)}: {text}",
            hint=f"Fix {filename} and run `cogit commit` again; the last good state stays committed.",
        )
    limit = sch["properties"]["items"].get("maxItems")
    if limit is not None and len(items) > limit:
        check(section, doc, filename)


@lru_cache(maxsize=None)
def _item_validator(section: str):
    return prepare(schema(section)["properties"]["items"]["items"])


def check(section: str, doc: Any, filename: str) -> None:
    """Raise InvalidState naming file, line and field of the first violation."""
    found = problems(section, doc)
    if not found:
        return
    path, message = found[0]
    line = yamlio.line_of(doc, path)
    where = f"{filename}:{line}" if line else filename
    more = f" (and {len(found) - 1} more problem(s))" if len(found) > 1 else ""
    raise InvalidState(
        f"{where}: field {field_path(path)}: {message}{more}",
        hint=f"Fix {filename} and run `cogit commit` again; the last good state stays committed.",
    )


def parse(section: str, data: bytes | str, filename: str) -> Any:
    """Parse and validate one state file's text; errors name file, line and field."""
    try:
        doc = yamlio.load(data)
    except yamlio.YamlProblem as e:
        where = f"{filename}:{e.line}" if e.line else filename
        raise InvalidState(
            f"{where}: {e.message}",
            hint=f"Fix {filename} and run `cogit commit` again; the last good state stays committed.",
        ) from None
    if doc is None:
        doc = {}
    check(section, doc, filename)
    return doc


def short_message(text: str, limit: int = 80) -> str:
    """A validation message that quotes at most an excerpt of each value it quotes."""
    import re

    def cut(m):
        value = m.group(1)
        return f"'{value[:limit]}…' ({len(value):,} characters)" if len(value) > limit else m.group(0)

    return re.sub(r"'((?:[^'\\]|\\.){%d,})'" % (limit + 1), cut, text, flags=re.S)
