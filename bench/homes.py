"""Memory homes of N commits for the benchmarks, built through cogit's own write code.

Each commit is one of the changes agents and people make (add a learning, heuristic or
avoidance, use a heuristic, set the focus, forget an item), made by the same `Apply`
functions `cogit add` & co. hand to the write path, then run through the write path's own
steps: caps (`apply_caps`, the commit names what they prune), `stamp_changes`, schema
validation of what changed (`check_changed`), the canonical YAML writer (`_serialize`)
and the provenance message (`provenance.message`). What is batched, for speed: one lock
for the whole build, objects written as a pack every few thousand commits instead of
loose, and the working tree, index and digest cache written once at the end (the write
path writes them per commit; they hold only the newest state). Redaction is skipped: the
texts are generated and hold no secrets. Commit times are spread over three years.

One heuristic (the "old item") is added in the first commits and used every 97 commits,
so `cogit why` of it has a long history to search; learnings fill their cap of 50 and are
pruned, as in real use. A manifest (manifest.json next to the home) records the old item,
the commit count and the building speed.

    python bench/homes.py DIR N      # build one home (bench/run does this for you)
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

EVENTS = ("learning.add", "heuristic.use", "focus.set", "item.forget", "heuristic.add", "avoidance.add")
WEIGHTS = (45, 20, 15, 8, 6, 6)
TOUCHES = {"learning.add": ("learnings",), "item.forget": ("learnings",), "heuristic.add": ("heuristics",),
           "heuristic.use": ("heuristics",), "avoidance.add": ("avoidances",), "focus.set": ("focus",)}
OLD_ITEM_EVERY = 97
FLUSH_EVERY = 5000  # commits per pack
SPAN = 3 * 365 * 86400  # commit times spread over three years, ending now


def build(root: Path, commits: int) -> dict:
    """Create the memory home `root` with `commits` commits on main; return the manifest."""
    from dulwich.objects import Blob, Commit, Tree

    from cogit.paths import Home
    from cogit.store import memory
    from cogit.store.state import schema
    from cogit.store.git import repo as git
    from cogit.store.git import worktree
    from cogit.store.git.provenance import Provenance, message
    from cogit.store.state.documents import STATE_FILES, apply_caps, filename, stamp_changes
    from cogit.store.write.transact import _serialize, describe_pruned, load_state, memory_lock
    from cogit.store.state import yamlio
    from cogit.store.cache import digest

    started = time.perf_counter()
    home = Home(root)
    memory.init(home)  # commit 1: the real `cogit init`
    rng = random.Random(commits)
    end = int(time.time())
    begin = end - SPAN
    made = 1
    old_item = None
    with memory_lock(home):
        repo = git.open_repo(home.memory)
        try:
            head = git.head(repo)
            committer = git.machine_committer(repo)
            tree = {e.path: (e.mode, e.sha) for e in repo[repo[head.encode()].tree].items()}
            texts = git.read_files(repo, head)
            state = load_state(repo, head)
            pending: list = []
            while made < commits:
                i = made
                if old_item is None:
                    event = "heuristic.add"
                elif i % OLD_ITEM_EVERY == 0:
                    event = "heuristic.use"
                else:
                    event = rng.choices(EVENTS, WEIGHTS)[0]
                prov = Provenance(event=event, source="hook" if i % 3 else "cli", agent="claude-code" if i % 3 else "human",
                                  session=f"bench-session-{i // 25:06d}")
                if event == "learning.add":
                    apply = memory.add_item("learnings", f"Lesson {i}: run the narrow test file before the whole suite",
                                            category=("insight", "pattern", "mistake", "feedback")[i % 4])
                elif event == "heuristic.add":
                    apply = memory.add_item("heuristics", f"Heuristic {i}: reproduce the failure before changing code")
                elif event == "avoidance.add":
                    apply = memory.add_item("avoidances", f"Avoidance {i}: do not retry a failing command unchanged")
                elif event == "heuristic.use":
                    items = state["heuristics"]["items"]
                    if not items:
                        continue
                    target = old_item if i % OLD_ITEM_EVERY == 0 else rng.choice(items)["id"]
                    apply = memory.use_heuristic(target)
                elif event == "item.forget":
                    items = state["learnings"]["items"]
                    if not items:
                        continue
                    apply = memory.forget(rng.choice(items)["id"])
                else:
                    apply = memory.set_focus(f"Focus {i}: the module under work", [f"priority {i % 7}"])
                touched = TOUCHES[event]  # what this change (and its caps) can alter
                before = {s: yamlio.plain(state[s]) for s in touched}
                change = apply(state)
                if change is None:
                    continue
                pruned = apply_caps(state, state.get("config"))
                stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(begin + SPAN * i // commits))
                after = {s: yamlio.plain(state[s]) for s in touched}
                changed = [s for s in touched if after[s] != before[s]]
                objects = []
                for section in changed:
                    stamp_changes(state[section], before[section], stamp)
                    name = filename(section)
                    schema.check_changed(section, state[section], before[section], name)
                    after[section] = yamlio.plain(state[section])
                    old_blob = tree[name.encode()][1].decode() if name.encode() in tree else None
                    data = _serialize(section, texts.get(name), before[section], after[section], old_blob)
                    texts[name] = data
                    blob = Blob.from_string(data)
                    objects.append(blob)
                    tree[name.encode()] = (git.FILE_MODE, blob.id)
                if event == "heuristic.add" and old_item is None:
                    old_item = change.trailers["Cogit-Item"]
                body = describe_pruned(pruned)
                prov.extra.update(change.trailers)
                if pruned:
                    prov.extra["Cogit-Pruned"] = " ".join(sorted({p.get("id", "?") for _, p in pruned}))
                t = Tree()
                for key, (mode, sha) in tree.items():
                    t.add(key, mode, sha)
                c = Commit()
                c.tree = t.id
                c.parents = [head.encode()]
                c.author = prov.author_line()
                c.committer = committer
                c.author_time = c.commit_time = begin + SPAN * i // commits
                c.author_timezone = c.commit_timezone = 0
                c.encoding = b"UTF-8"
                c.message = message(change.summary, body, prov)
                pending += [*objects, t, c]
                head = c.id.decode()
                made += 1
                if made % FLUSH_EVERY == 0 or made == commits:
                    _flush(repo, pending, head)
                    pending = []
            if pending:
                _flush(repo, pending, head)
            files = {name: texts[name] for name in texts}
            worktree.sync_worktree(repo, home.memory, files, STATE_FILES)
            digest.refresh(home, repo, git.MAIN)
        finally:
            repo.close()
    seconds = time.perf_counter() - started
    manifest = {"commits": made, "old_item": old_item, "event": "focus.set", "build_seconds": round(seconds, 2),
                "commits_per_s": round(made / seconds, 1)}
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return manifest


def _flush(repo, objects: list, head: str) -> None:
    from cogit.store.git import repo as git

    old = git.head(repo)
    repo.object_store.add_objects([(o, None) for o in objects])
    if not repo.refs.set_if_equals(git.branch_ref(git.MAIN), old.encode(), head.encode()):
        raise RuntimeError("main moved while building the benchmark home")


if __name__ == "__main__":
    print(json.dumps(build(Path(sys.argv[1]), int(sys.argv[2]))))
