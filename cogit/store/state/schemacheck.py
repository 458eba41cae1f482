"""A JSON Schema subset compiled once into plain Python checks.

Importing jsonschema (with referencing, attrs, rpds) costs a cold `cogit add` about
40 ms, more than the rest of its validation many times over. cogit's own schemas
(schemas/*.schema.json) use a small part of draft 2020-12; `compile_schema` turns such a
schema into a tree of closures once per process and refuses, with `Unsupported`, any
keyword or value it does not implement, so the caller falls back to jsonschema for
that schema and a new keyword can never be silently ignored.

The errors mirror jsonschema 4's ValidationError where cogit reads them (`path`,
`message`, `validator`, `validator_value`, `instance`), with its message texts and its
order (schema keywords in the schema's order); tests/test_schemacheck.py holds the two
to agreement on generated documents for every schema in schemas/.
"""

from __future__ import annotations

import re
from typing import Any, Callable

# Keywords that only annotate: they never make a document invalid. ($id would change
# the base of $ref, which this subset refuses, so it is harmless here.)
ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "default", "examples"})


class Unsupported(Exception):
    """The schema uses something this subset does not implement; use jsonschema."""


class Problem:
    """One violation, shaped like the parts of jsonschema's ValidationError cogit reads."""

    __slots__ = ("path", "message", "validator", "validator_value", "instance")

    def __init__(self, path: tuple, message: str, validator: str | None, validator_value: Any, instance: Any):
        self.path = path
        self.message = message
        self.validator = validator
        self.validator_value = validator_value
        self.instance = instance

    def __repr__(self) -> str:
        return f"<Problem at {list(self.path)}: {self.message}>"


Check = Callable[[Any, tuple, list], None]


class Compiled:
    """A compiled schema with the two methods cogit uses of a jsonschema validator."""

    def __init__(self, schema: Any, check: Check):
        self.schema = schema
        self._check = check

    def iter_errors(self, instance: Any):
        out: list[Problem] = []
        self._check(instance, (), out)
        return iter(out)

    def is_valid(self, instance: Any) -> bool:
        out: list[Problem] = []
        self._check(instance, (), out)
        return not out


def compile_schema(schema: Any, formats: dict[str, Callable[[Any], Any]] | None = None) -> Compiled:
    """`schema` as checks, or Unsupported. `formats` maps a format name to a function that
    returns false or raises ValueError for a bad value (jsonschema's FormatChecker)."""
    return Compiled(schema, _node(schema, formats or {}))


# --------------------------------------------------------------------------- types and equality
# As jsonschema's draft 2020-12 type checker: bool is not a number, 1.0 is an integer.


def _is_number(x) -> bool:
    if isinstance(x, bool):
        return False
    if isinstance(x, (int, float)):
        return True
    import numbers

    return isinstance(x, numbers.Number)


TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
    "integer": lambda x: (isinstance(x, int) and not isinstance(x, bool)) or (isinstance(x, float) and x.is_integer()),
    "number": _is_number,
}

_TRUE, _FALSE = object(), object()


def _unbool(x):
    return _TRUE if x is True else _FALSE if x is False else x


