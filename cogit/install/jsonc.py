"""Edit an agent's JSON (or JSON-with-comments) settings file in place.

The agents' files are the user's: their layout, key order, comments and non-ASCII text
are theirs. So cogit never re-serialises a file it changes: it parses the text into a
tree that knows where each value sits, works out the change from the data it wants
(the old data and the new, as plain Python values), and rewrites only the spans that
change: a member or an element added at the end of its container, one removed with the
comma and space around it, a value replaced. Adding then removing the same entry gives
back the same bytes. Comments (`//` and `/* */`, as Gemini CLI reads them) are skipped
by the reader and kept by the writer. Standard library only; not on the hook path.
"""

from __future__ import annotations

import json


class JsoncError(ValueError):
    def __init__(self, msg: str, text: str, pos: int):
        self.msg, self.pos = msg, pos
        self.lineno = text.count("\n", 0, pos) + 1
        self.colno = pos - (text.rfind("\n", 0, pos) + 1) + 1
        super().__init__(f"{msg}: line {self.lineno} column {self.colno}")


class Node:
    """A value in the text: [start, end), its kind, and its members or elements."""

    __slots__ = ("kind", "start", "end", "items", "value")

    def __init__(self, kind, start):
        self.kind, self.start, self.end, self.items, self.value = kind, start, start, [], None


class Member:
    __slots__ = ("key", "start", "node")

    def __init__(self, key, start, node):
        self.key, self.start, self.node = key, start, node

    @property
    def end(self):
        return self.node.end


class _Parser:
    def __init__(self, text: str, comments: bool):
        self.text, self.comments, self.pos = text, comments, 0
        self.notes: list[str] = []  # the comments, in order

    def fail(self, msg):
        raise JsoncError(msg, self.text, self.pos)

    def skip(self):
        t, n = self.text, len(self.text)
        while self.pos < n:
            c = t[self.pos]
            if c in " \t\r\n" or (c == "\ufeff" and self.pos == 0):
                self.pos += 1
            elif c == "/" and self.comments and t.startswith("//", self.pos):
                end = t.find("\n", self.pos)
                end = n if end < 0 else end
                self.notes.append(t[self.pos:end])
                self.pos = end
            elif c == "/" and self.comments and t.startswith("/*", self.pos):
                end = t.find("*/", self.pos + 2)
                if end < 0:
                    self.fail("unterminated comment")
                self.notes.append(t[self.pos:end + 2])
                self.pos = end + 2
            else:
                return

    def value(self, depth=0) -> Node:
        if depth > 200:
            self.fail("nested too deeply")
        self.skip()
        t = self.text
        if self.pos >= len(t):
            self.fail("expecting a value")
        c = t[self.pos]
        node = Node("", self.pos)
        if c == "{":
            node.kind, node.value = "object", {}
            self.pos += 1
            self.skip()
            if t.startswith("}", self.pos):
                self.pos += 1
            else:
                while True:
                    self.skip()
                    if not t.startswith('"', self.pos):
                        self.fail("expecting a property name in double quotes")
                    start = self.pos
                    key = self.string()
                    self.skip()
                    if not t.startswith(":", self.pos):
                        self.fail("expecting ':' delimiter")
                    self.pos += 1
                    child = self.value(depth + 1)
                    node.items = [m for m in node.items if m.key != key] + [Member(key, start, child)]
                    node.value[key] = child.value
                    self.skip()
                    if t.startswith(",", self.pos):
                        self.pos += 1
                    elif t.startswith("}", self.pos):
                        self.pos += 1
                        break
                    else:
                        self.fail("expecting ',' delimiter")
        elif c == "[":
            node.kind, node.value = "array", []
            self.pos += 1
            self.skip()
            if t.startswith("]", self.pos):
                self.pos += 1
            else:
                while True:
                    child = self.value(depth + 1)
                    node.items.append(child)
                    node.value.append(child.value)
                    self.skip()
                    if t.startswith(",", self.pos):
                        self.pos += 1
                    elif t.startswith("]", self.pos):
                        self.pos += 1
                        break
                    else:
                        self.fail("expecting ',' delimiter")
        elif c == '"':
            node.kind, node.value = "scalar", self.string()
        else:
            end = self.pos
            while end < len(t) and (t[end].isalnum() or t[end] in "+-."):
                end += 1
            try:
                node.kind, node.value = "scalar", json.loads(t[self.pos:end])
            except ValueError:
                self.fail("expecting a value")
            self.pos = end
        node.end = self.pos
        return node

    def string(self) -> str:
        t, i = self.text, self.pos + 1
        while True:
            j = t.find('"', i)
            if j < 0:
                self.fail("unterminated string")
            k = j
            while t[k - 1] == "\\":
                k -= 1
            if (j - k) % 2 == 0:
                break
            i = j + 1
        try:
            value = json.loads(t[self.pos:j + 1])
        except ValueError as e:
            self.fail(f"invalid string ({e})")
        self.pos = j + 1
        return value


