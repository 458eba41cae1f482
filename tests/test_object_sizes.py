"""Object headers read from packs (store/git/object_sizes.py): the type and size of every
object as git says, and a delta chain too long is refused also when its lower links were
followed (and kept) for an earlier object."""

from __future__ import annotations

import subprocess

import pytest

from cogit.store.git import object_sizes
from cogit.store.git import repo as git

TYPES = {"commit": 1, "tree": 2, "blob": 3, "tag": 4}


def _git(cwd, *args) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def chained(tmp_path):
    """A repository whose one file has 40 versions, packed into long delta chains."""
    root = tmp_path / "chain"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    lines = [f"line {i} of a file that grows a little with every version\n" for i in range(200)]
    for v in range(40):
        lines[v * 5] = f"version {v} changed this line\n"
        (root / "f.txt").write_text("".join(lines))
        _git(root, "add", "f.txt")
        _git(root, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", f"v{v}")
    _git(root, "repack", "-a", "-d", "-f", "-q", "--depth=50", "--window=50")
    return root


def test_every_header_is_what_git_says(chained):
    object_sizes._BASES.clear()
    repo = git.open_repo(chained)
    try:
        listing = _git(chained, "cat-file", "--batch-all-objects", "--batch-check").split("\n")
        objects = [line.split() for line in listing if line]
        for _ in range(2):  # the second round answers from the kept chain links
            for sha, kind, size in objects:
                assert object_sizes.object_header(repo, sha) == (TYPES[kind], int(size)), sha
        assert object_sizes._BASES  # links were kept
    finally:
        repo.close()


def test_a_chain_too_long_is_refused_through_kept_links(chained, monkeypatch):
    object_sizes._BASES.clear()
    repo = git.open_repo(chained)
    try:
        depths = {}
        for line in _git(chained, "verify-pack", "-v", *[str(p) for p in (chained / ".git/objects/pack").glob("*.idx")]).split("\n"):
            parts = line.split()
            if len(parts) >= 7 and parts[1] == "blob":
                depths[parts[0]] = int(parts[5])
        deepest = max(depths, key=depths.get)
        assert depths[deepest] >= 10
        shallow = next(s for s, d in depths.items() if d == depths[deepest] // 2)
        object_sizes.object_header(repo, shallow)  # keeps the lower links of the chain
        monkeypatch.setattr(object_sizes, "MAX_DELTA_CHAIN", depths[deepest] - 1)
        with pytest.raises(ValueError, match="delta chain too long"):
            object_sizes.object_header(repo, deepest)
        monkeypatch.setattr(object_sizes, "MAX_DELTA_CHAIN", depths[deepest])
        assert object_sizes.object_header(repo, deepest)[0] == TYPES["blob"]
    finally:
        repo.close()
