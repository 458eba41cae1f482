"""Two kinds of repository damage cogit can name and repair: a pack without its index (or with
a damaged one), and a branch (or HEAD) at a commit that is not in the repository.

Both make every read fail deep inside dulwich (a pack whose `.idx` is gone is invisible, so
its objects read as missing). `diagnose` names them in a sentence, cheaply, for the CLI's
error boundary and for `cogit doctor`; `rebuild_index` and `move_branch` are the repairs
`cogit doctor --fix` makes. A pack's index is computed from the pack itself (nothing is
lost); a branch goes back to the newest commit that is still whole, found in its reflog, in
the history index's record of the branch, or in a remote-tracking ref of the same branch.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from dulwich.objects import Commit, Tree
from dulwich.repo import Repo

_SHA = re.compile(r"^[0-9a-f]{40}$")
MAX_REFLOG = 4 * 1024 * 1024  # bytes of one reflog read (cogit trims them to 1,000 entries)
MAX_RECENT = 8 * 1024 * 1024  # a branch's recent file in the history index
MAX_CANDIDATES = 2000  # commits tried per broken branch


@dataclass
class Damage:
    unindexed: list[Path] = field(default_factory=list)  # pack files without their .idx
    bad_index: list[Path] = field(default_factory=list)  # pack files whose .idx does not read or match
    broken: dict[str, str] = field(default_factory=dict)  # ref name -> the missing commit it names
    detached_head: str | None = None  # HEAD holds a commit id (not a branch) that is missing

    def __bool__(self) -> bool:
        return bool(self.unindexed or self.bad_index or self.broken or self.detached_head)

    @property
    def packs(self) -> list[Path]:
        """The packs whose index doctor rebuilds."""
        return sorted(self.unindexed + self.bad_index)

    def describe(self) -> str:
        parts = []
        if self.bad_index:
            parts.append(f"the index of {len(self.bad_index)} pack(s) is damaged "
                         f"({', '.join(p.name for p in self.bad_index[:3])}), so the objects in them cannot be read")
        if self.unindexed:
            parts.append(f"{len(self.unindexed)} pack(s) lost their index ({', '.join(p.name for p in self.unindexed[:3])}), "
                         "so the objects in them cannot be read")
        for ref, sha in sorted(self.broken.items()):
            parts.append(f"{_short(ref)} {_names(sha)}")
        if self.detached_head:
            parts.append(f"HEAD {_names(self.detached_head)}")
        return "; ".join(parts)


def _names(sha: str) -> str:
    if _SHA.match(sha):
        return f"points at commit {sha[:12]}, which is not in the repository"
    return f"holds {sha[:40]!r}, which is not a commit id"


def is_sha(text: str) -> bool:
    return bool(_SHA.match(text or ""))


def target(sha: str) -> str:
    """How doctor names what a broken ref holds."""
    return f"the missing commit {sha[:12]}" if _SHA.match(sha) else f"{sha[:40]!r} (not a commit id)"


def _short(ref: str) -> str:
    return ref[len("refs/heads/"):] if ref.startswith("refs/heads/") else ref


def unindexed_packs(gitdir: Path) -> list[Path]:
    folder = gitdir / "objects" / "pack"
    try:
        names = set(os.listdir(folder))
    except OSError:
        return []
    return sorted(folder / n for n in names if n.startswith("pack-") and n.endswith(".pack") and n[:-5] + ".idx" not in names)


def damaged_indexes(gitdir: Path) -> list[Path]:
    """Packs whose `.idx` is there but does not read, fails its own checksum, or names
    another pack (a torn copy, a disk error)."""
    from dulwich.object_format import DEFAULT_OBJECT_FORMAT
    from dulwich.pack import load_pack_index

    folder = gitdir / "objects" / "pack"
    try:
        names = sorted(n for n in os.listdir(folder) if n.startswith("pack-") and n.endswith(".idx"))
    except OSError:
        return []
    out = []
    for name in names:
        pack = folder / (name[:-4] + ".pack")
        if not pack.is_file():
            continue
        try:
            idx = load_pack_index(str(folder / name), DEFAULT_OBJECT_FORMAT)
            try:
                idx.check()
                with open(pack, "rb") as f:
                    f.seek(-20, os.SEEK_END)
                    trailer = f.read(20)
                ok = idx.get_pack_checksum() == trailer
            finally:
                idx.close()
        except Exception:  # noqa: BLE001 - any failure to read it is the damage
            ok = False
        if not ok:
            out.append(pack)
    return out


def diagnose(memory: Path) -> Damage:
    """What of the two is wrong with the repository at `memory` (an empty Damage: neither)."""
    gitdir = memory / ".git"
    damage = Damage(unindexed=unindexed_packs(gitdir), bad_index=damaged_indexes(gitdir))
    if damage.bad_index:
        return damage  # dulwich cannot open the repository's objects until the index is rebuilt
    repo = Repo(str(memory))
    try:
        for ref in repo.refs.keys(base=b"refs/heads/"):
            name = b"refs/heads/" + ref
            sha = repo.refs.read_ref(name)
            if sha and not sha.startswith(b"ref: ") and missing(repo, sha):
                damage.broken[name.decode()] = sha.decode()
        head = repo.refs.read_ref(b"HEAD")
        if head and not head.startswith(b"ref: ") and missing(repo, head):
            damage.detached_head = head.decode()
    finally:
        repo.close()
    return damage


def missing(repo: Repo, sha: bytes) -> bool:
    """Is `sha` not in the repository at all? (An object that is there but does not read is
    other damage: `git fsck` names it, and no ref repair mends it.)"""
    sha = sha.strip()
    try:
        if not _SHA.match(sha.decode("ascii")):
            return True
    except UnicodeDecodeError:
        return True
    try:
        return sha not in repo.object_store
    except Exception:  # noqa: BLE001 - dulwich reads a loose object to answer: there, but damaged
        return False


def whole(repo: Repo, sha: str) -> bool:
    """Is `sha` a commit whose tree and every file in it can be read?"""
    if not _SHA.match(sha or ""):
        return False
    try:
        commit = repo[sha.encode()]
        if not isinstance(commit, Commit):
            return False
        tree = repo[commit.tree]
        if not isinstance(tree, Tree):
            return False
        for entry in tree.items():
            if stat.S_ISREG(entry.mode):
                repo[entry.sha]
        return True
    except Exception:  # noqa: BLE001 - missing or unreadable: not whole
        return False


def rebuild_index(pack: Path) -> int:
    """Compute `pack`'s index from the pack itself (what `git index-pack` does), written
    atomically beside it; the pack's own checksum is verified first. Returns the object count."""
    from dulwich.object_format import DEFAULT_OBJECT_FORMAT  # SHA-1: what cogit's repositories use
    from dulwich.pack import PackData

    idx = pack.with_suffix(".idx")
    tmp = pack.with_name(f".{pack.stem}.idx.{os.getpid()}.tmp")
    data = PackData(str(pack), DEFAULT_OBJECT_FORMAT)
    try:
        data.check()  # a torn or altered pack is refused, not indexed
        data.create_index(str(tmp), version=2)
        count = len(data)
    finally:
        data.close()
    try:
        os.chmod(tmp, 0o444)  # as git leaves its pack files
        os.replace(tmp, idx)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise
    return count


