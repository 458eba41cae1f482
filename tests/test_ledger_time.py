"""ledger.parse_time reads times by hand: it must agree with time.strptime, which it replaces."""

from __future__ import annotations

import calendar
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from cogit.domain.ledger import parse_time


def strptime_way(text):
    if not text:
        return None
    try:
        return float(calendar.timegm(time.strptime(str(text)[:19], "%Y-%m-%dT%H:%M:%S")))
    except ValueError:
        return None


digits = st.text(st.sampled_from("0123456789٣ "), min_size=0, max_size=4)
times = st.builds(lambda parts, seps: "".join(p + s for p, s in zip(parts, seps)),
                  st.lists(st.one_of(digits, st.integers(0, 2100).map(str), st.integers(0, 99).map(lambda n: f"{n:02d}")),
                           min_size=6, max_size=6),
                  st.lists(st.sampled_from(["-", "-", "T", "t", ":", ":", " ", "Z", "", ".5Z", "+01:00"]), min_size=6, max_size=6))


def _field(lo, hi, width):
    return st.tuples(st.integers(lo, hi), st.booleans()).map(lambda t: f"{t[0]:0{width}d}" if t[1] else str(t[0]))


fields = st.builds(lambda y, mo, d, h, mi, s, sep, tail: f"{y}-{mo}-{d}{sep}{h}:{mi}:{s}{tail}",
                   _field(0, 2100, 4), _field(0, 13, 2), _field(0, 32, 2), _field(0, 25, 2), _field(0, 61, 2),
                   _field(0, 62, 2), st.sampled_from("Tt "), st.sampled_from(["", "Z", ".123Z", "+01:00", "x"]))


@settings(max_examples=3000, deadline=None)
@given(st.one_of(fields, times, st.text(max_size=25), st.from_regex(r"\A\d{4}-\d{1,2}-\d{1,2}T\d{1,2}:\d{1,2}:\d{1,2}.{0,6}\Z")))
def test_parse_time_agrees_with_strptime(text):
    assert parse_time(text) == strptime_way(text)


def test_known_times():
    for text in ["2026-11-30T10:00:00Z", "2024-02-29T23:59:60Z", "2026-02-30T10:00:00Z", "2026-1-5T1:2:3",
                 "2026-11-30t10:00:00", "2026-11-30 10:00:00", "", None, "0000-01-01T00:00:00", "2026-11-30T10:00"]:
        assert parse_time(text) == strptime_way(text), text
    assert parse_time("2026-11-30T10:00:00Z") == 1796032800.0
