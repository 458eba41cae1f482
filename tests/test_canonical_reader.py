"""The fast reader of cogit's canonical YAML layout agrees with ruamel.yaml, always.

Pull validation trusts `canonical_reader.read` for files in cogit's own layout; it
accepts a text only if `yamlio.canonical` renders the result back to the same text.
That is sound if ruamel.yaml reads every canonical text as the same data: checked
here, together with agreement on arbitrary (mostly not canonical) texts.
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from cogit.store.state import yamlio
from cogit.store.state import canonical_reader
from cogit.store.state.schema import SECTIONS
from cogit.store.state.documents import template_text

KEYS = st.one_of(st.text(alphabet="abcdefghij_", min_size=1, max_size=8), st.text(min_size=1, max_size=8))
SCALARS = st.one_of(
    st.integers(-10**12, 10**12), st.booleans(), st.none(),
    st.floats(allow_nan=False, width=64), st.text(max_size=30),
    st.sampled_from(["yes", "no", "null", "~", "2026-11-30T10:00:00Z", "1.5", "0x1f", "- x", "a: b", "#c", "'q'", "[1]", "{}"]),
)
DOCS = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
                    max_leaves=14)


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


@settings(max_examples=300, deadline=None)
@given(doc=st.dictionaries(KEYS, DOCS, min_size=1, max_size=5), header=st.sampled_from(["", "# a comment\n", "# one\n# two\n"]))
def test_canonical_text_reads_the_same_both_ways(doc, header):
    text = yamlio.canonical(doc, header)
    if text is None:
        return
    fast = canonical_reader.read(text.encode())
    slow = yamlio.plain(yamlio.load(text))
    assert same(slow, doc), text
    assert fast is None or same(fast, doc), text  # None: the caller asks ruamel.yaml


ITEM = st.fixed_dictionaries({
    "id": st.from_regex(r"\Al-[0-9a-f]{6}\Z"), "text": st.text(min_size=1, max_size=60),
    "category": st.sampled_from(["insight", "pattern"]), "source": st.just("hook"),
    "created_at": st.just("2026-11-30T10:00:00Z"), "updated_at": st.just("2026-11-30T10:00:00Z"),
    "use_count": st.integers(0, 10**6), "last_used": st.none(), "context": st.text(max_size=20),
})


@settings(max_examples=200, deadline=None)
@given(items=st.lists(ITEM, max_size=6))
def test_state_files_cogit_writes_take_the_fast_path(items):
    doc = {"schema_version": 1, "items": items}
    text = yamlio.canonical(doc, "# learnings\n")
    assert same(canonical_reader.read(text.encode()), doc)
    assert same(yamlio.plain(yamlio.load(text)), doc)


@settings(max_examples=300, deadline=None)
@given(doc=st.dictionaries(KEYS, DOCS, min_size=1, max_size=4), cut=st.integers(0, 400), insert=st.sampled_from(
    ["", " ", "\n", "#", "- ", ": ", "&a ", "*a", "\t", "'", '"', "  ", "x:", "\n  y: 1"]))
def test_any_other_text_is_refused_or_read_as_ruamel_reads_it(doc, cut, insert):
    text = yamlio.canonical(doc, "")
    if text is None:
        return
    cut = min(cut, len(text))
    mutated = text[:cut] + insert + text[cut:]
    fast = canonical_reader.read(mutated.encode())
    if fast is None:
        return
    try:
        slow = yamlio.plain(yamlio.load(mutated))
    except yamlio.YamlProblem:
        raise AssertionError(f"fast reader accepted text ruamel refuses: {mutated!r}")
    assert same(fast, slow), mutated


def test_templates_and_hand_written_layouts():
    for section in SECTIONS:
        text = template_text(section)
        doc = yamlio.plain(yamlio.load(text))
        canonical = yamlio.canonical(doc, yamlio.header_of(text))
        assert same(canonical_reader.read(canonical.encode()), doc)
    # A person's layout (flow style, comments inside, other quoting) is left to ruamel.
    for text in ("a: [1, 2]\n", "a: 1  # note\n", "a: 'x'\n", "a:\n- 1\n", "a: &x 1\nb: *x\n", "a: 1\na: 2\n", b"\xff".decode("latin-1")):
        assert canonical_reader.read(text.encode()) is None


def test_an_extra_space_after_a_dash_is_refused_at_once():
    # Found by the property test in CI: "-  x: y" made the sequence reader loop forever.
    for text in (b"items:\n  -  x: y\n", b"a:\n  -  - b: c\n", b"items:\n  -   id: l-1\n    text: t\n"):
        assert canonical_reader.read(text) is None


@settings(max_examples=300, deadline=None)
@given(items=st.lists(ITEM, min_size=1, max_size=4), cut=st.integers(0, 1500), insert=st.sampled_from(
    ["", " ", "\n", "#", "- ", "  - ", ": ", "\t", "'", '"', "  ", "x: 1\n", "\n  - id: l-000000", "\n    y: 1", "items:\n"]))
def test_entries_read_before_never_vouch_for_a_file_that_is_not_canonical(items, cut, insert):
    # Pull validation reads each list entry once (the same entries recur in every version of
    # a file); a file of known entries must still be refused unless it is canonical as a whole.
    doc = {"schema_version": 1, "items": items}
    text = yamlio.canonical(doc, "# learnings\n")
    assert same(canonical_reader.read(text.encode()), doc)  # every entry is known now
    assert same(canonical_reader.read(text.encode()), doc)  # and read again from what is known
    cut = min(cut, len(text))
    mutated = text[:cut] + insert + text[cut:]
    fast = canonical_reader.read(mutated.encode())
    if fast is None:
        return
    try:
        slow = yamlio.plain(yamlio.load(mutated))
    except yamlio.YamlProblem:
        raise AssertionError(f"fast reader accepted text ruamel refuses: {mutated!r}")
    assert same(fast, slow), mutated
    assert yamlio.canonical(fast, yamlio.header_of(mutated)) == mutated, mutated


def test_a_known_entry_does_not_hide_a_changed_neighbour_or_key():
    one = {"id": "l-000001", "text": "first", "category": "insight", "source": "hook",
           "created_at": "2026-11-30T10:00:00Z", "updated_at": "2026-11-30T10:00:00Z"}
    two = dict(one, id="l-000002", text="second")
    text = yamlio.canonical({"schema_version": 1, "items": [one, two]}, "")
    assert same(canonical_reader.read(text.encode()), {"schema_version": 1, "items": [one, two]})
    for bad in (text.replace("text: second", "text: 'second'"),       # a new entry, not canonical
                text.replace("schema_version: 1", "schema_version:  1"),  # the rest, not canonical
                text.replace("schema_version: 1\n", "") + "schema_version: 1\nitems: []\n",  # a second list
                text.replace("  - id: l-000002", " - id: l-000002"),     # an entry out of its list
                text.replace("\n  - id: l-000002", "\n\n  - id: l-000002")):
        fast = canonical_reader.read(bad.encode())
        assert fast is None or yamlio.canonical(fast, "") == bad, bad
    changed = text.replace("text: second", "text: second and changed")
    assert canonical_reader.read(changed.encode())["items"][1]["text"] == "second and changed"
