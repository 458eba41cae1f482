"""What a call puts into the model's context: characters of the input the model wrote and
of the result it sees, estimated per tool from the structured response and bounded by
cogit/bounds.py (a 4 MB result is measured from its first items, never walked whole),
and how much a search found.
"""

from cogit import bounds

from .call import EXEC_TOOLS, _s, first_items

# Claude Code truncates Bash output for the model at about this many characters.
MAX_OUTPUT = 30000


def _texts(value, limit=MAX_OUTPUT):
    """Total length of the text blocks of an MCP/Agent style result."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list):
        value, scale = first_items(value)
        total = 0
        for item in value:
            if isinstance(item, dict):
                if isinstance(item.get("text"), str):
                    total += len(item["text"])
                elif item.get("type") == "image":
                    total += 6000
            elif isinstance(item, str):
                total += len(item)
        return min(int(total * scale), limit)
    return 0


def input_size(tool_input):
    """Characters of the input the model wrote (they sit in the context too)."""
    total = 0
    for _, value in zip(range(bounds.ITEMS), tool_input.values()):
        if isinstance(value, str):
            total += len(value)
        elif isinstance(value, list):  # MultiEdit edits
            items, scale = first_items(value)
            part = 0
            for item in items:
                if isinstance(item, dict):
                    part += sum(len(v) for _, v in zip(range(bounds.ITEMS), item.values()) if isinstance(v, str))
            total += int(part * scale)
    return total


def response_size(tool, tool_response):
    """Characters of the result that the model sees, estimated per tool from the structured response."""
    r = tool_response
    if r is None:
        return 0
    if isinstance(r, str):
        return min(len(r), MAX_OUTPUT)
    if isinstance(r, list):
        return _texts(r)
    if not isinstance(r, dict):
        return 0
    if tool in EXEC_TOOLS or "stdout" in r:
        return min(len(_s(r.get("stdout"))) + len(_s(r.get("stderr"))), MAX_OUTPUT)
    f = r.get("file")
    if isinstance(f, dict):  # Read: {"type": "text", "file": {"content", "numLines", ...}}
        if r.get("type") == "image" or "base64" in f:
            return 6000
        content = _s(f.get("content"))
        lines = f.get("numLines") if isinstance(f.get("numLines"), int) else content.count("\n") + 1
        return len(content) + 7 * lines  # Read prefixes each line with its number and a tab
    if tool in ("Edit", "MultiEdit", "Write") or "structuredPatch" in r:
        patch = r.get("structuredPatch")
        total = 120
        if isinstance(patch, list):
            hunks, scale = first_items(patch)
            part = 0
            for hunk in hunks:
                if isinstance(hunk, dict) and isinstance(hunk.get("lines"), list):
                    lines, more = first_items(hunk["lines"])
                    part += int(sum(len(x) + 8 for x in lines if isinstance(x, str)) * more)
            total += int(part * scale)
        return total
    if "filenames" in r or "mode" in r:  # Grep / Glob
        content = _s(r.get("content"))
        if content:
            return min(len(content), MAX_OUTPUT)
        names = r.get("filenames")
        if not isinstance(names, list):
            return 0
        names, scale = first_items(names)
        return int(sum(len(n) + 1 for n in names if isinstance(n, str)) * scale)
    if isinstance(r.get("result"), str):  # WebFetch
        return len(r["result"])
    if "content" in r:  # Agent (completed), MCP {"content": [...]}
        return _texts(r["content"])
    return _approx_json_len(r, MAX_OUTPUT)


def search_hits(r):
    """How much a Grep/Glob found (files, or lines in content mode); None when unknown.

    The learning loop tells a fruitless repeated search (nothing found, again) from a search
    that finds things (progress, e.g. the leftovers of a rename shrinking)."""
    if not isinstance(r, dict):
        return None
    for key in ("numFiles", "numLines", "numMatches"):
        if isinstance(r.get(key), int) and not isinstance(r.get(key), bool) and r[key] > 0:
            return r[key]
    names = r.get("filenames")
    if isinstance(names, list) and names:
        return len(names)
    content = _s(r.get("content"))
    if content.strip():
        return content.count("\n") + 1
    if "filenames" in r or "numFiles" in r or "content" in r:
        return 0
    return None


def _approx_json_len(value, limit):
    """len(json.dumps(value)) of a small value; of a big one an estimate from its first
    bounds.ITEMS values, stopping at limit (dumping 4 MB would cost what parsing it did)."""
    total, seen, todo, whole = 0, 0, [value], True
    while todo and total < limit and seen < bounds.ITEMS:
        v = todo.pop()
        seen += 1
        if isinstance(v, str):
            total += len(v) + 3
        elif isinstance(v, dict):
            total += 2
            for k, item in v.items():
                total += (len(k) + 4) if isinstance(k, str) else 8
                todo.append(item)
                if len(todo) > bounds.ITEMS:
                    whole = False
                    break
        elif isinstance(v, list):
            total += 2
            whole = whole and len(v) <= bounds.ITEMS
            todo.extend(v[: bounds.ITEMS])
        else:
            total += 6
    if whole and not todo and total < limit:  # walked whole and small: measure it exactly
        try:
            from cogit import jsonio

            return min(len(jsonio.dumps(value, default=str)), limit)
        except (TypeError, ValueError):
            return 0
    return min(total, limit)
