"""One item change of a commit (what `diff`, `why` and `log --item` show). Standard
library only: the cold history commands render changes read from the item index
without importing the schema, the YAML reader or dulwich."""

from __future__ import annotations

import json

from cogit.domain.sections import ITEM_SECTIONS, SINGULAR

_MISSING = object()
MAX_FIELDS = 6


class ItemChange:
    """A plain class, not a dataclass: `dataclasses` imports `inspect` (about a third of a
    cold `diff`'s imports); equality and repr are a dataclass's."""

    __slots__ = ("op", "section", "key", "text", "fields", "old", "new")
    __hash__ = None  # as a dataclass with eq: mutable, not hashable

    def __init__(self, op: str, section: str, key: str, text: str = "", fields: list[tuple] | None = None,
                 old=None, new=None):
        self.op = op  # "+", "-", "~"
        self.section = section
        self.key = key  # item id, or the field path of a document section
        self.text = text
        self.fields = [] if fields is None else fields
        self.old, self.new = old, new

    def _values(self) -> tuple:
        return tuple(getattr(self, k) for k in self.__slots__)

    def __eq__(self, other):
        return self._values() == other._values() if other.__class__ is self.__class__ else NotImplemented

    def __repr__(self) -> str:
        return "ItemChange(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__) + ")"

    def to_json(self) -> dict:
        return {
            "op": {"+": "added", "-": "removed", "~": "changed"}[self.op],
            "section": self.section,
            "id": self.key,
            "text": self.text,
            "fields": [{"field": f, "old": o, "new": n} for f, o, n in self.fields],
        }

    def render(self) -> str:
        kind = SINGULAR.get(self.section, self.section)
        shown = self.fields[:MAX_FIELDS]
        prefix = f"tools.{self.key}."
        changes = ", ".join(f"{f.removeprefix(prefix)} {_short(o)} → {_short(n)}" for f, o, n in shown)
        if len(self.fields) > MAX_FIELDS:
            changes += f" (+{len(self.fields) - MAX_FIELDS} more; --json shows all)"
        if self.section in ITEM_SECTIONS:
            if self.op in "+-":
                return f"{self.op} {kind} {self.key} {json.dumps(self.text, ensure_ascii=False)}"
            return f"~ {kind} {self.key}: {changes}"
        if self.key != self.section:
            return f"~ {kind} {self.key}: {changes}"
        return f"~ {kind}: {changes}"


def _short(value) -> str:
    if value is _MISSING or value is None:
        return "∅"
    if isinstance(value, str):
        text = value if len(value) <= 80 else value[:77] + "…"
        return json.dumps(text, ensure_ascii=False)
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "…"
