"""Bad input at every door of the CLI: hand edits, the working tree's files, revisions,
the editor. Each case ends in exit 1 or 2 with a message that says what is wrong and
what to do, and memory unchanged: the same `main`, the same working tree.

Real subprocess runs of `python -m cogit` (the `cogit` fixture); no timing is absolute:
slow cases are compared with a baseline measured in the same test.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import git

GOOD = "the good one"


@pytest.fixture
def mem(initialized):
    initialized.run("add", "learning", GOOD)
    return initialized


def snapshot(c) -> dict:
    """What a person sees in the memory folder (links and folders as what they are) and main."""
    root = c.home / "memory"
    files = {}
    for path in sorted(root.iterdir()):
        if path.name == ".git":
            continue
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            files[path.name] = ("link", os.readlink(path))
        elif stat.S_ISDIR(st.st_mode):
            files[path.name] = ("dir", sorted(p.name for p in path.iterdir()))
        elif stat.S_ISREG(st.st_mode):
            files[path.name] = ("file", path.read_bytes())
        else:
            files[path.name] = ("other", st.st_mode)
    return {"main": c.git("rev-parse", "main"), "files": files}


def assert_refused(c, proc, before, *fragments, codes=(1, 2)):
    assert proc.returncode in codes, (proc.returncode, proc.out, proc.err)
    assert "crashed" not in proc.err and proc.err.startswith("Error: "), proc.err
    for fragment in fragments:
        assert fragment in proc.err, (fragment, proc.err)
    assert len(proc.err.strip().splitlines()) >= 2, f"no next step in: {proc.err}"
    assert snapshot(c) == before, "memory changed"


def learning_block(c) -> str:
    text = (c.home / "memory" / "learnings.yaml").read_text()
    return text[text.index("  - id:"):]


def good_learnings(c) -> str:
    return (c.home / "memory" / "learnings.yaml").read_text()


# --- hand edits: (id, file, text maker, fragments the message must hold) -------------

def _replace(old, new):
    return lambda c: good_learnings(c).replace(old, new, 1)


def _sub(pattern, new):
    import re

    return lambda c: re.sub(pattern, new, good_learnings(c), count=1)


HAND_EDITS = [
    ("huge-int-5000-digits", "learnings.yaml", _replace(f"text: {GOOD}", "text: " + "9" * 5000),
     ["learnings.yaml:", "a number of 5000 characters is too long"]),
    ("huge-int-negative", "learnings.yaml", _replace(f"text: {GOOD}", "text: -" + "9" * 5000),
     ["learnings.yaml:", "too long"]),
    ("huge-float", "learnings.yaml", _replace(f"text: {GOOD}", "text: " + "9" * 400 + ".5e3"),
     ["learnings.yaml:", "too long"]),
    ("counter-over-maximum", "engagement.yaml",
     lambda c: "schema_version: 1\nmeaningful_interactions: 99999999999999999999\ntotal_interactions: 0\nlast_meaningful_at:\n",
     ["engagement.yaml:2", "$.meaningful_interactions", "maximum"]),
    ("cap-over-maximum", "config.yaml",
     lambda c: (c.home / "memory" / "config.yaml").read_text().replace("learnings: 50", "learnings: 123456789012"),
     ["config.yaml:", "$.caps.learnings", "maximum"]),
    ("infinite-float", "config.yaml",
     lambda c: (c.home / "memory" / "config.yaml").read_text().replace("pull_timeout_s: 3", "pull_timeout_s: 1e999"),
     ["config.yaml:", "$.sync.pull_timeout_s"]),
    ("nesting-1000-flow", "learnings.yaml", lambda c: "schema_version: 1\nitems: " + "[" * 1000 + "]" * 1000 + "\n",
     ["learnings.yaml:2", "nested more than 50 levels"]),
    ("nesting-1000-flow-maps", "learnings.yaml", lambda c: "schema_version: 1\nitems: " + "{a: " * 1000 + "}" * 1000 + "\n",
     ["learnings.yaml:2", "nested more than 50 levels"]),
    ("nesting-50000-block", "learnings.yaml", lambda c: "schema_version: 1\nitems:\n  " + "- " * 50_000 + "x\n",
     ["learnings.yaml:3", "nested more than 50 levels"]),
    ("nesting-by-indentation", "learnings.yaml",
     lambda c: "schema_version: 1\nitems: []\n" + "".join("  " * i + "k:\n" for i in range(80)) + "  " * 80 + "k: 1\n",
     ["learnings.yaml:", "nested more than 50 levels"]),
    ("duplicate-id", "learnings.yaml", lambda c: good_learnings(c) + learning_block(c),
     ["learnings.yaml:", "$.items[1].id", "duplicate id"]),
    ("wrong-prefix-id", "learnings.yaml", _replace("id: l-", "id: h-"),
     ["learnings.yaml:", "$.items[0].id", "not an id of this file", "l-"]),
    ("malformed-id", "learnings.yaml", _sub(r"id: l-\w+", "id: l-XYZ!"),
     ["learnings.yaml:", "$.items[0].id"]),
    ("id-with-newline", "learnings.yaml", _sub(r"id: (l-\w+)", r'id: "\1\\n"'),
     ["learnings.yaml:", "$.items[0].id"]),
    ("timestamp-month-13", "learnings.yaml", _sub(r"created_at: \S+", "created_at: 2026-13-01T00:00:00Z"),
     ["learnings.yaml:", "$.items[0].created_at", "ISO 8601"]),
    ("timestamp-feb-30", "learnings.yaml", _sub(r"updated_at: \S+", "updated_at: '2026-02-30T10:00:00Z'"),
     ["learnings.yaml:", "$.items[0].updated_at", "ISO 8601"]),
    ("timestamp-words", "learnings.yaml", _sub(r"created_at: \S+", "created_at: yesterday"),
     ["learnings.yaml:", "$.items[0].created_at"]),
    ("timestamp-date-only", "learnings.yaml", _sub(r"created_at: \S+", "created_at: 2026-11-30"),
     ["learnings.yaml:", "$.items[0].created_at"]),
    ("timestamp-no-offset", "focus.yaml",
     lambda c: "schema_version: 1\ncurrent: x\npriorities: []\nupdated_at: 2026-11-30T10:00:00\n",
     ["focus.yaml:", "$.updated_at"]),
    ("nul-byte", "learnings.yaml", lambda c: good_learnings(c).replace(GOOD, "the\0good one"),
     ["learnings.yaml", "invalid YAML"]),
    ("invalid-utf8", "learnings.yaml", lambda c: good_learnings(c).encode().replace(b"good", b"go\xff\xfed"),
     ["learnings.yaml", "not UTF-8"]),
    ("tag-python-object", "learnings.yaml", _replace(f"text: {GOOD}", "text: !!python/object:os.system echo"),
     ["learnings.yaml:", "tags (!!python/object:os.system) are not allowed"]),
    ("tag-binary", "learnings.yaml", _replace(f"text: {GOOD}", "text: !!binary aGVsbG8="),
     ["learnings.yaml:", "tags (!!binary)"]),
    ("tag-str", "learnings.yaml", _replace(f"text: {GOOD}", "text: !!str 12"), ["learnings.yaml:", "tags (!!str)"]),
    ("tag-local", "learnings.yaml", _replace(f"text: {GOOD}", "text: !mine x"), ["learnings.yaml:", "tags (!mine)"]),
    ("alias", "learnings.yaml", lambda c: "schema_version: 1\nitems: &x []\nmore: *x\n",
     ["learnings.yaml:2", "anchors and aliases"]),
    ("300-KiB-file", "learnings.yaml", lambda c: good_learnings(c) + "# " + "x" * 300 * 1024 + "\n",
     ["learnings.yaml", "over the 262144-byte limit"]),
    ("not-a-mapping", "learnings.yaml", lambda c: "- just\n- a list\n", ["learnings.yaml", "is not of type 'object'"]),
]


@pytest.mark.parametrize("name,file,make,fragments", HAND_EDITS, ids=[h[0] for h in HAND_EDITS])
def test_bad_hand_edit_is_refused_and_memory_unchanged(mem, name, file, make, fragments):
    c = mem
    text = make(c)
    (c.home / "memory" / file).write_bytes(text if isinstance(text, bytes) else text.encode())
    before = snapshot(c)
    proc = c.run("commit", check=False)
    assert_refused(c, proc, before, *fragments, "run `cogit commit` again", codes=(1,))
    assert c.json("show", "learnings")["learnings"][0]["text"] == GOOD


def test_deep_nesting_is_refused_about_as_fast_as_a_small_file(mem):
    """50,000 nested brackets stalled ruamel.yaml for minutes; the scanner now stops at the limit.
    Baselines from the same test: a small invalid hand edit through the CLI, and a small
    valid file parsed in-process (best of a few runs each, so a busy machine evens out)."""
    c = mem
    path = c.home / "memory" / "learnings.yaml"
    small = good_learnings(c).replace(f"text: {GOOD}", "text: 42")
    deep = "schema_version: 1\nitems: " + "[" * 50_000 + "]" * 50_000 + "\n"

    def cli_time(text):
        best, proc = float("inf"), None
        for _ in range(2):
            path.write_text(text)
            start = time.perf_counter()
            proc = c.run("commit", check=False)
            best = min(best, time.perf_counter() - start)
        assert proc.returncode == 1, proc.err
        return best, proc

    t_small, _ = cli_time(small)
    t_deep, p_deep = cli_time(deep)
    assert "nested more than 50 levels" in p_deep.err
    assert t_deep < 2 * t_small, (t_deep, t_small)

    from cogit.store.state import yamlio

    def best_of(fn, runs=5):
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return min(times)

    def refuse_deep():
        with pytest.raises(yamlio.YamlProblem, match="nested more than 50 levels"):
            yamlio.load(deep)

    baseline = best_of(lambda: yamlio.load(small))
    assert best_of(refuse_deep, runs=3) < 50 * baseline


def test_nesting_within_the_limit_still_parses():
    from cogit.store.state import yamlio

    assert yamlio.load("a: " + "[" * 40 + "]" * 40 + "\n")["a"] is not None


def test_a_bom_is_tolerated(mem):
    """A byte order mark is valid YAML (some editors write it): read, committed, and later writes work."""
    c = mem
    path = c.home / "memory" / "learnings.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(GOOD.encode(), b"edited with a BOM"))
    c.run("commit")
    assert c.json("show", "learnings")["learnings"][0]["text"] == "edited with a BOM"
    c.run("add", "learning", "after the BOM")
    assert [i["text"] for i in c.json("show", "learnings")["learnings"]] == ["edited with a BOM", "after the BOM"]
    c.assert_healthy()


# --- the working tree's files: symlinks, folders, fifos ------------------------------

def _link_to_folder(c, path):
    path.unlink()
    path.symlink_to(c.home / "memory" / ".git")


def _link_outside(c, path):
    outside = c.home.parent / "outside.yaml"
    outside.write_text(path.read_text().replace(GOOD, "SECRET-FROM-OUTSIDE"))
    path.unlink()
    path.symlink_to(outside)


def _folder(c, path):
    path.unlink()
    path.mkdir()
    (path / "inside.yaml").write_text("schema_version: 1\nitems: []\n")


def _fifo(c, path):
    path.unlink()
    os.mkfifo(path)


NOT_REGULAR = [("symlink-to-folder", _link_to_folder, "a symbolic link"), ("symlink-outside", _link_outside, "a symbolic link"),
               ("folder", _folder, "a folder"), ("fifo", _fifo, "not a regular file")]


@pytest.mark.parametrize("name,make,kind", NOT_REGULAR, ids=[n[0] for n in NOT_REGULAR])
def test_a_state_file_that_is_not_a_regular_file_is_refused_by_every_write(mem, name, make, kind):
    c = mem
    path = c.home / "memory" / "learnings.yaml"
    make(c, path)
    before = snapshot(c)
    for args in (["commit"], ["add", "learning", "a later one"], ["add", "avoidance", "another section"],
                 ["edit", "learnings"], ["status"]):
        proc = c.run(*args, check=False, env={"EDITOR": "false", "VISUAL": ""})
        assert_refused(c, proc, before, f"learnings.yaml in {c.home / 'memory'} is {kind}", "git checkout -- learnings.yaml",
                       codes=(1,))
    # The committed state is intact and still what memory reads (and injects).
    assert c.json("show", "learnings")["learnings"][0]["text"] == GOOD
    assert "SECRET-FROM-OUTSIDE" not in c.git("log", "-p", "--all")
    # The hint works as written.
    hint = next(line for line in proc.err.splitlines() if "git checkout" in line)
    command = hint[hint.index("cd "):hint.index(" (then")]
    subprocess.run(command, shell=True, check=True, capture_output=True, env={k: v for k, v in os.environ.items() if not k.startswith("GIT_")})
    c.run("add", "learning", "after the fix")
    assert [i["text"] for i in c.json("show", "learnings")["learnings"]] == [GOOD, "after the fix"]
    if name == "symlink-outside":
        assert "SECRET-FROM-OUTSIDE" in (c.home.parent / "outside.yaml").read_text()  # never written through


def test_a_symlink_with_the_size_and_mtime_git_expects_is_still_seen(mem):
    """The cheap stat check (size, mtime against the index) must not let a link pass as clean."""
    c = mem
    path = c.home / "memory" / "learnings.yaml"
    st = os.lstat(path)
    outside = c.home.parent / "outside.yaml"
    outside.write_text("schema_version: 1\nitems: []\n")
    target = "/" * (st.st_size - len(str(outside))) + str(outside)  # a link's size is its target's length
    path.unlink()
    path.symlink_to(target)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns), follow_symlinks=False)
    assert os.lstat(path).st_size == st.st_size and os.lstat(path).st_mtime_ns == st.st_mtime_ns
    before = snapshot(c)
    assert_refused(c, c.run("commit", check=False), before, "is a symbolic link", codes=(1,))


def test_sync_worktree_replaces_a_symlink_and_never_writes_through_it(mem):
    """The write path's last step (working tree + index) renames over the link itself."""
    c = mem
    path = c.home / "memory" / "learnings.yaml"
    outside = c.home.parent / "outside.yaml"
    outside.write_text("not memory\n")
    path.unlink()
    path.symlink_to(outside)
    from cogit.store.git import repo as gitrepo
    from cogit.store.git import worktree
    from cogit.store.state.documents import STATE_FILES

    repo = gitrepo.open_repo(c.home / "memory")
    try:
        worktree.sync_worktree(repo, c.home / "memory", {"learnings.yaml": b"schema_version: 1\nitems: []\n"}, STATE_FILES)
    finally:
        repo.close()
    assert outside.read_text() == "not memory\n"
    assert not path.is_symlink() and path.read_bytes() == b"schema_version: 1\nitems: []\n"


