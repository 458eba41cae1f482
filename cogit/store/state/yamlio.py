"""The only ruamel.yaml configuration in cogit.

Round-trip mode keeps comments and key order, so a person's hand edits survive
cogit's own writes. Safety limits apply before anything is built from the text:
a size cap, a refusal of anchors and aliases (an alias bomb expands a few
hundred bytes into gigabytes; memory files have no use for aliases), of explicit
tags (`!!binary`, `!!python/object`: memory is plain data), a nesting depth limit
checked by the scanner itself (ruamel.yaml recurses per level and its scanner
slows down quadratically on deep flow nesting), and a bound on the digits of a
number (Python refuses to read integers of more than 4,300 digits).
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

# ruamel.yaml is imported where it is used (parsing, dumping, round trips): commands
# that only read cached or canonical documents never pay for it (about 20 ms).

MAX_BYTES = 256 * 1024
MAX_DEPTH = 50  # nested collections; cogit's own files need 4
MAX_NUMBER_CHARS = 100  # a number literal longer than this is refused (the schemas bound values far below)


class YamlProblem(Exception):
    """Text that is not acceptable YAML for a memory file; `line` is 1-based or None."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line


def _timestamp_as_text(constructor, node):
    # Timestamps stay strings: the schemas describe them as ISO 8601 text, and a
    # datetime object would not survive JSON (the hooks read JSON snapshots).
    return constructor.construct_scalar(node)


def _line(mark) -> int | None:
    return mark.line + 1 if mark is not None else None


def _bounded(construct):
    def build(constructor, node):
        if len(str(node.value)) > MAX_NUMBER_CHARS:
            raise YamlProblem(f"a number of {len(str(node.value))} characters is too long "
                              f"(at most {MAX_NUMBER_CHARS})", _line(node.start_mark))
        return construct(constructor, node)

    return build


_CLASSES: list = []


def _classes():
    """ruamel's constructor and scanner with cogit's limits, built on first use."""
    if _CLASSES:
        return _CLASSES
    from ruamel.yaml.constructor import RoundTripConstructor
    from ruamel.yaml.scanner import RoundTripScanner

    class _Constructor(RoundTripConstructor):
        pass

    _Constructor.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_text)
    _Constructor.add_constructor("tag:yaml.org,2002:int", _bounded(RoundTripConstructor.construct_yaml_int))
    _Constructor.add_constructor("tag:yaml.org,2002:float", _bounded(RoundTripConstructor.construct_yaml_float))

    class _Scanner(RoundTripScanner):
        """ruamel's scanner with a limit on flow nesting, checked as each `[`/`{` opens: its
        look-ahead for keys costs O(levels²) per line, so 50,000 `[` took minutes; now it stops
        after 50. Block nesting costs it nothing; `load` counts all levels as events arrive."""

        def fetch_flow_collection_start(self, *args, **kwargs):
            if self.flow_level >= MAX_DEPTH:
                raise YamlProblem(f"nested more than {MAX_DEPTH} levels deep", _line(self.reader.get_mark()))
            return super().fetch_flow_collection_start(*args, **kwargs)

    _CLASSES[:] = [_Constructor, _Scanner]
    return _CLASSES


def _yaml():
    from ruamel.yaml import YAML

    y = YAML(typ="rt")
    y.Constructor, y.Scanner = _classes()
    y.indent(mapping=2, sequence=4, offset=2)
    y.width = 4096  # never fold long texts: one item, one line, small diffs
    y.preserve_quotes = True
    return y


def load(text: str | bytes) -> Any:
    """Parse one YAML document (round-trip types), refusing oversize text and aliases."""
    if isinstance(text, bytes):
        if len(text) > MAX_BYTES:
            raise YamlProblem(f"file is {len(text)} bytes, over the {MAX_BYTES}-byte limit")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise YamlProblem(f"not UTF-8 text (byte {e.start})") from None
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise YamlProblem(f"file is over the {MAX_BYTES}-byte limit")
    from ruamel.yaml.error import MarkedYAMLError, YAMLError
    from ruamel.yaml.events import AliasEvent, CollectionEndEvent, CollectionStartEvent

    y = _yaml()
    try:
        depth = 0
        for event in y.parse(io.StringIO(text)):
            if isinstance(event, AliasEvent) or getattr(event, "anchor", None):
                raise YamlProblem("anchors and aliases are not allowed in memory files", _line(event.start_mark))
            if getattr(event, "tag", None) is not None:
                tag = str(event.tag).replace("tag:yaml.org,2002:", "!!")
                raise YamlProblem(f"tags ({tag[:40]}) are not allowed in memory files; write plain values "
                                  "(quote a text that looks like a number)", _line(event.start_mark))
            if isinstance(event, CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise YamlProblem(f"nested more than {MAX_DEPTH} levels deep", _line(event.start_mark))
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
        return y.load(io.StringIO(text))
    except RecursionError:  # not reachable within the limits above; never a crash if it were
        raise YamlProblem(f"nested too deeply (at most {MAX_DEPTH} levels)") from None
    except MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else None
        raise YamlProblem(f"invalid YAML: {e.problem or e.context}", line) from None
    except YAMLError as e:
        raise YamlProblem(f"invalid YAML: {e}") from None


_RISKY = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff]|^\s|\s$|\r")


def _protect(value: Any) -> Any:
    """Strings with control or line-separator characters are written double-quoted,
    where YAML escapes them; in other styles the emitter folds e.g. U+0085 to a space."""
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    if isinstance(value, str) and not isinstance(value, DoubleQuotedScalarString) and _RISKY.search(value):
        return DoubleQuotedScalarString(value)
    if isinstance(value, dict):
        for key in list(value.keys()):
            new = _protect(value[key])
            if new is not value[key]:
                value[key] = new
    elif isinstance(value, list):
        for i, item in enumerate(value):
            new = _protect(item)
            if new is not item:
                value[i] = new
    return value


