"""Text and JSON renderings of state for the CLI (no logic beyond formatting)."""

from __future__ import annotations

from cogit.store.state import ITEM_SECTIONS


def state_json(state: dict, sections: list[str]) -> dict:
    out = {}
    for section in sections:
        doc = dict(state.get(section) or {})
        doc.pop("schema_version", None)
        out[section] = doc.get("items", []) if section in ITEM_SECTIONS else doc
    return out


def render_state(state: dict, sections: list[str], sha: str | None) -> str:
    lines = [f"memory at {sha[:10] if sha else '(empty)'}"]
    for section in sections:
        doc = state.get(section) or {}
        if section in ITEM_SECTIONS:
            items = doc.get("items") or []
            lines.append(f"\n{section} ({len(items)})")
            for item in items:
                extra = ""
                if section == "learnings":
                    extra = f"[{item.get('category')}] "
                if section == "heuristics" and item.get("use_count"):
                    extra = f"(used {item['use_count']}×) "
                if section == "rules":
                    extra = f"(detected {item.get('detections', 0)}, suppressed {item.get('suppressions', 0)}) "
                lines.append(f"  {item['id']:<10} {extra}{item.get('text', '')}")
        elif section == "focus":
            lines.append(f"\nfocus: {doc.get('current') or '(none)'}")
            for i, p in enumerate(doc.get("priorities") or [], 1):
                lines.append(f"  {i}. {p}")
        elif section == "tools":
            tools = doc.get("tools") or {}
            lines.append(f"\ntools ({len(tools)} tools over {doc.get('sessions', 0)} sessions; `cogit stats` draws them)")
        else:
            lines.append(f"\n{section}:")
            for key, value in doc.items():
                if key != "schema_version":
                    lines.append(f"  {key}: {value}")
    return "\n".join(lines)
