"""The hook path's JSON (the C accelerator without `import json`) agrees with json."""

from __future__ import annotations

import json
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from cogit import jsonio

VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text()),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(value=VALUES, ascii_only=st.booleans())
def test_round_trip_agrees_with_json(value, ascii_only):
    text = jsonio.dumps(value, ensure_ascii=ascii_only)
    assert text == json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":"))
    assert jsonio.loads(text) == json.loads(text) == value
    assert jsonio.loads("  \n" + json.dumps(value, indent=2) + "\n ") == value


def test_errors_are_json_errors_even_when_json_was_never_imported():
    # In a hook process json is not imported; the C scanner reports errors through it.
    code = (
        "import sys\n"
        "from cogit import jsonio\n"
        "assert 'json' not in sys.modules\n"
        "for bad in ('{bad', '[1,]', '{} x', '', '\"open'):\n"
        "    try:\n"
        "        jsonio.loads(bad)\n"
        "    except ValueError as e:\n"
        "        print(type(e).__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["JSONDecodeError"] * 5


def test_default_and_unserializable():
    assert jsonio.dumps({"a": b"x"}, default=str) == '{"a":"b\'x\'"}'
    try:
        jsonio.dumps({"a": object()})
    except TypeError as e:
        assert "not JSON serializable" in str(e)
    else:
        raise AssertionError("no TypeError")
