"""The remotes and remote-tracking refs of the memory repository.

Split from cogit/store/git/repo.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dulwich.repo import Repo


# --------------------------------------------------------------------------- remotes
# Remotes live in the memory repository's own .git/config, as git keeps them, so that
# plain `git fetch <name>` in the memory repository works too.


def remotes(repo: Repo) -> dict[str, str]:
    config = repo.get_config()
    out = {}
    for section in config.sections():
        if len(section) == 2 and section[0] == b"remote":
            try:
                out[section[1].decode()] = config.get(section, b"url").decode()
            except KeyError:
                continue
    return dict(sorted(out.items()))


def set_remote(repo: Repo, name: str, url: str) -> None:
    config = repo.get_config()
    section = (b"remote", name.encode())
    config.set(section, b"url", url.encode())
    config.set(section, b"fetch", f"+refs/heads/*:refs/remotes/{name}/*".encode())
    config.write_to_path()


def remove_remote(repo: Repo, name: str) -> None:
    config = repo.get_config()
    try:
        del config[(b"remote", name.encode())]
    except KeyError:
        pass
    config.write_to_path()
    for ref in list(repo.refs.keys(base=f"refs/remotes/{name}/".encode())):
        repo.refs.remove_if_equals(f"refs/remotes/{name}/".encode() + ref, None)


def tracking(repo: Repo, remote: str) -> dict[str, str]:
    """branch -> commit of the remote-tracking refs refs/remotes/<remote>/<branch>."""
    base = f"refs/remotes/{remote}/".encode()
    return {k.decode(): repo.refs[base + k].decode() for k in repo.refs.keys(base=base)}


def set_tracking(repo: Repo, remote: str, branch: str, sha: str | None) -> None:
    ref = f"refs/remotes/{remote}/{branch}".encode()
    if sha is None:
        repo.refs.remove_if_equals(ref, None)
    else:
        repo.refs.set_if_equals(ref, None, sha.encode(), message=b"cogit: fetch", committer=b"cogit <cogit@localhost>")
