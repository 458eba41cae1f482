"""Text and JSON renderings of state for the CLI (no logic beyond formatting)."""

from __future__ import annotations

from cogit.domain.sections import ITEM_SECTIONS  # not store.state: the cold reads import no yamlio


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


def _label(scope) -> str:
    return "global" if scope.is_global else scope.name


def _labelled_doc(views, section):
    """A document section in a view of several scopes: a project's focus when it has one
    (an agent there is shown it first), else global's; settings and statistics are global."""
    if section == "focus":
        for scope, _, state in views:
            doc = dict(state.get(section) or {})
            if doc.get("current") or scope.is_global:
                doc.pop("schema_version", None)
                return scope, doc
    scope, _, state = views[-1]
    doc = dict(state.get(section) or {})
    doc.pop("schema_version", None)
    return scope, doc


def state_json_labelled(views, sections: list[str]) -> dict:
    """`views`: [(scope, sha, state)], the project first. Items carry their `scope`."""
    out = {}
    for section in sections:
        if section in ITEM_SECTIONS:
            out[section] = [{**item, "scope": _label(scope)} for scope, _, state in views
                            for item in (state.get(section) or {}).get("items") or []]
        else:
            scope, doc = _labelled_doc(views, section)
            out[section] = {**doc, "scope": _label(scope)}
    return out


def render_labelled(views, sections: list[str]) -> str:
    """Several scopes in one listing, each item with its scope (the project's first)."""
    heads = " + ".join(f"{_label(scope)} at {sha[:10] if sha else '(empty)'}" for scope, sha, _ in views)
    lines = [f"memory seen here: {heads}"]
    width = min(24, max(len(_label(s)) for s, _, _ in views))
    for section in sections:
        if section in ITEM_SECTIONS:
            rows = [(scope, item) for scope, _, state in views for item in (state.get(section) or {}).get("items") or []]
            lines.append(f"\n{section} ({len(rows)})")
            for scope, item in rows:
                label = _label(scope)
                label = label.ljust(width) if len(label) <= width else "…" + label[-(width - 1):]
                lines.append(f"  {item['id']:<10} {label}  {item.get('text', '')}")
        else:
            scope, doc = _labelled_doc(views, section)
            block = render_state({section: doc}, [section], None).split("\n", 1)[1]
            if section == "focus":  # the label on the focus line itself
                first, _, rest = block.lstrip("\n").partition("\n")
                block = f"\n{first}  [{_label(scope)}]" + (f"\n{rest}" if rest else "")
            lines.append(block)
    return "\n".join(lines)