def candidates(repo: Repo, gitdir: Path, ref: str, cache_dir: Path) -> list[tuple[str, str]]:
    """(commit, where it was found) a broken `ref` could go back to, best first: its reflog
    newest entry first, then the history index's record of the branch, then remote-tracking
    refs of the same branch. Only commits that are whole; each once."""
    found: list[tuple[str, str]] = []
    try:
        with open(gitdir / "logs" / ref, "rb") as f:
            data = f.read(MAX_REFLOG)
        for line in reversed(data.decode("utf-8", "replace").splitlines()):
            parts = line.split(" ", 2)
            if len(parts) >= 2:
                found += [(parts[1], "its reflog"), (parts[0], "its reflog")]
    except OSError:
        pass
    branch = _short(ref)
    try:
        import json

        import zlib

        with open(cache_dir / "recent" / (branch.replace("/", "~") + ".jsonz"), "rb") as f:
            inflate = zlib.decompressobj()  # the history index's compressed recent file, read to its bound
            doc = json.loads(inflate.decompress(f.read(MAX_RECENT), MAX_RECENT))
        if isinstance(doc, dict) and doc.get("branch") == branch:
            found.append((str(doc.get("head")), "the history index"))
            found += [(str(r[0]), "the history index") for r in doc.get("entries") or [] if isinstance(r, list) and r]
    except (OSError, ValueError, zlib.error):
        pass
    for name in repo.refs.keys(base=b"refs/remotes/"):
        if name.decode("utf-8", "replace").split("/", 1)[-1] == branch:
            sha = repo.refs.read_ref(b"refs/remotes/" + name)
            if sha and not sha.startswith(b"ref: "):
                found.append((sha.decode(), f"refs/remotes/{name.decode()}"))
    out, seen = [], set()
    for sha, where in found[:MAX_CANDIDATES]:
        if sha not in seen and _SHA.match(sha) and sha != "0" * 40:
            seen.add(sha)
            if whole(repo, sha):
                out.append((sha, where))
    return out


