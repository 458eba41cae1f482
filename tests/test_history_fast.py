"""The fast paths of history give the answers of the slow ones.

`why` and `log --item` read the item index (runtime/cache/history.idx) instead of
diffing every commit; `commit_changes` diffs only the files whose blob changed;
`status` counts commits from kept counts. Each is checked here against the plain
definition (a full walk, full states diffed) on histories with adds, uses, forgets,
caps, reverts, hand edits, merges and same-second commits, before and after the
history grows (the index and the counts are kept across calls).
"""

from __future__ import annotations

import random

import pytest

from cogit.paths import Home
from cogit.store.history import log as history
from cogit.store.history import revert as history_revert
from cogit.store import memory
from cogit.store.state import yamlio
from cogit.store.git import repo as git
from cogit.store.history.diff import diff_states
from cogit.store.git.provenance import Provenance
from cogit.status import count_commits
from cogit.store.write.transact import Change, load_state, transact


def slow_changes(repo, sha, only_id=None):
    """What a commit changed, by the definition: both whole states, diffed."""
    info = git.info(repo, sha)
    parent = info.parents[0] if info.parents else None
    before = yamlio.plain(dict(load_state(repo, parent))) if parent else {}
    after = yamlio.plain(dict(load_state(repo, sha)))
    changes = diff_states(before, after)
    return [c for c in changes if only_id is None or c.key == only_id]


def slow_why(home, item_id, branch=git.MAIN):
    repo = git.open_repo(home.memory)
    try:
        out = []
        for info in git.walk(repo, git.head(repo, branch)):
            changes = slow_changes(repo, info.sha, item_id)
            if changes:
                out.append((info.sha, [(c.to_json(), c.render()) for c in changes]))
        return out
    finally:
        repo.close()


def fast_why(home, item_id, branch=git.MAIN):
    return [(e.sha, [(c.to_json(), c.render()) for c in ch]) for e, ch in history.why(home, item_id, branch)]


def all_ids(home):
    repo = git.open_repo(home.memory)
    try:
        ids = set()
        for info in git.walk(repo, git.head(repo)):
            ids |= {c.key for c in slow_changes(repo, info.sha)}
        return sorted(ids)
    finally:
        repo.close()


def grow(home, rng, n, tag):
    """n random changes of the kinds agents and people make."""
    for i in range(n):
        state = memory.read(home)[1]
        learnings = [it["id"] for it in state["learnings"]["items"]]
        heuristics = [it["id"] for it in state["heuristics"]["items"]]
        roll = rng.random()
        if roll < 0.4 or not learnings:
            memory.write(home, Provenance(event="learning.add"), memory.add_item("learnings", f"{tag} lesson {i} {rng.random()}"))
        elif roll < 0.55:
            memory.write(home, Provenance(event="heuristic.add"), memory.add_item("heuristics", f"{tag} heuristic {i}"))
        elif roll < 0.7 and heuristics:
            memory.write(home, Provenance(event="heuristic.use"), memory.use_heuristic(rng.choice(heuristics)))
        elif roll < 0.8:
            memory.write(home, Provenance(event="item.forget"), memory.forget(rng.choice(learnings)))
        else:
            memory.write(home, Provenance(event="focus.set"), memory.set_focus(f"{tag} focus {i}", [f"p{i}"]))


def merge_side_branch(home, rng, tag):
    """A side branch forked from main's head, grown, then merged into main by a merge commit."""
    repo = git.open_repo(home.memory)
    try:
        git.create_branch(repo, "side-" + tag, git.head(repo))
    finally:
        repo.close()
    for i in range(3):
        transact(home, Provenance(event="learning.add"), memory.add_item("learnings", f"side {tag} {i}"), branch="side-" + tag)
    memory.write(home, Provenance(event="learning.add"), memory.add_item("learnings", f"main while side {tag}"))
    repo = git.open_repo(home.memory)
    try:
        side = git.head(repo, "side-" + tag)
        side_items = load_state(repo, side)["learnings"]["items"]
    finally:
        repo.close()

    def merge(state):
        known = {it["id"] for it in state["learnings"]["items"]}
        state["learnings"]["items"] += [it for it in side_items if it["id"] not in known]
        return Change(f"Merge side {tag}")

    transact(home, Provenance(event="sync.merge", source="sync"), merge, extra_parents=[side])


@pytest.fixture
def home(tmp_path):
    h = Home(tmp_path / "home")
    memory.init(h)
    return h


def check_all(home):
    ids = all_ids(home)
    assert ids
    for item_id in ids + ["l-000000", "focus"]:
        assert fast_why(home, item_id) == slow_why(home, item_id), item_id
        fast_log = [e.sha for e in history.log(home, item=item_id)]
        assert fast_log == [sha for sha, _ in slow_why(home, item_id)], item_id
    repo = git.open_repo(home.memory)
    try:
        head = git.head(repo)
        walked = [i.sha for i in git.walk(repo, head)]
        assert list(history.ItemIndex(home, repo).walk(head)) == walked  # the same order as git.walk
        assert count_commits(home, repo, head) == len(walked)
    finally:
        repo.close()


@pytest.mark.parametrize("seed", [1, 2])
def test_fast_paths_match_the_full_walk_as_history_grows(home, seed):
    rng = random.Random(seed)
    grow(home, rng, 25, "a")
    check_all(home)  # builds the index and the counts
    # Then every kind of later change: the index and counts are extended, never stale.
    grow(home, rng, 10, "b")
    repo = git.open_repo(home.memory)
    try:
        target = next(i.sha for i in git.walk(repo, git.head(repo)) if i.message.startswith("Add learning"))
    finally:
        repo.close()
    try:
        history_revert.revert(home, target, Provenance(event="revert"))
    except Exception:
        pass  # a later change of the same item refuses the revert: fine, the history is what it is
    (home.memory / "focus.yaml").write_text((home.memory / "focus.yaml").read_text() + "# a person's note\n")
    text = (home.memory / "learnings.yaml").read_text()
    (home.memory / "learnings.yaml").write_text(text.replace("lesson", "Lesson", 1))
    memory.commit_hand_edits(home)
    merge_side_branch(home, rng, "x")
    grow(home, rng, 5, "c")
    check_all(home)