def dump(doc: Any) -> str:
    out = io.StringIO()
    _yaml().dump(_protect(doc), out)
    return out.getvalue()


def plain(value: Any) -> Any:
    """Round-trip types -> plain dict/list/str/int/float/bool/None (deep copy)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    return value


def update(old: Any, new: Any) -> Any:
    """Return `new` as a round-trip document that keeps `old`'s comments where it can.

    Maps are updated key by key; lists of items are matched by `id`, so the comment
    on an item stays with that item when others are added or removed.
    """
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(old, CommentedMap) and isinstance(new, dict):
        for key in [k for k in old if k not in new]:
            del old[key]
        for key, value in new.items():
            old[key] = update(old[key], value) if key in old else value
        return old
    if isinstance(old, CommentedSeq) and isinstance(new, list):
        by_id = {
            item.get("id"): item for item in old if isinstance(item, CommentedMap) and item.get("id")
        }
        if by_id and all(isinstance(i, dict) and i.get("id") for i in new):
            kept = [update(by_id[i["id"]], i) if i["id"] in by_id else i for i in new]
        elif len(old) == len(new):
            kept = [update(o, n) for o, n in zip(old, new)]
        else:
            kept = list(new)
        old[:] = kept
        return old
    return new


def line_of(doc: Any, path: list) -> int | None:
    """The 1-based line of the node at `path` (keys and indexes) in a round-trip doc."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    line = None
    node = doc
    for key in path:
        try:
            if isinstance(node, CommentedMap) and key in node:
                line = node.lc.key(key)[0] + 1
            elif isinstance(node, CommentedSeq) and isinstance(key, int) and key < len(node):
                line = node.lc.item(key)[0] + 1
            node = node[key]
        except (KeyError, IndexError, TypeError, AttributeError):
            break
    return line


# --- The canonical writer -------------------------------------------------------
# Files that cogit wrote itself are rewritten by this small emitter, 20-50x faster
# than ruamel's round trip; it produces the same layout as `dump`. A file a person
# edited (different layout, comments inside) goes through `update` + `dump` so the
# comments survive. The property tests check that `load` reads back exactly the
# data this emits.

_PLAIN_OK = re.compile(r"^[A-Za-z_][A-Za-z0-9_ ./()+-]*$")
_RESERVED = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf"}
_ESCAPE = re.compile(r"[\x7f-\x9f\u2028\u2029\ufeff]")


def _scalar(value: Any) -> str:
    if value is None:
        return "null" if False else ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        if value != value:
            return ".nan"
        if value in (float("inf"), float("-inf")):
            return ".inf" if value > 0 else "-.inf"
        text = repr(value)
        mantissa, e, exp = text.partition("e")
        if e and "." not in mantissa:
            text = f"{mantissa}.0e{exp}"
        return text
    if isinstance(value, str):
        if _PLAIN_OK.fullmatch(value) and value.lower() not in _RESERVED and not value.endswith(" ") and "  " not in value:
            return value
        quoted = json.dumps(value, ensure_ascii=False)
        return _ESCAPE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", quoted)
    raise TypeError(type(value))


def _emit(value: Any, indent: int, lines: list[str], prefix: str) -> None:
    """Append `value` (the value of `prefix`, e.g. 'key:' or '-') to lines."""
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            lines.append(f"{pad}{prefix} {{}}".replace(" {}", " {}", 1) if prefix else f"{pad}{{}}")
            return
        if prefix:
            lines.append(f"{pad}{prefix}")
            indent += 2
        for key, item in value.items():
            _emit(item, indent, lines, f"{_scalar(str(key))}:")
        return
    if isinstance(value, list):
        if not value:
            lines.append(f"{pad}{prefix} []")
            return
        lines.append(f"{pad}{prefix}")
        for item in value:
            if isinstance(item, dict) and item:
                first = True
                for key, sub in item.items():
                    lead = f"{' ' * (indent + 2)}- " if first else " " * (indent + 4)
                    sub_lines: list[str] = []
                    _emit(sub, 0, sub_lines, f"{_scalar(str(key))}:")
                    lines.append(lead + sub_lines[0])
                    lines += [" " * (indent + 4) + rest for rest in sub_lines[1:]]
                    first = False
            elif isinstance(item, (dict, list)):
                sub_lines = []
                _emit(item, 0, sub_lines, "")
                lines.append(f"{' ' * (indent + 2)}- {sub_lines[0].strip()}")
                lines += [" " * (indent + 4) + rest for rest in sub_lines[1:]]
            else:
                lines.append(f"{' ' * (indent + 2)}- {_scalar(item)}".rstrip())
        return
    text = _scalar(value)
    lines.append(f"{pad}{prefix} {text}".rstrip() if prefix else f"{pad}{text}")


def header_of(text: str) -> str:
    """The leading comment lines of a file (kept verbatim by the canonical writer)."""
    out = []
    for line in text.splitlines(keepends=True):
        if line.startswith("#"):
            out.append(line if line.endswith("\n") else line + "\n")
        else:
            break
    return "".join(out)


def canonical(doc: dict, header: str = "") -> str | None:
    """The canonical text of a plain document, or None if it holds other types."""
    lines: list[str] = []
    try:
        for key, value in doc.items():
            _emit(value, 0, lines, f"{_scalar(str(key))}:")
    except TypeError:
        return None
    return header + "\n".join(lines) + "\n"
