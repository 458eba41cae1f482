"""Housekeeping after sessions (cogit/store/maintain.py, store/git/pack.py,
store/cache/tidy.py): packing, pruning, reflogs, the parse cache, logs, import indexes.

Real repositories and the real `git` binary throughout; limits are lowered per test so a
few commits pass them. Every test ends with `git fsck --strict` and every commit there.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

from cogit.locking import queued_lock
from cogit.paths import Home
from cogit.store import maintain
from cogit.store.cache import tidy


def _commits(c, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        c.run("add", "learning", f"lesson number {i} about packing memory")


def _all_commits(c) -> list[str]:
    return c.git("rev-list", "--all").split()


def _objects(c) -> set[str]:
    """Every object the repository holds, reachable or not."""
    out = c.git("cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
    return set(out.split())


def test_loose_objects_past_the_limit_are_packed_and_nothing_is_lost(initialized, monkeypatch):
    c = initialized
    _commits(c, 6)
    home = Home(c.home)
    before_commits, before_objects = _all_commits(c), _objects(c)
    assert maintain.loose_count(home) > 10 and maintain.pack_count(home) == 0
    monkeypatch.setattr(maintain, "LOOSE_LIMIT", 10)
    done = maintain.maintain(home)
    assert done and "packed" in done[0]
    assert maintain.loose_count(home) == 0 and maintain.pack_count(home) == 1
    assert _all_commits(c) == before_commits
    assert _objects(c) >= before_objects  # unreachable ones too: a writer's objects before its ref moves
    c.assert_healthy()
    assert "packed" in (c.home / "runtime" / "logs" / "store.log").read_text()
    _commits(c, 1, start=100)  # and memory goes on: writes, reads
    assert any("number 100" in i["text"] for i in c.json("show", "learnings")["learnings"])


def test_below_the_limits_nothing_happens(initialized):
    c = initialized
    _commits(c, 2)
    home = Home(c.home)
    loose = maintain.loose_count(home)
    assert maintain.maintain(home) == []
    assert maintain.loose_count(home) == loose and maintain.pack_count(home) == 0


def test_many_packs_are_folded_into_one(initialized, monkeypatch):
    c = initialized
    home = Home(c.home)
    monkeypatch.setattr(maintain, "LOOSE_LIMIT", 1)
    monkeypatch.setattr(maintain, "PACK_LIMIT", 3)
    counts = []
    for i in range(6):
        _commits(c, 1, start=i)
        maintain.maintain(home)
        counts.append(maintain.pack_count(home))
    assert max(counts) < 3 and counts.count(1) >= 2, counts  # a third pack would reach the limit: all into one
    c.assert_healthy()


def test_every_few_roll_ups_everything_goes_into_one_pack(initialized, monkeypatch):
    c = initialized
    home = Home(c.home)
    monkeypatch.setattr(maintain, "LOOSE_LIMIT", 1)
    monkeypatch.setattr(maintain, "FULL_EVERY", 3)
    done = []
    for i in range(3):
        _commits(c, 1, start=i)
        done += maintain.maintain(home)
    assert "all into one" in done[-1] and maintain.pack_count(home) == 1, done
    assert not any("all into one" in d for d in done[:-1]), done
    c.assert_healthy()


def test_finalize_packs_in_the_detached_work_and_without_git_falls_back_to_dulwich(initialized):
    c = initialized
    _commits(c, 3)
    home = Home(c.home)
    commits = _all_commits(c)
    c.run("finalize", "--quiet", "--pack", env={"PATH": os.devnull})  # no git binary: dulwich packs
    assert maintain.loose_count(home) == 0 and maintain.pack_count(home) >= 1
    assert "(dulwich;" in (c.home / "runtime" / "logs" / "store.log").read_text()
    _commits(c, 2, start=10)
    # An object no branch points at yet (a writer between writing objects and moving its ref).
    dangling = subprocess.run(["git", "hash-object", "-w", "--stdin"], input=b"not yet referenced\n", check=True,
                              cwd=c.home / "memory", capture_output=True).stdout.decode().strip()
    c.run("finalize", "--quiet", "--pack")
    c.git("cat-file", "-e", dangling)  # young: kept, in a cruft pack beside the one pack of the rest
    assert maintain.loose_count(home) == 0 and maintain.pack_count(home) == 2
    assert "(git repack, all into one;" in (c.home / "runtime" / "logs" / "store.log").read_text()
    assert set(commits) <= set(_all_commits(c))
    c.assert_healthy()


def test_no_packing_while_a_pull_is_under_way(initialized, monkeypatch):
    # A refused pull takes back the object files it added: a pack made meanwhile would go with them.
    c = initialized
    _commits(c, 3)
    home = Home(c.home)
    loose = maintain.loose_count(home)
    with queued_lock(str(home.runtime / "fetch.lock"), 5):
        assert maintain.maintain(home, force=True) == []
        assert maintain.loose_count(home) == loose
    maintain.maintain(home, force=True)
    assert maintain.loose_count(home) == 0


def test_reflogs_keep_their_newest_entries(initialized, monkeypatch):
    c = initialized
    monkeypatch.setattr(maintain, "REFLOG_KEEP", 4)
    _commits(c, 12)
    log = c.home / "memory" / ".git" / "logs" / "refs" / "heads" / "main"
    lines = log.read_text().splitlines()
    assert len(lines) == 13
    maintain.maintain(Home(c.home))
    assert log.read_text().splitlines() == lines[-4:]
    c.git("reflog", "show", "main")
    c.assert_healthy()


def test_the_parse_cache_is_bounded_and_keeps_what_was_used_last(initialized, monkeypatch):
    c = initialized
    _commits(c, 8)
    cache = c.home / "runtime" / "cache" / "parsed"
    files = sorted(cache.iterdir())
    total = sum(f.stat().st_blocks * 512 for f in files)  # disk blocks, as du counts
    assert len(files) > 8
    now = time.time()
    for age, f in enumerate(files):  # files[0] least recently used
        os.utime(f, (now - 1000 + age, now - 1000 + age))
    monkeypatch.setattr(tidy, "CACHE_FLOOR", 0)
    monkeypatch.setattr(tidy, "cache_room", lambda home: total // 2)
    done = maintain.maintain(Home(c.home))
    assert any("evicted" in d for d in done)
    left = sorted(cache.iterdir())
    assert sum(f.stat().st_blocks * 512 for f in left) <= total // 2 * 3 // 4
    assert files[-1] in left and files[0] not in left
    # `--at`: a read through the store (a plain `show` may answer from its snapshot, store/cache/snapshot.py).
    assert c.json("show", "learnings", "--at", "main")["learnings"]  # evicted documents are parsed again when read
    # Reading a document marks it used: eviction goes by last use, not by age.
    blob = c.git("rev-parse", "main:learnings.yaml").strip()
    kept = cache / f"learnings-{blob}.json"
    os.utime(kept, (now - 5000, now - 5000))
    c.json("show", "learnings", "--at", "main")
    assert kept.stat().st_mtime > now - 60
    c.run("log", "-n", "20")


def test_a_killed_pack_leaves_a_valid_repository(initialized):
    """SIGKILL `cogit finalize --pack` anywhere: fsck passes, every commit and object stays."""
    c = initialized
    trials = max(3, min(10, int(os.environ.get("COGIT_KILL_TRIALS", "10"))))
    seed = int(os.environ.get("COGIT_KILL_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    env = dict(os.environ, COGIT_HOME=str(c.home))
    for trial in range(trials):
        _commits(c, 2, start=10 * trial)
        commits, objects = _all_commits(c), _objects(c)
        t0 = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "cogit", "finalize", "--quiet", "--pack"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            proc.wait(timeout=rng.uniform(0.05, 1.5))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the process and its `git repack`
            proc.wait()
        elapsed = time.monotonic() - t0
        msg = f"seed {seed}, trial {trial}, killed after {elapsed:.2f}s"
        c.git("fsck", "--strict")
        assert _all_commits(c) == commits, msg
        assert _objects(c) >= objects, msg
    _commits(c, 1, start=1000)
    c.run("finalize", "--quiet", "--pack")
    c.assert_healthy()


# --------------------------------------------------------------------------- pruning


def _unreachable(c, text: str, age_s: float) -> str:
    """A loose blob no ref reaches (a writer's lost race), its file `age_s` old."""
    sha = subprocess.run(["git", "-C", str(c.home / "memory"), "hash-object", "-w", "--stdin"], input=text,
                         capture_output=True, text=True, check=True).stdout.strip()
    path = c.home / "memory" / ".git" / "objects" / sha[:2] / sha[2:]
    os.utime(path, (time.time() - age_s, time.time() - age_s))
    return sha


def test_the_full_repack_prunes_old_unreachable_objects_and_keeps_young_ones(initialized):
    c = initialized
    _commits(c, 3)
    home = Home(c.home)
    old, young = _unreachable(c, "lost long ago\n", 3 * 86400), _unreachable(c, "written a moment ago\n", 5)
    reachable = _objects(c) - {old, young}
    done = maintain.maintain(home, force=True)
    assert "all into one" in done[0], done
    objects = _objects(c)
    assert old not in objects  # past the grace period: pruned
    assert young in objects  # a writer may be about to point a branch at it
    assert objects >= reachable
    c.assert_healthy()
    _commits(c, 1, start=50)
    c.assert_healthy()


def test_no_pruning_while_a_writer_holds_the_memory_lock(initialized):
    c = initialized
    _commits(c, 3)
    home = Home(c.home)
    old = _unreachable(c, "lost long ago\n", 3 * 86400)
    with queued_lock(str(home.lock), 5):  # a writer between its first object and its ref
        maintain.maintain(home, force=True)
        assert old in _objects(c)
        assert maintain.loose_count(home) == 1  # the rest packed all the same, without pruning
    maintain.maintain(home, force=True)
    assert old not in _objects(c)
    c.assert_healthy()


# --------------------------------------------------------------------------- the runtime folder


def test_the_parse_cache_room_is_what_the_repository_leaves(initialized, monkeypatch):
    c = initialized
    _commits(c, 4)
    home = Home(c.home)
    cache = c.home / "runtime" / "cache" / "parsed"
    filler = cache / "learnings-0000000000000000000000000000000000000000.json"
    filler.write_bytes(b"{}" + b" " * (4 * tidy.disk_usage(str(home.memory))[0]))  # a cache far past the repository
    monkeypatch.setattr(tidy, "CACHE_FLOOR", 0)
    maintain.maintain(home)
    assert not filler.exists()
    runtime, repo = tidy.disk_usage(str(home.runtime))[0], tidy.disk_usage(str(home.memory))[0]
    assert runtime <= repo, (runtime, repo)
    assert c.json("show", "learnings", "--at", "main")["learnings"]  # and reads parse again what went
    c.assert_healthy()


def test_logs_are_rotated_and_keep_one_generation(initialized):
    c = initialized
    home = Home(c.home)
    log = home.logs / "store.log"
    home.logs.mkdir(parents=True, exist_ok=True)
    for generation in (b"first\n", b"second\n"):
        log.write_bytes(generation * (tidy.LOG_BYTES // len(generation) + 10))
        done = tidy.tidy(home)
        assert any("rotated runtime/logs/store.log" in d for d in done), done
        assert not log.exists() and (home.logs / "store.log.1").read_bytes().startswith(generation)
    assert sorted(p.name for p in home.logs.iterdir()) == ["store.log.1"]  # the older one went
    log.write_bytes(b"small\n")
    assert tidy.tidy(home) == [] or not any("rotated" in d for d in tidy.tidy(home))
    assert log.read_bytes() == b"small\n"


def test_import_indexes_unused_for_a_month_go_and_held_locks_stay(initialized):
    import fcntl

    c = initialized
    home = Home(c.home)
    cache = c.home / "runtime" / "cache"
    old, new, busy = "spatial-00000000000000aa", "spatial-00000000000000bb", "spatial-00000000000000cc"
    month = time.time() - (tidy.SPATIAL_DAYS + 1) * 86400
    for stem in (old, new, busy):
        for suffix in (".build", ".build.lock", "-py.rev"):
            (cache / (stem + suffix)).write_text("x\n")
            if stem != new:
                os.utime(cache / (stem + suffix), (month, month))
    fd = os.open(cache / (busy + ".build.lock"), os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a builder at work
        tidy.tidy(home)
    finally:
        os.close(fd)
    left = {p.name for p in cache.iterdir() if p.name.startswith("spatial-")}
    assert not {n for n in left if n.startswith(old)}
    assert {new + s for s in (".build", ".build.lock", "-py.rev")} <= left
    assert busy + ".build" in left and busy + ".build.lock" in left and busy + "-py.rev" not in left


def test_an_old_unreachable_object_already_in_a_pack_is_pruned_too(initialized):
    c = initialized
    _commits(c, 2)
    home = Home(c.home)
    old = _unreachable(c, "lost long ago, packed since\n", 3 * 86400)
    memory = str(c.home / "memory")
    subprocess.run(["git", "-C", memory, "pack-objects", "-q", ".git/objects/pack/pack"], input=old + "\n",
                   capture_output=True, text=True, check=True)  # as an older full repack kept it
    subprocess.run(["git", "-C", memory, "prune-packed"], check=True)
    assert old in _objects(c) and not (c.home / "memory" / ".git" / "objects" / old[:2] / old[2:]).exists()
    for p in (c.home / "memory" / ".git" / "objects" / "pack").iterdir():
        os.utime(p, (time.time() - 3 * 86400, time.time() - 3 * 86400))  # packed three days ago
    maintain.maintain(home, force=True)
    assert old not in _objects(c)
    c.assert_healthy()
