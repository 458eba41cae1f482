"""Which project a working directory belongs to, and its branch name (stdlib only).

The project is the normalized URL of the origin remote of the repository that
holds `cwd` (so two clones on two machines share one scope), else the repository's
own folder (its real path, so a symlinked path reaches the same project, and a linked
worktree the project of the repository it belongs to), else the folder itself (real
path); `projects.overrides` in config maps a URL or folder to a chosen name. Branch names are `project/<slug>`, safe as git
ref names whatever the input.
"""


import os

# String operations, not regular expressions: SessionStart runs this on every
# session, and `import re` alone costs milliseconds there.
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._-")


def _dash_unsafe(text: str) -> str:
    """Each run of characters outside [a-z0-9._-] becomes one dash."""
    out, in_run = [], False
    for c in text:
        if c in _SAFE:
            out.append(c)
            in_run = False
        elif not in_run:
            out.append("-")
            in_run = True
    return "".join(out)


def _squeeze(text: str, ch: str) -> str:
    while ch + ch in text:
        text = text.replace(ch + ch, ch)
    return text


def find_toplevel(cwd: str) -> str | None:
    path = os.path.abspath(cwd)
    while True:
        if os.path.exists(os.path.join(path, ".git")):
            return path
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def git_dirs(toplevel: str) -> tuple[str, str] | None:
    """(the repository's git dir, its common git dir) for a top-level folder: the two are
    one `.git` folder in an ordinary repository; a linked worktree's `.git` file names a
    git dir of its own whose `commondir` is the main repository's.

    The project folder is hostile: every file of it is read through projectfile (a
    regular file, no symlink, bounded), so a FIFO or a link to /dev/zero as `.git` or
    `commondir` cannot hang SessionStart or fill memory."""
    from cogit import projectfile

    git = os.path.join(toplevel, ".git")
    if not os.path.isfile(git):
        return git, git
    # a worktree or submodule: "gitdir: <path>"
    line = (projectfile.read_text(git, projectfile.POINTER) or "").strip()
    if not line.startswith("gitdir:"):
        return None
    git = os.path.normpath(os.path.join(toplevel, line[7:].strip()))
    common = os.path.join(git, "commondir")
    if os.path.exists(common):
        pointer = projectfile.read_text(common, projectfile.POINTER)
        if pointer is None:
            return None
        return git, os.path.normpath(os.path.join(git, pointer.strip()))
    return git, git


def origin_url(toplevel: str) -> str | None:
    from cogit import projectfile

    dirs = git_dirs(toplevel)
    if dirs is None:
        return None
    text = projectfile.read_text(os.path.join(dirs[1], "config"), projectfile.CONFIG)
    if text is None:
        return None
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line
            continue
        if section and _is_origin(section) and line.startswith("url"):
            _, _, value = line.partition("=")
            return value.strip() or None
    return None


def repository_folder(toplevel: str) -> str:
    """What names a repository without a remote: its main folder. A linked worktree
    (`git worktree add`) belongs to the repository its common git dir is in, so all of a
    repository's worktrees are one project; a submodule (a git dir of its own, no common
    dir) and an ordinary repository are their top-level folder. Real paths throughout."""
    dirs = git_dirs(toplevel)
    if dirs is not None and dirs[0] != dirs[1]:
        common = os.path.realpath(dirs[1])
        return os.path.dirname(common) if os.path.basename(common) == ".git" else common
    return toplevel


def _is_origin(section: str) -> bool:
    """`[remote "origin"]`, with any white space between the words."""
    return section.startswith("[remote") and section[7:8].isspace() and section[7:].lstrip() == '"origin"]'


def _split_url(u: str) -> tuple[str, str] | None:
    """(host, path) of scheme://[user@]host[:port]/path or scp-style [user@]host:path."""
    scheme, sep, rest = u.partition("://")
    if sep and scheme and all(c.isalnum() or c in "_.+-" for c in scheme):
        hostpart, slash, path = rest.partition("/")
        host, _, port = hostpart.rpartition("@")[2].partition(":")
        if slash and (not port or port.isdigit()):
            return host, path  # file:///path has no host: the path alone names it
        return None
    user_host, colon, path = u.partition(":")
    host = user_host.partition("@")[2] if "@" in user_host else user_host
    if colon and host and "/" not in host:
        return host, path
    return None