# --- revisions ---------------------------------------------------------------------

BAD_REVS = ["", "   ", "HEAD~99999", "main^3", "..", "main..HEAD", "x" * 5000, "a\x01b", "HEAD~" + "9" * 150, "-1"]


REV_IDS = ["empty", "spaces", "HEAD~99999", "main^3", "dots", "range", "5000-chars", "control-char", "huge-count", "dash"]


@pytest.mark.parametrize("rev", BAD_REVS, ids=REV_IDS)
@pytest.mark.parametrize("command", ["revert", "diff", "diff HEAD", "show --at"])
def test_bad_revision_is_refused_and_nothing_changes(mem, command, rev):
    c = mem
    before = snapshot(c)
    if command == "show --at":
        args = ["show", f"--at={rev}"]
    else:
        args = command.split() + ["--", rev]  # `--`: a revision like -1 is not an option
    proc = c.run(*args, check=False)
    assert_refused(c, proc, before, "revision", codes=(1, 2))
    assert len(proc.err) < 1000, "the message echoes a long revision in full"


def test_revert_of_empty_revision_says_so(mem):
    c = mem
    proc = c.run("revert", "", check=False)
    assert proc.returncode == 2 and "the revision is empty" in proc.err
    assert c.json("show", "learnings")["learnings"][0]["text"] == GOOD