def best(repo: Repo, options: list[tuple[str, str]]) -> tuple[str, str] | None:
    """The candidate that holds the most: one that has every other candidate in its history
    if there is one, else the newest by commit time (the first found among equals)."""
    from .repo import is_ancestor

    if not options:
        return None
    for sha, where in options:
        if all(other == sha or is_ancestor(repo, other, sha) for other, _ in options):
            return sha, where
    return max(options, key=lambda o: repo[o[0].encode()].commit_time)


def move_ref(repo: Repo, gitdir: Path, ref: str, missing: str, sha: str) -> bool:
    """Point `ref` (still at `missing`) at `sha`, and drop the reflog entries that name a
    commit the repository does not hold (`git fsck` refuses them; doctor's output names
    the missing commit instead)."""
    # A reflog line needs an id on both sides: a ref holding something else is moved unlogged.
    message = b"cogit doctor --fix: back from a missing commit" if _SHA.match(missing) else None
    if not repo.refs.set_if_equals(ref.encode(), missing.encode(), sha.encode(), message=message,
                                   committer=b"cogit <cogit@localhost>"):
        return False
    drop_missing_from_reflog(repo, gitdir / "logs" / ref)
    return True


def drop_missing_from_reflog(repo: Repo, path: Path) -> int:
    """Rewrite a reflog (atomically) without the entries naming a missing commit."""
    try:
        with open(path, "rb") as f:
            lines = f.read(MAX_REFLOG + 1).splitlines(keepends=True)
    except OSError:
        return 0
    zero = b"0" * 40

    def present(sha: bytes) -> bool:
        try:
            return sha == zero or (bool(_SHA.match(sha.decode("ascii"))) and not missing(repo, sha))
        except UnicodeDecodeError:
            return False

    keep = [ln for ln in lines if len(ln.split(b" ", 2)) < 3 or all(present(s) for s in ln.split(b" ", 2)[:2])]
    if len(keep) == len(lines):
        return 0
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(b"".join(keep))
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise
    return len(lines) - len(keep)


def reattach_head(repo: Repo, branch: str) -> None:
    """HEAD names a missing commit: make it the branch cogit checks out again."""
    repo.refs.set_symbolic_ref(b"HEAD", f"refs/heads/{branch}".encode())