def test_commit_changes_diffs_only_changed_blobs_with_the_same_result(home):
    grow(home, random.Random(3), 30, "d")
    merge_side_branch(home, random.Random(4), "y")
    repo = git.open_repo(home.memory)
    try:
        for info in git.walk(repo, git.head(repo)):
            fast = [(c.to_json(), c.render(), c.old, c.new) for c in history.commit_changes(repo, info.sha)]
            slow = [(c.to_json(), c.render(), c.old, c.new) for c in slow_changes(repo, info.sha)]
            assert fast == slow
    finally:
        repo.close()


def test_a_torn_or_foreign_index_line_is_ignored_and_the_commit_indexed_again(home):
    grow(home, random.Random(5), 12, "e")
    ids = all_ids(home)
    expected = {i: slow_why(home, i) for i in ids}
    assert {i: fast_why(home, i) for i in ids} == expected
    path = home.runtime / "cache" / "history.idx"
    lines = path.read_text().splitlines(keepends=True)
    # tear the last line, garble one in the middle, add a line of nonsense
    lines[-1] = lines[-1][: len(lines[-1]) // 2]
    lines[3] = "not an index line\n"
    path.write_text("".join(lines) + "0" * 40 + " x y z\n")
    assert {i: fast_why(home, i) for i in ids} == expected
    path.write_text("something else entirely\n")
    assert {i: fast_why(home, i) for i in ids} == expected


def test_status_counts_like_a_full_walk_after_merges_and_growth(home):
    rng = random.Random(6)
    grow(home, rng, 5, "f")
    repo = git.open_repo(home.memory)
    try:
        assert count_commits(home, repo, git.head(repo)) == 6
    finally:
        repo.close()
    merge_side_branch(home, rng, "z")
    grow(home, rng, 3, "g")
    merge_side_branch(home, rng, "w")
    repo = git.open_repo(home.memory)
    try:
        head = git.head(repo)
        full = sum(1 for _ in repo.get_walker(include=[head.encode()]))
        assert count_commits(home, repo, head) == full
        (home.runtime / "cache" / "commit-counts.json").write_text("[not a map")
        assert count_commits(home, repo, head) == full
    finally:
        repo.close()


def slow_event_log(home, event, limit=None, branch=git.MAIN):
    """`log --event E` by the definition: every commit walked, its trailers parsed."""
    repo = git.open_repo(home.memory)
    try:
        out = []
        for info in git.walk(repo, git.head(repo, branch)):
            e = history._entry(info)
            ev = e.trailers.get("Cogit-Event", "")
            if ev == event or ev.startswith(event + "."):
                out.append(e)
                if limit and len(out) >= limit:
                    break
        return out
    finally:
        repo.close()


def test_log_event_read_through_git_matches_the_full_walk(home, monkeypatch):
    """A rare, an old, a prefix and an absent event, past what the recent file keeps and
    with no recent file at all, across merges and same-second commits: the answer read
    through `git rev-list --grep` + `cat-file` (history/gitlog.py) is the full walk's."""
    from cogit.store.history import gitlog
    from cogit.store.history import index as hx

    rng = random.Random(5)
    grow(home, rng, 20, "a")
    merge_side_branch(home, rng, "x")
    grow(home, rng, 15, "b")
    merge_side_branch(home, rng, "y")
    grow(home, rng, 5, "c")
    root, cache = str(home.root), str(home.runtime / "cache")
    head = git.head(git.open_repo(home.memory))
    assert gitlog.event_commits(str(home.memory / ".git"), head, "init") is not None  # git answers here
    for recent in (None, 5):
        if recent:
            monkeypatch.setattr(hx, "RECENT", recent)
            history.refresh_recent(home)  # a recent file that holds only the newest 5
        for event in ("init", "learning", "learning.add", "sync.merge", "focus.set", "no.such", "heuristic.use"):
            for limit in (None, 1, 3, 20):
                want = sorted(slow_event_log(home, event, limit), key=lambda e: -e.time)
                fast = hx.log(root, cache, event=event, limit=limit)
                assert [e for _, _, e in fast] == want, (event, limit, recent)
                assert history.log(home, event=event, limit=limit) == slow_event_log(home, event, limit), (event, limit)


def test_log_event_on_a_history_without_merges_reads_no_graph(home, monkeypatch):
    """Without a merge (`rev-list --merges` finds none) the commits `rev-list --grep` lists
    are already in git.walk's order: no graph is read, and the answer is the full walk's,
    same-second commits included; one merge later, the graph is read again."""
    from cogit.store.history import gitlog

    rng = random.Random(9)
    grow(home, rng, 25, "a")
    head = git.head(git.open_repo(home.memory))
    assert gitlog.event_commits(str(home.memory / ".git"), head, "learning") not in (None, [])  # git answers here
    graphs = []
    real = gitlog._walk_order
    monkeypatch.setattr(gitlog, "_walk_order", lambda *a: graphs.append(1) or real(*a))
    for event in ("init", "learning", "learning.add", "focus.set", "no.such"):
        for limit in (None, 1, 20):
            assert history.log(home, event=event, limit=limit) == slow_event_log(home, event, limit), (event, limit)
    assert graphs == []
    merge_side_branch(home, rng, "x")
    assert history.log(home, event="init") == slow_event_log(home, "init")
    assert graphs