def equal(one, two) -> bool:
    """jsonschema's `equal`: True is not 1, recursing into lists and mappings."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, (list, tuple)) and isinstance(two, (list, tuple)):
        return len(one) == len(two) and all(equal(a, b) for a, b in zip(one, two))
    if isinstance(one, dict) and isinstance(two, dict):
        return len(one) == len(two) and all(k in two and equal(v, two[k]) for k, v in one.items())
    return _unbool(one) == _unbool(two)


def _unique(items: list) -> bool:
    seen: list = []
    for item in items:
        item = _unbool(item)
        if any(equal(other, item) for other in seen):
            return False
        seen.append(item)
    return True


# --------------------------------------------------------------------------- the compiler


def _node(schema: Any, formats: dict) -> Check:
    if schema is True:
        return _nothing
    if schema is False:  # jsonschema reports it without the field's path; no cogit schema uses it
        raise Unsupported("a false subschema")
    if not isinstance(schema, dict):
        raise Unsupported(f"a schema must be an object or a boolean, not {schema!r}")
    checks = []
    for key, value in schema.items():
        if key in ANNOTATIONS:
            continue
        build = _KEYWORDS.get(key)
        if build is None:
            raise Unsupported(f"keyword {key!r}")
        checks.append(build(value, schema, formats))
    if not checks:
        return _nothing
    if len(checks) == 1:
        return checks[0]

    def all_of(x, path, out):
        for check in checks:
            check(x, path, out)
    return all_of


def _nothing(x, path, out):
    pass


def _type(value, schema, formats):
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names or any(n not in TYPES for n in names):
        raise Unsupported(f"type {value!r}")
    tests = tuple(TYPES[n] for n in names)
    reprs = ", ".join(repr(n) for n in names)

    def check(x, path, out):
        for test in tests:
            if test(x):
                return
        out.append(Problem(path, f"{x!r} is not of type {reprs}", "type", value, x))
    return check


def _properties(value, schema, formats):
    if not isinstance(value, dict):
        raise Unsupported("properties must be an object")
    subs = [(name, _node(sub, formats)) for name, sub in value.items()]

    def check(x, path, out):
        if isinstance(x, dict):
            for name, sub in subs:
                if name in x:
                    sub(x[name], (*path, name), out)
    return check


def _additional(value, schema, formats):
    if "patternProperties" in schema:
        raise Unsupported("patternProperties")
    known = schema.get("properties", {})
    if value is False:
        def check(x, path, out):
            if isinstance(x, dict):
                extras = [k for k in x if k not in known]
                if extras:
                    extras.sort(key=str)
                    verb = "was" if len(extras) == 1 else "were"
                    listed = ", ".join(repr(e) for e in extras)
                    out.append(Problem(path, f"Additional properties are not allowed ({listed} {verb} unexpected)",
                                       "additionalProperties", value, x))
        return check
    if value is True:
        return _nothing
    sub = _node(value, formats)

    def check(x, path, out):
        if isinstance(x, dict):
            for k in x:
                if k not in known:
                    sub(x[k], (*path, k), out)
    return check


def _required(value, schema, formats):
    if not isinstance(value, list):
        raise Unsupported("required must be a list")

    def check(x, path, out):
        if isinstance(x, dict):
            for name in value:
                if name not in x:
                    out.append(Problem(path, f"{name!r} is a required property", "required", value, x))
    return check


def _property_names(value, schema, formats):
    sub = _node(value, formats)

    def check(x, path, out):
        if isinstance(x, dict):
            for k in x:
                sub(k, path, out)  # jsonschema reports a bad name at the object's path
    return check


def _items(value, schema, formats):
    if "prefixItems" in schema:
        raise Unsupported("prefixItems")
    if value is True:
        return _nothing
    if value is False:
        def check(x, path, out):
            if isinstance(x, list) and x:
                rest = x if len(x) != 1 else x[0]
                out.append(Problem(path, f"Expected at most 0 items but found {len(x)} extra: {rest!r}", "items", value, x))
        return check
    sub = _node(value, formats)

    def check(x, path, out):
        if isinstance(x, list):
            for index, item in enumerate(x):
                sub(item, (*path, index), out)
    return check


def _bound(keyword, applies, size, too_far, says):
    """A bound on `size(x)` (a length, a count or the number itself) for instances `applies` to."""
    def build(value, schema, formats):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise Unsupported(f"{keyword} {value!r}")
        said = says(value)

        def check(x, path, out):
            if applies(x) and too_far(size(x), value):
                out.append(Problem(path, f"{x!r} {said}", keyword, value, x))
        return check
    return build


def _lt(a, b):
    return a < b


def _gt(a, b):
    return a > b


_is_str, _is_list, _is_dict = TYPES["string"], TYPES["array"], TYPES["object"]


def _enum(value, schema, formats):
    if not isinstance(value, list):
        raise Unsupported("enum must be a list")
    strings = frozenset(v for v in value if isinstance(v, str))
    only_strings = len(strings) == len(value)

    def check(x, path, out):
        if only_strings and isinstance(x, str):
            if x in strings:
                return
        elif any(equal(each, x) for each in value):
            return
        out.append(Problem(path, f"{x!r} is not one of {value!r}", "enum", value, x))
    return check


def _const(value, schema, formats):
    def check(x, path, out):
        if not equal(x, value):
            out.append(Problem(path, f"{value!r} was expected", "const", value, x))
    return check


def _pattern(value, schema, formats):
    if not isinstance(value, str):
        raise Unsupported("pattern must be a string")
    search = re.compile(value).search

    def check(x, path, out):
        if isinstance(x, str) and not search(x):
            out.append(Problem(path, f"{x!r} does not match {value!r}", "pattern", value, x))
    return check


def _format(value, schema, formats):
    test = formats.get(value)
    if test is None:  # jsonschema would skip a format it has no checker for; refuse instead
        raise Unsupported(f"format {value!r}")

    def check(x, path, out):
        try:
            ok = test(x)
        except ValueError:
            ok = False
        if not ok:
            out.append(Problem(path, f"{x!r} is not a {value!r}", "format", value, x))
    return check


def _not(value, schema, formats):
    sub = _node(value, formats)

    def check(x, path, out):
        inner: list = []
        sub(x, path, inner)
        if not inner:
            out.append(Problem(path, f"{x!r} should not be valid under {value!r}", "not", value, x))
    return check


def _unique_items(value, schema, formats):
    if not isinstance(value, bool):
        raise Unsupported("uniqueItems must be a boolean")
    if not value:
        return _nothing

    def check(x, path, out):
        if isinstance(x, list) and not _unique(x):
            out.append(Problem(path, f"{x!r} has non-unique elements", "uniqueItems", value, x))
    return check


_KEYWORDS: dict[str, Callable[[Any, dict, dict], Check]] = {
    "type": _type,
    "properties": _properties,
    "additionalProperties": _additional,
    "required": _required,
    "propertyNames": _property_names,
    "items": _items,
    "enum": _enum,
    "const": _const,
    "pattern": _pattern,
    "format": _format,
    "not": _not,
    "uniqueItems": _unique_items,
    "maxLength": _bound("maxLength", _is_str, len, _gt, lambda v: "is expected to be empty" if v == 0 else "is too long"),
    "minLength": _bound("minLength", _is_str, len, _lt, lambda v: "should be non-empty" if v == 1 else "is too short"),
    "maxItems": _bound("maxItems", _is_list, len, _gt, lambda v: "is expected to be empty" if v == 0 else "is too long"),
    "minItems": _bound("minItems", _is_list, len, _lt, lambda v: "should be non-empty" if v == 1 else "is too short"),
    "maxProperties": _bound("maxProperties", _is_dict, len, _gt,
                            lambda v: "is expected to be empty" if v == 0 else "has too many properties"),
    "minProperties": _bound("minProperties", _is_dict, len, _lt,
                            lambda v: "should be non-empty" if v == 1 else "does not have enough properties"),
}


def _number_bound(keyword, too_far, word):
    def build(value, schema, formats):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise Unsupported(f"{keyword} {value!r}")

        def check(x, path, out):
            if _is_number(x) and too_far(x, value):
                out.append(Problem(path, f"{x!r} {word} {value!r}", keyword, value, x))
        return check
    return build


_KEYWORDS["minimum"] = _number_bound("minimum", _lt, "is less than the minimum of")
_KEYWORDS["maximum"] = _number_bound("maximum", _gt, "is greater than the maximum of")
_KEYWORDS["exclusiveMinimum"] = _number_bound("exclusiveMinimum", lambda a, b: a <= b,
                                              "is less than or equal to the minimum of")
_KEYWORDS["exclusiveMaximum"] = _number_bound("exclusiveMaximum", lambda a, b: a >= b,
                                              "is greater than or equal to the maximum of")
