"""`cogit scan`: find secrets already in history (written before redaction, by plain
git, or pulled from an older machine).

Every commit reachable from the scanned branches is read: its message (author and
committer lines included) and every blob of its tree, each blob once. A finding
names the kind, the oldest scanned commit that holds it, and the file (or
"message"); the secret itself is never returned whole, only a masked form.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from cogit.redact import find
from cogit.store.git import repo as git


@dataclass
class Finding:
    kind: str
    commit: str
    file: str  # a path in the tree, or "message"
    branch: str
    masked: str

    def as_dict(self) -> dict:
        return asdict(self)


def mask(secret: str) -> str:
    """First 4 characters and the length: enough to recognise it, not to use it."""
    return f"{secret[:4]}… ({len(secret)} chars)"


def scan(repo, branches: list[str], allow=()) -> list[Finding]:
    """Findings in every commit reachable from `branches`, oldest commit per finding."""
    findings: dict[tuple, Finding] = {}
    blob_hits: dict[str, list[tuple[str, str]]] = {}  # blob id -> [(kind, secret)]
    seen_commits: set[str] = set()
    for branch in branches:
        for info in git.walk(repo, git.head(repo, branch)):
            if info.sha in seen_commits:
                continue
            seen_commits.add(info.sha)
            text = f"author {info.author}\ncommitter {info.committer}\n\n{info.message}"
            for start, end, kind in find(text, allow):
                _note(findings, kind, text[start:end], info.sha, "message", branch)
            for path, blob_id in git.tree_blobs(repo, info.sha):
                if blob_id not in blob_hits:
                    data = git.blob(repo, blob_id).decode("utf-8", "replace")
                    blob_hits[blob_id] = [(kind, data[s:e]) for s, e, kind in find(data, allow)]
                for kind, secret in blob_hits[blob_id]:
                    _note(findings, kind, secret, info.sha, path, branch)
    return list(findings.values())


def _note(findings, kind, secret, sha, file, branch) -> None:
    # Walking newest first, the last commit seen with the same secret in the same file
    # is the oldest: the one that brought it in.
    key = (kind, secret, file)
    found = findings.get(key)
    if found is None:
        findings[key] = Finding(kind, sha, file, branch, mask(secret))
    else:
        found.commit = sha


def purge_advice(home_memory, has_remotes: bool) -> str:
    """What to do about findings, written out for the memory repository."""
    lines = [
        "Rotate each secret first: it has been in a git repository, treat it as leaked.",
        "Then rewrite history without it, e.g. with git-filter-repo "
        "(https://github.com/newren/git-filter-repo):",
        f"  cd {home_memory}",
        "  printf '%s\\n' 'SECRET==>[REDACTED]' > /tmp/cogit-replacements.txt   # one line per secret",
        "  git filter-repo --replace-text /tmp/cogit-replacements.txt --replace-message /tmp/cogit-replacements.txt --force",
        "  rm -rf ../runtime/digest ../runtime/cache   # caches of the old commits; cogit rebuilds them",
        "  cogit scan --all-branches               # should now report nothing",
    ]
    if has_remotes:
        lines += [
            "Your remotes still hold the old commits. cogit never force-pushes: push the rewritten",
            "branches with `git push --force --all <remote>` from the memory folder, and re-clone",
            "(`cogit clone URL`) on every other machine; a machine that syncs its old history back",
            "brings the secret back.",
        ]
    return "\n".join(lines)
