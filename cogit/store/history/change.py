"""One item change of a commit (what `diff`, `why` and `log --item` show). Standard
library only: the cold history commands render changes read from the item index
without importing the schema, the YAML reader or dulwich."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from cogit.domain.sections import ITEM_SECTIONS, SINGULAR

_MISSING = object()
MAX_FIELDS = 6


@dataclass
class ItemChange:
    op: str  # "+", "-", "~"
    section: str
    key: str  # item id, or the field path of a document section
    text: str = ""
    fields: list[tuple[str, Any, Any]] = field(default_factory=list)
    old: Any = None
    new: Any = None

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


def _short(value: Any) -> str:
    if value is _MISSING or value is None:
        return "∅"
    if isinstance(value, str):
        text = value if len(value) <= 80 else value[:77] + "…"
        return json.dumps(text, ensure_ascii=False)
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "…"