def normalize_url(url: str) -> str:
    """git@github.com:Me/Repo.git, https://u:p@github.com/me/repo -> github.com/me/repo."""
    u = url.strip()
    host, path = _split_url(u) or ("", u)
    path = path.strip("/")
    if path.endswith(".git"):
        path = path[:-4]
    return (f"{host}/{path}" if host else path).lower()


def slugify(name: str) -> str:
    """A safe ref component for any input (.., /, spaces, NUL, unicode)."""
    text = name.strip().lower().replace("\\", "/")
    parts = [_dash_unsafe(p).strip(".-") for p in text.split("/")]
    slug = "-".join(p for p in parts if p and p not in (".", ".."))
    slug = _squeeze(_squeeze(slug, "."), "-").strip("-.")  # git refuses ".."
    slug = slug.replace(".lock", "-lock")
    # Anything beyond "unsafe ASCII -> dash" loses information (unicode, control
    # characters, "..", truncation): a short hash of the name keeps such slugs apart. Two
    # folders deep in one tree (/home/me/src/company/team/service-a, .../service-b) share
    # their first 60 characters; cut without the hash they were one project. The hashed
    # slug stays within 60 characters, so a slug still names itself (sync checks that).
    lossy = any(not (" " <= c <= "~") for c in text)
    if not slug or lossy or len(slug) > 60 or slug != _dash_unsafe(text).strip("-."):
        import hashlib

        digest = hashlib.sha1(name.encode("utf-8", "surrogatepass")).hexdigest()[:6]
        slug = f"{slug[:53].rstrip('.-') or 'project'}-{digest}"
    return slug


def project_of(cwd: str | None, overrides: dict | None = None) -> dict | None:
    """{"name", "slug", "branch", "toplevel", "source"} for a working directory, or None.

    `source` says where the name came from: "origin" (the remote's URL), "repository"
    (a repository without origin: its top-level folder), "override" (config), or
    "folder" (no repository at all; agents' learnings there stay global).
    """
    if not cwd or not os.path.isabs(cwd):
        return None
    overrides = overrides or {}
    given = os.path.abspath(cwd)
    # The real path: a repository reached through a symlink (~/work -> /data/work) is the
    # same project as when reached directly.
    real = os.path.realpath(given)
    found = find_toplevel(real)
    top = found or real
    url = origin_url(top) if found else None
    name = normalize_url(url) if url else (repository_folder(top) if found else top)
    source = "origin" if url else ("repository" if found else "folder")
    # An override may name the folder as it was given before paths were resolved.
    for key in (url, name, top, find_toplevel(given) if real != given else None):
        if key and key in overrides:
            name, source = overrides[key], "override"
            break
    # A token in a folder name or in the path of a URL must not become a branch name
    # or a Cogit-Project trailer: redact before slugging (a few substring tests; `re`
    # only when one of them hits). Hooks and CLI both come here, so they agree.
    from cogit.redact import redact

    name = redact(name)[0]
    slug = slugify(name)
    return {"name": name, "slug": slug, "branch": f"project/{slug}", "toplevel": top, "source": source}


def display_name(name: str, depth: int = 1) -> str:
    """A project's name as people read it: a URL-named project by its name
    (`github.com/me/repo`), a folder-named one by its last `depth` parts (`alpha`, not
    `/home/me/src/alpha`: a report or a listing names the project, never where it lives)."""
    text = str(name or "").strip()
    drive = len(text) > 2 and text[0].isalpha() and text[1] == ":" and text[2] in "\\/"
    if not (drive or text.startswith(("/", "~"))):
        return text
    parts = [p for p in text.replace("\\", "/").split("/") if p and p != "~" and not (drive and p == text[:2])]
    return "/".join(parts[-depth:]) if parts else text
