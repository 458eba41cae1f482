"""Property tests: the store against a simple in-memory model, and YAML round trips."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogit.paths import Home
from cogit.store.history import log as history
from cogit.store.history import revert as history_revert
from cogit.store import memory
from cogit.store.state import schema, yamlio
from cogit.store.git.provenance import Provenance
from cogit.store.state.documents import ITEM_SECTIONS

TEXT = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FF, categories=["L", "N", "P", "Zs"]), min_size=1, max_size=30).filter(
    lambda t: t.strip() != "" and " ".join(t.split()) == t
)
STEP = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(["learnings", "heuristics", "avoidances"]), TEXT),
    st.tuples(st.just("forget"), st.integers(0, 50)),
    st.tuples(st.just("focus"), TEXT),
    st.tuples(st.just("revert"), st.integers(0, 50)),
)


def view(state: dict) -> dict:
    """What the model tracks: per section, the (id, text) list; and the focus."""
    return {
        **{s: [(i["id"], i["text"]) for i in state[s]["items"]] for s in ("learnings", "heuristics", "avoidances")},
        "focus": state["focus"]["current"],
    }


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(STEP, min_size=1, max_size=12))
def test_random_sequences_match_the_model(tmp_path_factory, steps):
    home = Home(tmp_path_factory.mktemp("prop"))
    memory.init(home)
    model = {"learnings": [], "heuristics": [], "avoidances": [], "focus": ""}
    history_models = []  # (sha, model before, model after) of each commit made
    for step in steps:
        before = copy.deepcopy(model)
        prov = Provenance(event="test", source="cli")
        if step[0] == "add":
            _, section, text = step
            result = memory.write(home, prov, memory.add_item(section, text))
            if any(t == text for _, t in model[section]):
                assert result is None
            else:
                sha, state = memory.read(home)
                model[section].append(view(state)[section][-1])
                assert model[section][-1][1] == text
        elif step[0] == "forget":
            all_ids = [(s, i) for s in ("learnings", "heuristics", "avoidances") for i, _ in model[s]]
            if not all_ids:
                continue
            section, item_id = all_ids[step[1] % len(all_ids)]
            result = memory.write(home, prov, memory.forget(item_id))
            model[section] = [p for p in model[section] if p[0] != item_id]
        elif step[0] == "focus":
            result = memory.write(home, prov, memory.set_focus(step[1], None))
            model["focus"] = step[1]
        else:
            if not history_models:
                continue
            sha, was, became = history_models[step[1] % len(history_models)]
            later = history_models[history_models.index((sha, was, became)) + 1:]
            try:
                result = history_revert.revert(home, sha, prov)
            except Exception as e:  # a later commit touched the same item: nothing changes
                assert type(e).__name__ == "Conflict"
                assert any(_touched(was, became) & _touched(w, b) for _, w, b in later)
                assert view(memory.read(home)[1]) == model
                continue
            model = _undo(model, was, became)
        _, state = memory.read(home)
        assert view(state) == model
        for section in schema.SECTIONS:
            assert schema.problems(section, state[section]) == []
        if result is not None:
            history_models.append((result.sha, before, copy.deepcopy(model)))


def _touched(before, after) -> set:
    keys = set()
    for s in ("learnings", "heuristics", "avoidances"):
        if before[s] != after[s]:
            keys |= set(before[s]) ^ set(after[s])
    if before["focus"] != after["focus"]:
        keys.add(("focus",))
    return {k[0] if isinstance(k, tuple) else k for k in keys}


def _undo(model, was, became):
    model = copy.deepcopy(model)
    for s in ("learnings", "heuristics", "avoidances"):
        added = [p for p in became[s] if p not in was[s]]
        removed = [p for p in was[s] if p not in became[s]]
        model[s] = [p for p in model[s] if p not in added] + [p for p in removed if p not in model[s]]
    if was["focus"] != became["focus"]:
        model["focus"] = was["focus"]
    return model


KEYS = st.text(alphabet="abcdefghij_", min_size=1, max_size=8)
SCALARS = st.one_of(st.integers(-10**6, 10**6), st.booleans(), st.none(), TEXT, st.text(max_size=20))
DOCS = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)), max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(doc=st.dictionaries(KEYS, DOCS, min_size=1, max_size=5))
def test_yaml_dump_load_keeps_data(doc):
    assert yamlio.plain(yamlio.load(yamlio.dump(doc))) == doc


@settings(max_examples=100, deadline=None)
@given(new_text=TEXT, comment=st.text(alphabet="abc xyz.,", min_size=1, max_size=20))
def test_yaml_round_trip_keeps_comments_through_an_edit(new_text, comment):
    text = f"# top: {comment}\nschema_version: 1\nitems:\n  # about the first\n  - id: l-abcdef\n    text: first  # trailing {comment}\n"
    doc = yamlio.load(text)
    plain = yamlio.plain(doc)
    plain["items"].append({"id": "l-123456", "text": new_text})
    out = yamlio.dump(yamlio.update(doc, plain))
    assert f"# top: {comment}" in out and "# about the first" in out and f"# trailing {comment}" in out
    assert yamlio.plain(yamlio.load(out)) == plain


def test_item_sections_constant_matches_schemas():
    for section in ITEM_SECTIONS:
        assert "items" in schema.schema(section)["properties"]