def test_a_nul_in_a_revision_is_refused(mem):
    """argv cannot carry a NUL byte, so this one is checked where revisions are read."""
    from cogit.errors import RevisionNotFound
    from cogit.store.git import repo as gitrepo

    repo = gitrepo.open_repo(mem.home / "memory")
    try:
        with pytest.raises(RevisionNotFound):
            gitrepo.resolve(repo, "main\0")
    finally:
        repo.close()


# --- the editor --------------------------------------------------------------------

def _bin(tmp_path, name: str, body: str) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(f"#!{sys.executable}\nimport sys\n{body}\n")
    path.chmod(0o755)
    return folder


def test_edit_without_an_editor_says_how_to_set_one(mem, tmp_path):
    c = mem
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    before = snapshot(c)
    proc = c.run("edit", check=False, env={"VISUAL": "", "EDITOR": "", "PATH": str(empty)})
    assert_refused(c, proc, before, "no editor", "export EDITOR=nano", "cogit commit", codes=(1,))


def test_edit_falls_back_to_an_editor_on_path(mem, tmp_path):
    c = mem
    replace = f"p=sys.argv[1]; t=open(p).read(); open(p,'w').write(t.replace({GOOD!r}, 'edited by ' + __file__.rsplit('/', 1)[1]))"
    folder = _bin(tmp_path, "nano", replace)
    _bin(tmp_path, "vi", replace)
    env = {"VISUAL": "", "EDITOR": "", "PATH": str(folder)}
    c.run("edit", "learnings", env=env)
    assert c.json("show", "learnings")["learnings"][0]["text"] == "edited by nano"  # nano before vi
    _bin(tmp_path, "editor", replace.replace(GOOD, "edited by nano"))
    c.run("edit", "learnings", env=env)
    assert c.json("show", "learnings")["learnings"][0]["text"] == "edited by editor"  # editor first, as git does
    c.assert_healthy()


