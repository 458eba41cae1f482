"""Branch heads read straight from the memory repository's files. Standard library only.

Hooks and the cold read commands only need to know whether a cache (the digest, a state
snapshot, the item index) still matches a branch head; reading one ref file is far
cheaper than importing dulwich. A ref that is missing or unreadable reads as None, and
callers then take the full path through the store.
"""

import os


def ref_head(home_root: str, branch: str) -> str | None:
    """The commit id of `branch` (loose ref first, then packed-refs), or None."""
    git = os.path.join(home_root, "memory", ".git")
    try:
        with open(os.path.join(git, "refs", "heads", *branch.split("/")), encoding="ascii") as f:
            return f.read().strip()
    except OSError:
        pass
    try:
        with open(os.path.join(git, "packed-refs"), encoding="ascii") as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2 and parts[1] == f"refs/heads/{branch}":
                    return parts[0]
    except OSError:
        pass
    return None


PENDING = "cogit-pending"  # in .git/: the old head while a commit's working tree is being written


def read_pending(root) -> str | None:
    """The old head store.git.worktree.mark_pending noted ("" for none), or None when nothing is pending."""
    try:
        with open(os.path.join(str(root), ".git", PENDING), encoding="ascii") as f:
            return f.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
