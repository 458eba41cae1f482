"""cogit/store/state/schemacheck.py against jsonschema: same verdict, same paths, same messages.

cogit validates its state files with its own compiled subset of JSON Schema (a cold
`cogit add` no longer imports jsonschema). These tests generate documents for every
schema in schemas/ (valid ones from the schema and the templates, then mutations: wrong
types, missing and extra keys, strings and lists one too long, enum and pattern misses,
bounds, bad times, nested items) and hold the two validators to the same answer.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from cogit.store.state import schema, schemacheck, yamlio
from cogit.store.state.schema import SECTIONS
from cogit.store.state.documents import template_text

NAMES = sorted(p.name.removesuffix(".schema.json") for p in resources.files("cogit.schemas").iterdir()
               if p.name.endswith(".schema.json"))
FORMATS = {"date-time": schema._is_date_time}


def reference(sch):
    return Draft202012Validator(sch, format_checker=schema.formats())


def ours(sch):
    return schemacheck.compile_schema(sch, FORMATS)


def _key(e):
    return [str(p) for p in e.path]


def outcome(validator, doc):
    """Every error as (path with types, keyword, message), in the order `schema.problems` sorts them."""
    errors = sorted(validator.iter_errors(doc), key=_key)
    return [([(type(p).__name__, p) for p in e.path], e.validator, e.message, schema._message(e)) for e in errors]


def agree(sch, doc):
    theirs, mine = outcome(reference(sch), doc), outcome(ours(sch), doc)
    assert mine == theirs, f"document {doc!r}"
    return not theirs


# --------------------------------------------------------------------------- documents from a schema

def _types(sch) -> list[str]:
    t = sch.get("type", ["object"] if "properties" in sch else ["string"])
    return [t] if isinstance(t, str) else list(t)


def _string(sch):
    lo, hi = sch.get("minLength", 0), sch.get("maxLength", 30)
    if sch.get("format") == "date-time":
        return st.builds(lambda y, mo, d, h, mi, s: f"{y:04d}-{mo:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}Z",
                         st.integers(2000, 2099), st.integers(1, 12), st.integers(1, 28),
                         st.integers(0, 23), st.integers(0, 59), st.integers(0, 59))
    if "pattern" in sch:
        return st.from_regex(sch["pattern"]).filter(lambda s: lo <= len(s) <= hi)
    return st.text(min_size=lo, max_size=min(hi, max(lo, 30)))


def valid(sch, depth=0):
    """Documents meant to follow `sch` (a few do not, e.g. where `not` forbids them: both validators judge)."""
    if sch is True or sch == {}:
        return st.none()
    if "const" in sch:
        return st.just(sch["const"])
    if "enum" in sch:
        return st.sampled_from(sch["enum"])
    options = []
    for t in _types(sch):
        if t == "object":
            options.append(_object(sch, depth))
        elif t == "array":
            item = valid(sch.get("items", {}), depth + 1)
            hi = min(sch.get("maxItems", 3), 3)
            options.append(st.lists(item, min_size=min(sch.get("minItems", 0), hi), max_size=hi,
                                    unique_by=(lambda x: json.dumps(x, sort_keys=True)) if sch.get("uniqueItems") else None))
        elif t == "string":
            options.append(_string(sch))
        elif t in ("integer", "number"):
            lo, hi = sch.get("minimum", -(2**53)), sch.get("maximum", 2**53)
            import math

            ints = st.integers(math.ceil(lo), math.floor(hi))  # a number's bounds may be fractional (learning.withhold <= 0.5)
            options.append(ints if t == "integer" else st.one_of(ints, st.floats(lo, hi, allow_nan=False)))
        elif t == "boolean":
            options.append(st.booleans())
        elif t == "null":
            options.append(st.none())
    return st.one_of(options)


def _object(sch, depth):
    props = sch.get("properties", {})
    required = [k for k in sch.get("required", []) if k in props]
    optional = [k for k in props if k not in required]

    @st.composite
    def build(draw):
        keys = required + [k for k in optional if draw(st.booleans())]
        doc = {k: draw(valid(props[k], depth + 1)) for k in keys}
        extra = sch.get("additionalProperties", True)
        if isinstance(extra, dict) and depth < 4:
            names = _string({"type": "string", **sch.get("propertyNames", {})})
            limit = min(sch.get("maxProperties", 3), 3)
            doc.update(draw(st.dictionaries(names, valid(extra, depth + 1), max_size=limit)))
        return doc
    return build()


# --------------------------------------------------------------------------- mutations

def _nodes(sch, doc, path=()):
    """(path, value, subschema) of every place in `doc`, with the schema that governs it."""
    yield path, doc, sch
    if not isinstance(sch, dict):
        return
    if isinstance(doc, dict):
        props = sch.get("properties", {})
        for k, v in doc.items():
            sub = props.get(k, sch.get("additionalProperties", True))
            yield from _nodes(sub, v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _nodes(sch.get("items", True), v, (*path, i))


def _bad_values(sch) -> list:
    out = [None, True, False, 0, -1, 1.5, 2.0, 10**16, "", "x", [], {}, ["x"], {"k": 1}, "2026-13-01T00:00:00Z",
           "2026-02-30T10:00:00Z", "2026-11-30 10:00:00", "2026-11-30T10:00:00.1234567+01:00", "now", "zzz-unknown"]
    if not isinstance(sch, dict):
        return out
    for key in ("maxLength", "minLength"):
        if key in sch:
            n = sch[key]
            out += ["y" * (n + 1), "y" * n, "y" * max(n - 1, 0), "é" * (n + 1), "😀" * n]
    for key in ("maxItems", "minItems"):
        if key in sch:
            n = sch[key]
            items = sch.get("items", {})
            first = items.get("enum", ["a"])[0] if isinstance(items, dict) else "a"
            out += [[first] * (n + 1), [first] * n, [first, first], list(range(n + 1))]
    for key in ("maximum", "minimum"):
        if key in sch:
            n = sch[key]
            out += [n - 1, n, n + 1, float(n) + 0.5, float(n)]
    if "maxProperties" in sch:
        out.append({f"ru-{i:04x}": {} for i in range(sch["maxProperties"] + 1)})
    if "enum" in sch:
        out += [e for e in sch["enum"]] + [str(sch["enum"][0]).upper(), f"{sch['enum'][0]} "]
    if "pattern" in sch:
        out += ["ru-12345", "l-abcd\n", "L-ABCD", "h-0123456789abcdef0", "p-0a1b", "x_1", "1abc", "http://a b",
                "https://example.com/x"]
    if "const" in sch:
        out += [sch["const"], True if sch["const"] == 1 else 1]
    return out


@st.composite
def mutated(draw, sch, doc):
    """`doc` with one to three places broken."""
    doc = json.loads(json.dumps(doc))
    for _ in range(draw(st.integers(1, 3))):
        places = list(_nodes(sch, doc))
        path, value, sub = draw(st.sampled_from(places))
        action = draw(st.sampled_from(["replace", "replace", "drop", "extra", "grow"]))
        if action == "drop" and isinstance(value, dict) and value:
            del value[draw(st.sampled_from(sorted(value)))]
        elif action == "extra" and isinstance(value, dict):
            value[draw(st.sampled_from(["colour", "zz", "id", "text", "ru-abcd", "A > B", "x" * 701]))] = \
                draw(st.sampled_from(_bad_values(True)))
        elif action == "grow" and isinstance(value, list) and value:
            value.extend([value[0]] * draw(st.integers(1, 1001)))
        elif path:
            parent = doc
            for p in path[:-1]:
                parent = parent[p]
            parent[path[-1]] = draw(st.sampled_from(_bad_values(sub)))
        else:
            doc = draw(st.sampled_from(_bad_values(sub)))
    return doc


def _template(name):
    return yamlio.plain(yamlio.load(template_text(name))) if name in SECTIONS else {}


# --------------------------------------------------------------------------- the tests

@pytest.mark.parametrize("name", NAMES)
def test_every_schema_in_schemas_compiles_with_the_subset(name):
    assert isinstance(schema.prepare(schema.schema(name)), schemacheck.Compiled)


@pytest.mark.parametrize("section", SECTIONS)
def test_templates_are_valid_to_both(section):
    doc = yamlio.load(template_text(section))  # as read: ruamel's CommentedMap and scalar types
    assert agree(schema.schema(section), doc)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_generated_documents_get_the_same_verdict_path_and_message(name, data):
    sch = schema.schema(name)
    doc = data.draw(valid(sch))
    agree(sch, doc)
    agree(sch, data.draw(mutated(sch, doc)))
    agree(sch, data.draw(mutated(sch, _template(name))))


def test_generated_documents_are_mostly_valid_and_mutations_mostly_not():
    """The generator is not vacuous: the valid side finds valid documents, mutations break them."""
    for name in NAMES:
        sch = schema.schema(name)
        found = {True: 0, False: 0}

        @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        @given(data=st.data())
        def run(data):
            doc = data.draw(valid(sch))
            found[agree(sch, doc)] += 1
            found[agree(sch, data.draw(mutated(sch, doc)))] += 1
        run()
        assert found[True] >= 10 and found[False] >= 10, (name, found)


@pytest.mark.parametrize("section", SECTIONS)
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_documents_read_from_yaml_get_the_same_answer(section, data):
    """As cogit validates them: ruamel's round-trip types (CommentedMap, ScalarFloat, ...)."""
    sch = schema.schema(section)
    doc = data.draw(mutated(sch, _template(section)))
    try:
        loaded = yamlio.load(yamlio.dump(doc))
    except Exception:  # noqa: BLE001 - a value YAML cannot carry is not what this test is about
        return
    agree(sch, loaded)