@pytest.mark.parametrize("editor", ["/no/such/editor", "false", "'unbalanced", "   "])
def test_an_editor_that_fails_or_is_missing_keeps_the_text(mem, tmp_path, editor):
    c = mem
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    before = snapshot(c)
    path = os.environ["PATH"] if editor == "false" else str(empty)
    proc = c.run("edit", "learnings", check=False, env={"VISUAL": "", "EDITOR": editor, "PATH": path})
    assert_refused(c, proc, before, codes=(1,))
    if editor in ("/no/such/editor", "false"):
        kept = Path(proc.err.split("Your text is kept in ")[1].split()[0].rstrip("."))
        assert GOOD in kept.read_text()
        kept.unlink()


# --- the size cliff ----------------------------------------------------------------

def test_raised_caps_never_write_a_file_cogit_cannot_read(mem, tmp_path):
    """With caps raised, long items would grow learnings.yaml past the 256 KiB the read path
    accepts, and clone, pull and `cogit edit` would refuse that memory for good. The write
    path prunes the oldest items further until the file fits, and names them."""
    from cogit.store.state import yamlio

    c = mem
    memory = c.home / "memory"
    config = memory / "config.yaml"
    config.write_text(config.read_text().replace("learnings: 50", "learnings: 10000"))
    c.run("commit", "-m", "Raise the learnings cap")
    # Fill the file close to the limit in one hand edit (as many `cogit add`s would, slower).
    block = learning_block(c)
    head = good_learnings(c)[: good_learnings(c).index("  - id:")]
    items, n = [], 0
    while len(head) + sum(map(len, items)) < yamlio.MAX_BYTES - 3000:
        items.append(block.replace(GOOD, f"{n:04d} " + "long text " * 150).replace(block.split()[2], f"l-{n:06x}"))
        n += 1
    (memory / "learnings.yaml").write_text(head + "".join(items))
    c.run("commit", "-m", "Many long learnings")
    for i in range(3):
        c.run("add", "learning", f"new {i} " + "more text " * 190, "--context", "why " * 400)
        assert (memory / "learnings.yaml").stat().st_size <= yamlio.MAX_BYTES
    texts = [i["text"] for i in c.json("show", "learnings")["learnings"]]
    assert texts[-1].startswith("new 2 ") and not any(t.startswith("0000 ") for t in texts)
    body = c.git("log", "-1", "--format=%B")
    assert "Pruned to keep each file within 262144 bytes" in body and "Cogit-Pruned: l-" in body
    pruned = body.split("Cogit-Pruned: ")[1].split()[0]
    assert c.run("log", "--item", pruned).out  # still in history
    # Every reader still takes it: `cogit edit`, and a clone through a bare repository.
    editor = _bin(tmp_path, "editor", "p=sys.argv[1]; t=open(p).read(); open(p,'w').write(t.replace('new 2 ', 'NEW 2 '))")
    c.run("edit", "learnings", env={"VISUAL": "", "EDITOR": "", "PATH": str(editor)})
    assert c.json("show", "learnings")["learnings"][-1]["text"].startswith("NEW 2 ")
    bare = tmp_path / "bare.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    c.run("remote", "add", "origin", str(bare))
    c.run("push")
    other = type(c)(tmp_path / "other-home")
    other.run("clone", str(bare))
    assert other.json("show", "learnings") == c.json("show", "learnings")
    c.assert_healthy()


def test_a_section_that_cannot_shrink_is_refused_not_written(initialized):
    """A section with nothing cogit may prune (here the tools table) is refused whole."""
    from cogit.errors import InvalidState
    from cogit.paths import Home
    from cogit.store import memory
    from cogit.store.state import yamlio
    from cogit.store.git.provenance import Provenance
    from cogit.store.write.transact import Change

    c = initialized
    before = snapshot(c)

    def apply(state):
        state["tools"]["tools"] = {f"tool-{i:05d}-" + "x" * 150: {"calls": 1, "failures": 0} for i in range(2000)}
        return Change("Too many tools")

    with pytest.raises(InvalidState, match="over the 262144-byte limit cogit reads; nothing changed"):
        memory.write(Home.resolve(c.home), Provenance(event="session.end", source="cli"), apply)
    assert snapshot(c) == before
    assert yamlio.MAX_BYTES == 262144