def parse(text: str, comments: bool = True) -> tuple[Node, list[str]]:
    """(the root node, the comments) of a JSON text; JsoncError with line and column."""
    p = _Parser(text, comments)
    root = p.value()
    p.skip()
    if p.pos != len(text):
        p.fail("extra data")
    return root, p.notes


def loads(text: str, comments: bool = True):
    return parse(text, comments)[0].value


def comments_of(text: str) -> list[str]:
    try:
        return parse(text)[1]
    except JsoncError:
        return []


# ------------------------------------------------------------------------------ writing

def same(a, b) -> bool:
    """Equal as JSON (True is not 1, 1 is not 1.0 written differently)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def _unit(text: str) -> str:
    """The file's indentation step (two spaces when it shows none)."""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            return line[: len(line) - len(stripped)]
    return "  "


def _render(value, indent: str, unit: str, multiline: bool) -> str:
    if not multiline:
        return json.dumps(value, ensure_ascii=False)
    out = json.dumps(value, ensure_ascii=False, indent=len(unit) if unit.strip(" ") == "" else 1)
    if unit.strip(" ") != "":  # tabs
        out = "\n".join("\t" * (len(line) - len(line.lstrip(" "))) + line.lstrip(" ") for line in out.split("\n"))
    return out.replace("\n", "\n" + indent)


def _entry(container: Node, key, value, indent, unit, multiline) -> str:
    body = _render(value, indent, unit, multiline)
    return (json.dumps(key, ensure_ascii=False) + ": " + body) if container.kind == "object" else body


def _add(text: str, container: Node, key, value) -> str:
    unit = _unit(text)
    if container.items:
        last = container.items[-1]
        prev_end = container.items[-2].end if len(container.items) > 1 else container.start + 1
        multiline = "\n" in text[prev_end:last.start]
        indent = _line_indent(text, last.start) if multiline else ""
        sep = ",\n" + indent if multiline else ", "
        return text[:last.end] + sep + _entry(container, key, value, indent, unit, multiline) + text[last.end:]
    inner = text[container.start + 1:container.end - 1]
    multiline = "\n" in text.strip()
    outer = _line_indent(text, container.start)
    if not multiline:
        return text[:container.start + 1] + _entry(container, key, value, "", unit, False) + text[container.end - 1:]
    indent = outer + unit
    keep = inner if inner.strip() else ""  # a comment in the empty container stays before the new entry
    return (text[:container.start + 1] + keep.rstrip(" \t") + ("" if keep.endswith("\n") else "\n") + indent
            + _entry(container, key, value, indent, unit, True) + "\n" + outer + text[container.end - 1:])


def _remove(text: str, container: Node, index: int) -> str:
    items = container.items
    item = items[index]
    if index > 0:
        return text[:items[index - 1].end] + text[item.end:]
    if len(items) > 1:
        return text[:item.start] + text[items[1].start:]
    inner = text[container.start + 1:container.end - 1]
    rest = inner[:item.start - container.start - 1] + inner[item.end - container.start - 1:]
    if not rest.strip():
        return text[:container.start + 1] + text[container.end - 1:]
    return text[:item.start] + text[item.end:]


def _replace(text: str, node: Node, value) -> str:
    multiline = "\n" in text.strip()
    return text[:node.start] + _render(value, _line_indent(text, node.start), _unit(text), multiline) + text[node.end:]


def _step(text: str, node: Node, new) -> str | None:
    """One text edit that brings `node` closer to `new`, or None when it equals it."""
    if same(node.value, new):
        return None
    if node.kind == "object" and isinstance(new, dict):
        for i, m in enumerate(node.items):
            if m.key not in new:
                return _remove(text, node, i)
        for m in node.items:
            edit = _step(text, m.node, new[m.key])
            if edit is not None:
                return edit
        for key, value in new.items():
            if key not in node.value:
                return _add(text, node, key, value)
    if node.kind == "array" and isinstance(new, list):
        old, j = node.value, 0
        for i, o in enumerate(old):
            if j < len(new) and same(o, new[j]):
                j += 1
            elif (j < len(new) and type(o) is type(new[j]) and isinstance(o, (dict, list))
                  and not any(same(o, n) for n in new[j:]) and not any(same(new[j], x) for x in old[i:])):
                return _step(text, node.items[i], new[j])
            else:
                return _remove(text, node, i)
        if j < len(new):
            return _add(text, node, None, new[j])
    return _replace(text, node, new)


def patch(text: str | None, new) -> str:
    """`text` changed so that it reads as `new`, keeping every byte that needs no change.
    A missing or blank text becomes `new` written with two-space indentation."""
    if text is None or not text.strip():
        return json.dumps(new, indent=2, ensure_ascii=False) + "\n"
    for _ in range(10_000):
        root, _notes = parse(text)
        edit = _step(text, root, new)
        if edit is None:
            return text
        text = edit
    raise RuntimeError("patch did not converge")  # pragma: no cover (each step shrinks the difference)
