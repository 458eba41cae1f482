"""The drift sense tokenizes by hand (no `re` on the hook path); these properties hold it to
exactly what the regular expressions it replaced give, on any text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from cogit.senses import drift

ALPHABET = st.sampled_from(list("aAbBzZxHTTPServer_09./\\- \t\nçÉ٣Ⅻ²ß'\"(),:") + ["\u00a0", "\u2003"])
TEXT = st.lists(ALPHABET, max_size=60).map("".join)


@settings(max_examples=600, deadline=None)
@given(TEXT)
def test_words_are_what_the_patterns_find(text):
    assert drift.words_of(text) == re.findall(r"[A-Za-z_][\w./\\-]*", text)
    assert drift.words_of(text, extra="", min_len=3) == re.findall(r"[A-Za-z_]\w{2,}", text)


@settings(max_examples=600, deadline=None)
@given(TEXT)
def test_parts_are_what_the_patterns_find(text):
    assert drift._split_seps(text) == re.split(r"[/\\._\-]+", text)
    assert drift._camel(text) == re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+", text)


def test_known_splits():
    assert drift._camel("HTTPServerError2") == ["HTTP", "Server", "Error", "2"]
    assert drift.prompt_terms("Fix parseHTTPResponse in src/net/client_pool.py please") == [
        "parsehttpresponse", "parse", "http", "response", "net", "client", "pool"]


def test_the_prompt_path_imports_no_re():
    import subprocess
    import sys

    # `re` is dropped from sys.modules first: an editable install's import finder preloads
    # it, which would hide an import the hook path makes.
    code = ("import sys; from cogit.senses.drift import prompt_terms, call_terms; "
            "[sys.modules.pop(m) for m in list(sys.modules) if m == 're' or m.startswith('re.')]; "
            "prompt_terms('Fix parseHTTPResponse in src/net/client_pool.py and the widgets import'); "
            "call_terms({'kind': 'read', 'target': '/tmp/src/app/HTTPServer.py'}, '/tmp'); "
            "call_terms({'kind': 'search', 'target': 'def parse_http in /tmp/src'}, '/tmp'); "
            "print('re' in sys.modules)")
    out = subprocess.run([sys.executable, "-E", "-P", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
