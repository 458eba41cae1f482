"""Validation of state documents against `schemas/`, with file, line and field.

The schemas ship inside the wheel (package `cogit.schemas`) and are read through
importlib.resources, so an installed cogit validates exactly what its tests did.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker

from cogit.errors import InvalidState
from cogit.store import yamlio

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
    text = resources.files("cogit.schemas").joinpath(f"{section}.schema.json").read_text("utf-8")
    return json.loads(text)


@lru_cache(maxsize=None)
def validator(section: str) -> Draft202012Validator:
    return Draft202012Validator(schema(section), format_checker=FormatChecker())


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
    return [(list(e.path), e.message) for e in errors]


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
                f"{filename}: field {field_path(path)}: {errors[0].message}",
                hint=f"Fix {filename} and run `cogit commit` again; the last good state stays committed.",
            )
    limit = sch["properties"]["items"].get("maxItems")
    if limit is not None and len(items) > limit:
        check(section, doc, filename)


@lru_cache(maxsize=None)
def _item_validator(section: str) -> Draft202012Validator:
    return Draft202012Validator(schema(section)["properties"]["items"]["items"], format_checker=FormatChecker())


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