def test_edge_values_of_types_and_equality():
    sch = {"type": "object", "properties": {
        "i": {"type": "integer", "minimum": 0, "maximum": 3}, "n": {"type": ["number", "null"], "exclusiveMaximum": 2},
        "e": {"enum": [1, True, "a", None, [1], {"a": 1}]}, "c": {"const": False}, "u": {"type": "array", "uniqueItems": True},
        "b": {"type": "boolean"}, "s": {"type": "string", "minLength": 1, "maxLength": 0}, "t": True,
        "a": {"type": "array", "items": False, "maxItems": 0, "minItems": 1}, "o": {"maxProperties": 0, "minProperties": 2}}}
    for value in [None, True, False, 0, 1, 1.0, 2.0, 3.5, -1, 10**20, "", "a", [], [1], [True], [1, 1.0], [1, True],
                  [[1], [1]], [{"a": 1}, {"a": 1}], {}, {"a": 1}, {"a": True}, float("inf")]:
        for key in sch["properties"]:
            agree(sch, {key: value})


def test_a_keyword_the_subset_does_not_implement_falls_back_to_jsonschema():
    for sch in [{"anyOf": [{"type": "string"}]}, {"$ref": "#/$defs/x", "$defs": {"x": {}}},
                {"type": "object", "patternProperties": {"^a": {}}}, {"prefixItems": [{}]},
                {"type": "string", "format": "email"}, {"type": "strange"}, {"dependentRequired": {"a": ["b"]}},
                {"properties": {"x": {"type": "string", "contentEncoding": "base64"}}}, {"properties": {"x": False}}]:
        with pytest.raises(schemacheck.Unsupported):
            schemacheck.compile_schema(sch, FORMATS)
    prepared = schema.prepare({"type": "object", "dependentRequired": {"a": ["b"]}})
    assert isinstance(prepared, Draft202012Validator)  # the new keyword is still enforced, by jsonschema
    assert [e.message for e in prepared.iter_errors({"a": 1})] == ["'b' is a dependency of 'a'"]


def test_errors_name_the_field_as_hand_edits_are_refused():
    from cogit.errors import InvalidState

    doc = _template("learnings")
    doc["items"] = [{"id": "l-abcd", "text": "x" * 2001, "category": "insight",
                     "created_at": "2026-11-30T10:00:00Z", "updated_at": "2026-11-30T10:00:00Z", "source": "agent"}]
    with pytest.raises(InvalidState) as e:
        schema.check_changed("learnings", doc, {}, "learnings.yaml")
    assert "learnings.yaml: field $.items[0].text: " in str(e.value) and "is too long" in str(e.value)


PROBE = """
import json, sys
from cogit.cli import main
code = main(sys.argv[1:])
print(json.dumps([code, sorted(m for m in sys.modules if m.startswith(("jsonschema", "referencing")))]))
"""


def test_a_cold_add_does_not_import_jsonschema(initialized):
    out = subprocess.run([sys.executable, "-c", PROBE, "add", "learning", "validated without jsonschema"],
                         capture_output=True, text=True, cwd=initialized.home.parent, check=True).stdout
    code, modules = json.loads(out.splitlines()[-1])
    assert code == 0
    assert modules == []
