"""The write path's repository without dulwich (cogit/store/git/lite.py): every object read as
git stores it (loose, packed, deltas on an offset or on an id), commits and trees byte for byte
what dulwich writes, the ref moved only from the head it expects (its reflog line as dulwich
writes it), the index read and written so that git and dulwich agree with it, and whatever lite.py
does not read handed to dulwich without changing a result."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cogit.errors import Conflict
from cogit.store.git import index_file, lite, packread
from cogit.store.git import repo as git
from cogit.store.git import worktree
from cogit.store.git.lite import LiteRepo, LockHeld, Unsupported
from cogit.store.state.documents import STATE_FILES


def _git(cwd, *args, **kw) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env, **kw).stdout.decode()


def _objects(root) -> list[tuple[str, str]]:
    out = _git(root, "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)")
    return [tuple(line.split()) for line in out.splitlines()]


@pytest.fixture
def history(tmp_path):
    """A repository made by git: one file with 40 versions, a second file, a subfolder."""
    root = tmp_path / "h"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    lines = [f"line {i} of a file that grows a little with every version\n" for i in range(300)]
    for v in range(40):
        lines[v * 7] = f"version {v} changed this line\n"
        (root / "learnings.yaml").write_text("".join(lines))
        if v % 10 == 0:
            (root / "sub").mkdir(exist_ok=True)
            (root / "sub" / "x.txt").write_text(f"x {v}\n" * 50)
        _git(root, "add", "-A")
        _git(root, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", f"v{v}")
    return root


def _read_all(root):
    repo = LiteRepo(str(root))
    try:
        for sha, kind in _objects(root):
            got_kind, data = repo.read(sha)
            assert got_kind.decode() == kind, sha
            assert data == subprocess.run(["git", "cat-file", kind, sha], cwd=root, check=True, capture_output=True).stdout, sha
    finally:
        repo.close()


@pytest.mark.parametrize("how", [
    [],  # loose
    ["repack", "-a", "-d", "-f", "-q", "--depth=50", "--window=50"],  # deltas on an offset
    ["-c", "repack.useDeltaBaseOffset=false", "repack", "-a", "-d", "-f", "-q", "--depth=50", "--window=50"],  # on an id
])
def test_every_object_reads_as_git_stores_it(history, how):
    if how:
        _git(history, *how)
        listing = _git(history, "verify-pack", "-v", *map(str, (history / ".git/objects/pack").glob("*.idx")))
        assert any(len(line.split()) >= 7 for line in listing.splitlines())  # some objects are deltas
    _read_all(history)


def test_objects_split_between_packs_and_loose_read_alike(history):
    _git(history, "repack", "-d", "-q")  # a first pack
    (history / "learnings.yaml").write_text("after the pack\n")
    _git(history, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qam", "after")  # loose
    _git(history, "repack", "-q")  # a second pack, the first kept
    assert len(list((history / ".git/objects/pack").glob("*.idx"))) == 2
    _read_all(history)


def test_a_missing_or_damaged_object_is_said_not_read_wrong(history):
    repo = LiteRepo(str(history))
    with pytest.raises(KeyError):
        repo.read("0" * 40)
    sha = _git(history, "rev-parse", "HEAD:learnings.yaml").strip()
    path = history / ".git/objects" / sha[:2] / sha[2:]
    import zlib

    path.chmod(0o644)
    path.write_bytes(zlib.compress(b"blob 5\0hello"))  # another content under this name
    with pytest.raises(ValueError):
        repo.read(sha)


def test_delta_steps():
    base = b"0123456789" * 1000
    # copy 10 bytes from offset 5, insert "ab", copy 0x10000 (size 0) is refused past the base
    delta = bytes([len(base) & 0x7F | 0x80, len(base) >> 7, 12, 0x80 | 0x01 | 0x10, 5, 10, 2]) + b"ab"
    assert packread.apply_delta(base, delta) == base[5:15] + b"ab"
    with pytest.raises(ValueError):
        packread.apply_delta(base[:-1], delta)
    with pytest.raises(ValueError):
        packread.apply_delta(base, delta[:2] + bytes([13]) + delta[3:])


@pytest.fixture
def memory(initialized, cogit_home):
    initialized.run("add", "learning", "the first lesson")
    return cogit_home / "memory"


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, symlinks=True)
    return dst


def _commit_both(memory, tmp_path, files, **kw):
    """The same commit through dulwich and through lite.py, each in its own copy."""
    shas, refs = [], []
    for n, opener in enumerate((git.open_repo, git.open_lite)):
        root = _copy(memory, tmp_path / f"copy{n}")
        repo = opener(root)
        try:
            expected = git.head(repo)
            sha = git.commit(repo, "main", files, b"Add a thing\n\nbody\n\nCogit-Event: x\n", b"A <a@b>",
                             git.machine_committer(repo), expected, when=1_800_000_000, keep_only=STATE_FILES, **kw)
        finally:
            repo.close()
        shas.append(sha)
        refs.append((root / ".git/logs/refs/heads/main").read_bytes().splitlines()[-1])
        _git(root, "fsck", "--strict")
    return shas, refs


def test_a_commit_is_byte_for_byte_dulwichs(memory, tmp_path):
    shas, refs = _commit_both(memory, tmp_path, {"learnings.yaml": b"items: []\n", "focus.yaml": None})
    assert shas[0] == shas[1]
    old, new, rest = refs[0].split(b" ", 2)
    assert refs[1].split(b" ", 2)[:2] == [old, new]
    # the same reflog line but for the second it was written in
    assert refs[1].split(b"\t")[1] == refs[0].split(b"\t")[1] and refs[1].split(b" ")[2] == refs[0].split(b" ")[2]


def test_a_commit_on_a_packed_history_is_dulwichs(memory, tmp_path, initialized):
    for i in range(5):
        initialized.run("add", "learning", f"lesson number {i} before the pack")
    _git(memory, "repack", "-a", "-d", "-f", "-q")
    _git(memory, "prune-packed")
    assert not [p for p in (memory / ".git/objects").iterdir() if len(p.name) == 2]  # nothing loose
    shas, _ = _commit_both(memory, tmp_path, {"learnings.yaml": b"items: []\n"})
    assert shas[0] == shas[1]


def test_a_stray_entry_is_left_out_alike(memory, tmp_path):
    (memory / "notes.txt").write_text("not memory\n")
    _git(memory, "add", "notes.txt")
    _git(memory, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "stray")
    repo = git.open_lite(memory)
    try:
        assert git.stray_entries(repo, git.head(repo), STATE_FILES) == ["notes.txt"]
    finally:
        repo.close()
    shas, _ = _commit_both(memory, tmp_path, {"learnings.yaml": b"items: []\n"})
    assert shas[0] == shas[1]
    assert "notes.txt" not in _git(tmp_path / "copy1", "ls-tree", "--name-only", shas[1])


def test_the_ref_moves_only_from_the_head_it_expects(memory):
    repo = git.open_lite(memory)
    try:
        head = git.head(repo)
        parent = _git(memory, "rev-parse", "HEAD~1").strip()
        with pytest.raises(Conflict):
            git.commit(repo, "main", {"learnings.yaml": b"items: []\n"}, b"m\n", b"A <a@b>", b"C <c@d>", parent)
        assert git.head(repo) == head
        lock = memory / ".git/refs/heads/main.lock"
        lock.write_text("")  # git working in memory by hand
        with pytest.raises(LockHeld) as held:
            git.commit(repo, "main", {"learnings.yaml": b"items: []\n"}, b"m\n", b"A <a@b>", b"C <c@d>", head)
        assert git.is_busy(held.value) and lock.exists()
        lock.unlink()
        sha = git.commit(repo, "project/x", {"learnings.yaml": b"items: []\n"}, b"m\n", b"A <a@b>", b"C <c@d>", None)
        assert git.head(repo, "project/x") == sha and "project/x" in git.branches(repo)
    finally:
        repo.close()
    _git(memory, "pack-refs", "--all")  # refs in packed-refs only
    repo = git.open_lite(memory)
    try:
        assert git.head(repo) == head and git.head(repo, "project/x") == sha
        assert git.branches(repo) == ["main", "project/x"]
        git.commit(repo, "main", {"learnings.yaml": b"items: []\n"}, b"m\n", b"A <a@b>", b"C <c@d>", head)
    finally:
        repo.close()
    _git(memory, "fsck", "--strict")


def test_the_index_is_one_git_and_dulwich_agree_with(initialized, memory):
    for i in range(3):
        initialized.run("add", "learning", f"lesson {i}")  # each through lite.py
    assert _git(memory, "status", "--porcelain") == ""
    assert _git(memory, "diff-index", "--cached", "HEAD") == ""
    _, mine = index_file.read_index(str(memory / ".git/index"))
    full = git.open_repo(memory)
    try:
        theirs = worktree.open_index(full)
        assert sorted(k for k in theirs) == sorted(mine)
        for name, e in mine.items():
            t = theirs[name]
            assert (t.sha.decode(), t.size, t.mode) == (e[10], e[9], e[6])
    finally:
        full.close()
    # an index git wrote (with its cache-tree extension), version 2 and 3, is read and rewritten
    for version in ("2", "3"):
        _git(memory, "update-index", "--index-version", version)
        _git(memory, "add", "-A")
        _git(memory, "write-tree")
        initialized.run("add", "learning", f"after git wrote index v{version}")
        assert _git(memory, "status", "--porcelain") == ""
    # version 4 is dulwich's to read and write: the write works all the same
    _git(memory, "update-index", "--index-version", "4")
    with pytest.raises(Unsupported):
        index_file.read_index(str(memory / ".git/index"))
    initialized.run("add", "learning", "after git wrote index v4")
    assert _git(memory, "status", "--porcelain") == ""
    initialized.assert_healthy()


def test_a_hand_edit_is_seen_through_the_index_lite_reads(initialized, memory):
    text = (memory / "learnings.yaml").read_text()
    (memory / "learnings.yaml").write_text(text + "# a person's note\n")
    repo = git.open_lite(memory)
    try:
        assert worktree.changed_by_stat(repo, memory, sorted(STATE_FILES)) == ["learnings.yaml"]
    finally:
        repo.close()
    initialized.run("add", "learning", "a lesson after the hand edit")
    log = _git(memory, "log", "--format=%s", "-3")
    assert "Hand edit of learnings.yaml" in log
    assert "# a person's note" in (memory / "learnings.yaml").read_text()
    initialized.assert_healthy()


def test_what_lite_does_not_read_goes_to_dulwich(initialized, memory, tmp_path):
    # a config include and an index version 1 pack: the write works, the same as dulwich's
    machine = _git(memory, "config", "cogit.machine").strip()
    for broken in ("[cogit\n\tmachine = x\n", "[cogit] machine = x\n"):  # headers it does not read: dulwich's
        config = memory / ".git/config"
        text = config.read_text()
        config.write_text(text + broken)
        with pytest.raises(Unsupported):
            LiteRepo(str(memory)).config_value("cogit", "machine")
        config.write_text(text)
    (tmp_path / "inc").write_text("[user]\n\tname = x\n")
    _git(memory, "config", "include.path", str(tmp_path / "inc"))
    repo = git.open_lite(memory)
    try:
        with pytest.raises(Unsupported):
            repo.config_value("cogit", "machine")
        assert git.machine_committer(repo) == f"cogit <{machine}@machine.cogit>".encode()
    finally:
        repo.close()
    _git(memory, "-c", "pack.indexVersion=1", "repack", "-a", "-d", "-q")
    initialized.run("add", "learning", "after a version 1 pack index")
    initialized.assert_healthy()
    assert "after a version 1 pack index" in initialized.run("show", "learnings").out


def test_a_cold_add_imports_no_dulwich(initialized, cogit_home):
    import sys

    code = ("import sys; from cogit.entry import main\n"
            "try:\n    main(['add', 'learning', 'a lesson without dulwich'])\n"
            "finally:\n    print(sorted(m for m in sys.modules if m.startswith('dulwich')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(cogit_home.parent),
                          env=dict(os.environ, COGIT_HOME=str(cogit_home)), check=True)
    assert proc.stdout.strip().splitlines()[-1] == "[]", proc.stdout
    initialized.assert_healthy()


@pytest.mark.parametrize("backend", ["lite", "dulwich"])
def test_objects_are_written_while_the_packer_removes_empty_folders(memory, backend):
    """The session-end work packs without the memory lock, and `git prune-packed` removes the
    object folders it empties: one removed between its creation and the object's lock file
    failed a write (the effect benchmark found it). Here a thread removes every empty object
    folder as fast as it can while objects are written."""
    import threading

    objects = memory / ".git" / "objects"
    stop = threading.Event()

    def packer():
        while not stop.is_set():
            for name in os.listdir(objects):
                if len(name) == 2:
                    try:
                        os.rmdir(objects / name)
                    except OSError:
                        pass

    repo = LiteRepo(str(memory))
    if backend == "lite":
        write = lambda data: repo.write(b"blob", data)  # noqa: E731
    else:
        from dulwich.objects import Blob

        def write(data):
            blob = Blob.from_string(data)
            git._add_object(repo.full(), blob)
            return blob.id.decode()
    thread = threading.Thread(target=packer, daemon=True)
    thread.start()
    try:
        shas = [write(b"object %d of the race\n" % i) for i in range(1500)]
    finally:
        stop.set()
        thread.join()
    for sha in shas[::50]:
        assert repo.read(sha)[1].startswith(b"object ")
    repo.close()


def test_dulwich_finds_an_object_packed_between_its_two_looks(initialized, memory):
    """dulwich looks in its packs (listing them anew when none has the object), then at the
    loose objects. The session-end packing can move a loose object into a new pack and prune
    it in between: the real `git repack` and `prune-packed` run here at exactly that moment.
    repo.open_repo's store asks once more, and finds it in the new pack."""
    _git(memory, "repack", "-a", "-d", "-q")
    initialized.run("add", "learning", "packed between two looks")
    sha = _git(memory, "rev-parse", "HEAD").strip()
    assert (memory / ".git/objects" / sha[:2] / sha[2:]).exists()  # loose
    repo = git.open_repo(memory)
    try:
        store = repo.object_store
        real = store._get_loose_object
        calls = []

        def loose_after_packing(hexsha):
            if not calls:
                _git(memory, "repack", "-d", "-q")
                _git(memory, "prune-packed")
            calls.append(hexsha)
            return real(hexsha)

        store._get_loose_object = loose_after_packing
        assert b"packed between two looks" in repo[sha.encode()].as_raw_string()
        assert not (memory / ".git/objects" / sha[:2] / sha[2:]).exists()  # it was packed in between
    finally:
        repo.close()
