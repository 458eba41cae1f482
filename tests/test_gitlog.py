"""The pieces history/gitlog.py shares with the walks through git (itemwalk, wordwalk):
the walk order rebuilt from rev-list's lines, the `git log --raw` reader, and the bounds
that keep a 100,000-commit history in bounded memory (issue 25 part 4)."""

from __future__ import annotations

import heapq
import random
import tracemalloc

import pytest

from cogit.store.history import gitlog
from cogit.store.state import canonical_reader, yamlio


def reference_order(text: str, head: str, hits: set[str]) -> list[str] | None:
    """git.walk's order by its definition (newest commit time first, ties by sha, a commit
    only once a child brought it in), on plain tuples: what gitlog did before arrays."""
    rows = {}
    for line in text.splitlines():
        parts = line.split(" ")
        rows[parts[1]] = (int(parts[0]), parts[2:])
    if head not in rows or not hits <= rows.keys():
        return None
    order, queue, queued = [], [(-rows[head][0], head)], {head}
    while queue:
        _, sha = heapq.heappop(queue)
        if sha in hits:
            order.append(sha)
        for parent in rows[sha][1]:
            if parent not in queued:
                queued.add(parent)
                heapq.heappush(queue, (-rows[parent][0], parent))
    return order


def random_graph(rng: random.Random, n: int, merges: bool) -> tuple[str, str]:
    """rev-list's `time sha parents` lines of a random history (equal times and clocks
    that run backwards included), newest first, and its head."""
    shas = [f"{rng.getrandbits(160):040x}" for _ in range(n)]
    times = [1_700_000_000 + i * rng.choice((0, 1, 60, -30)) for i in range(n)]
    lines = []
    for i in range(n):
        parents = [] if i == 0 else [shas[i - 1]]
        if merges and i > 2 and rng.random() < 0.3:
            parents.append(shas[rng.randrange(0, i - 1)])
        lines.append(" ".join([str(times[i]), shas[i], *parents]) + "\n")
    return "".join(reversed(lines)), shas[-1]


@pytest.mark.parametrize("merges", [False, True])
def test_the_walk_order_is_git_walks_order_on_random_histories(merges):
    rng = random.Random(11 if merges else 7)
    for _ in range(60):
        text, head = random_graph(rng, rng.randrange(1, 80), merges)
        shas = [line.split(" ")[1] for line in text.splitlines()]
        for hits in (set(), set(shas), set(rng.sample(shas, min(len(shas), 5)))):
            assert gitlog._walk_order(text, head, hits) == reference_order(text, head, hits)
        assert gitlog._walk_order(text, "f" * 40, set()) is None  # not the head rev-list started from
        assert gitlog._walk_order(text, head, {"e" * 40}) is None  # a hit the graph does not hold
        assert gitlog._walk_order(text.replace("\n", " \n", 1), head, set()) is None  # a line that does not parse
    text, head = random_graph(rng, 30, True)
    first = text.splitlines()[0]
    assert gitlog._walk_order(first + " " + "d" * 40 + "\n" + text.split("\n", 1)[1], head, set()) is None  # a parent missing


@pytest.mark.parametrize("merges", [False, True])
def test_the_walk_order_of_100000_commits_takes_memory_in_proportion_to_its_text(merges):
    """A regular expression's `*` kept a backtracking mark per line (53 MB for 100,000
    lines) and the merged graph was held as tuples and lists (40 MB): arrays now."""
    text, head = random_graph(random.Random(3), 100_000, merges)
    hits = {text.splitlines()[5000].split(" ")[1]}
    tracemalloc.start()
    try:
        order = gitlog._walk_order(text, head, hits)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert order == list(hits)
    assert peak < (2.0 if merges else 0.2) * len(text), (peak, len(text))


def test_the_raw_log_reader_gives_each_commit_its_tracked_files():
    zero = "0" * 40
    a, b, c, r = "a" * 40, "b" * 40, "c" * 40, "9" * 40
    blob1, blob2 = "1" * 40, "2" * 40
    lines = [f"\x01200 {a} {b} {c}\n", f":100644 100644 {blob1} {blob2} M\tlearnings.yaml\n",
             f":100644 100644 {blob1} {blob2} M\tREADME.md\n", "\n",
             f"\x01100 {b} {r}\n", f":000000 100644 {zero} {blob1} A\tlearnings.yaml\n",
             f"\x0150 {r} \n", f":000000 100644 {zero} {blob1} A\ttools.yaml\n"]
    order = bytearray()
    got = list(gitlog.raw_commits([x.encode() for x in lines], {b"learnings.yaml": "learnings"}, order))
    assert got == [(a, False, [("learnings", blob1, blob2)]), (b, False, [("learnings", None, blob1)]), (r, True, [])]
    assert order.decode() == f"200 {a} {b} {c}\n100 {b} {r}\n50 {r}\n"  # rev-list's lines, a root's space gone
    with pytest.raises(ValueError):
        list(gitlog.raw_commits([lines[0].encode(), b":100644 100644 x M\tlearnings.yaml\n"],
                                {b"learnings.yaml": "learnings"}, bytearray()))


def test_the_canonical_readers_entry_cache_is_bounded_by_its_text(monkeypatch):
    """A walk through a long history reads tens of thousands of distinct entries: the
    cache of read entries is cleared by the size of their text, not their count."""
    monkeypatch.setattr(canonical_reader, "_ENTRIES", {})
    monkeypatch.setattr(canonical_reader, "_entries_size", 0)
    monkeypatch.setattr(canonical_reader, "_ENTRIES_LIMIT", 20_000)
    for n in range(300):
        doc = {"items": [{"id": f"l-{n:04d}{k:02d}", "text": "a lesson " * 20} for k in range(4)]}
        data = yamlio.canonical(doc).encode()
        assert canonical_reader.read(data) == doc
        held = sum(len(t) for t in canonical_reader._ENTRIES)
        assert held == canonical_reader._entries_size <= 20_000
    assert canonical_reader._ENTRIES  # and it does keep entries
